import QuireCore
import Foundation

/// The statements a save runs for to-many relationships, planned once for the SQLite and PostgreSQL stores
/// (each runs them its own way: SQLite binds a cached statement, PostgreSQL sends them in a pipeline): the
/// join-table rows of many-to-many relationships, the order keys of ordered to-many relationships kept by the
/// members' foreign keys, and the join rows of a deleted object. Every parameter is an integer (keys and
/// positions), in the order the SQL numbers them.
package enum JoinTableWrites {
    /// One statement's integer parameters: two or three.
    package struct Parameters {
        package var first: Int64
        package var second: Int64
        package var third: Int64?
    }

    /// Calls `run` with each statement writing the join-table rows of the to-many relationships `change`'s
    /// object (`id`, its permanent ID) owns, the side that names the join table: a DELETE per member it no
    /// longer has, then an upsert per member (with its position when the relationship is ordered). With
    /// `inverseSides` it calls `run` only for the other side's relationships, with an UPDATE of the inverse
    /// order column per member (the rows are the owners'). `map` gives inserted members their permanent IDs.
    package static func visitJoins(
        _ change: SaveRequest.Change, id: ObjectID, map: [ObjectID: ObjectID], inverseSides: Bool, schema: CoreDataSchema,
        dialect: SQLDialect, _ run: (_ sql: String, _ parameters: Parameters) throws -> Void
    ) rethrows {
        guard let pk = id.primaryKey else { return }
        let q = dialect.quote
        for relationship in id.entity.allRelationships where relationship.isToMany {
            if let key = schema.memberKey(for: relationship), key.isHidden {
                if !inverseSides { try visitHiddenKeys(change, relationship, key, owner: pk, map: map, dialect: dialect, run) }
                continue
            }
            guard let join = schema.joinTable(for: relationship) else { continue }
            let current = change.relationships[relationship.slot]
            if current.isFault { continue }
            let forward = join.relationship === relationship
            if forward == inverseSides { continue }
            let members = current.objectIDs.map { map[$0] ?? $0 }
            guard forward else {
                // Inverse side: rows are written by the owners; keep this side's order column in step.
                guard let orderColumn = join.inverseOrderColumn else { continue }
                let sql = "UPDATE \(q(join.name)) SET \(q(orderColumn)) = \(parameter(1, dialect)) "
                    + "WHERE \(q(join.destinationColumn)) = \(parameter(2, dialect)) AND \(q(join.sourceColumn)) = \(parameter(3, dialect))"
                for (position, member) in members.enumerated() {
                    guard let memberKey = member.primaryKey else { continue }
                    try run(sql, Parameters(first: Int64(position + 1), second: pk, third: memberKey))
                }
                continue
            }
            let committed = (change.committedRelationships?[relationship.slot]).flatMap { $0.isFault ? nil : $0.objectIDs } ?? []
            if change.committedRelationships != nil || !committed.isEmpty {
                let kept = Set(members)
                let sql = "DELETE FROM \(q(join.name)) WHERE \(q(join.sourceColumn)) = \(parameter(1, dialect)) "
                    + "AND \(q(join.destinationColumn)) = \(parameter(2, dialect))"
                for old in committed where !kept.contains(old) {
                    guard let oldKey = old.primaryKey else { continue }
                    try run(sql, Parameters(first: pk, second: oldKey, third: nil))
                }
            }
            var columns = [join.sourceColumn, join.destinationColumn]
            if let order = join.orderColumn { columns.append(order) }
            let update = join.orderColumn.map { "\(q($0)) = excluded.\(q($0))" } ?? "\(q(join.sourceColumn)) = excluded.\(q(join.sourceColumn))"
            // PostgreSQL needs the conflict's columns named; SQLite takes any uniqueness conflict.
            let target = dialect.namesConflictColumns ? " (\(q(join.sourceColumn)), \(q(join.destinationColumn)))" : ""
            let sql = "INSERT INTO \(q(join.name)) (\(columns.map(q).joined(separator: ", "))) "
                + "VALUES (\(columns.indices.map { parameter($0 + 1, dialect) }.joined(separator: ", "))) "
                + "ON CONFLICT\(target) DO UPDATE SET \(update)"
            for (position, member) in members.enumerated() {
                guard let memberKey = member.primaryKey else { continue }
                try run(sql, Parameters(first: pk, second: memberKey, third: join.orderColumn == nil ? nil : Int64(position + 1)))
            }
        }
    }

    /// The statements of a to-many relationship without an inverse, kept in a hidden column of the members'
    /// rows (Core Data's `Z<n><REL>`): the members it no longer has lose the owner's key (where it is still this
    /// owner's), every member gets it (and its position, when ordered). A member is one owner's at a time, as in
    /// Core Data: adding it to another owner's relationship moves it.
    private static func visitHiddenKeys(
        _ change: SaveRequest.Change, _ relationship: RelationshipDescription, _ key: CoreDataSchema.MemberKey, owner pk: Int64,
        map: [ObjectID: ObjectID], dialect: SQLDialect, _ run: (_ sql: String, _ parameters: Parameters) throws -> Void
    ) rethrows {
        let current = change.relationships[relationship.slot]
        if current.isFault { return }
        let q = dialect.quote
        let members = current.objectIDs.map { map[$0] ?? $0 }
        let committed = (change.committedRelationships?[relationship.slot]).flatMap { $0.isFault ? nil : $0.objectIDs } ?? []
        if !committed.isEmpty {
            let kept = Set(members)
            let clearOrder = key.orderColumn.map { ", \(q($0)) = NULL" } ?? ""
            let sql = "UPDATE \(q(key.table.name)) SET \(q(key.column)) = NULL\(clearOrder) "
                + "WHERE \(q("Z_PK")) = \(parameter(1, dialect)) AND \(q(key.column)) = \(parameter(2, dialect))"
            for old in committed where !kept.contains(old) {
                guard let oldKey = (map[old] ?? old).primaryKey else { continue }
                try run(sql, Parameters(first: oldKey, second: pk, third: nil))
            }
        }
        if let order = key.orderColumn {
            let sql = "UPDATE \(q(key.table.name)) SET \(q(key.column)) = \(parameter(1, dialect)), \(q(order)) = \(parameter(2, dialect)) "
                + "WHERE \(q("Z_PK")) = \(parameter(3, dialect))"
            for (position, member) in members.enumerated() {
                guard let memberKey = member.primaryKey else { continue }
                try run(sql, Parameters(first: pk, second: Int64(position + 1), third: memberKey))
            }
        } else {
            let sql = "UPDATE \(q(key.table.name)) SET \(q(key.column)) = \(parameter(1, dialect)) "
                + "WHERE \(q("Z_PK")) = \(parameter(2, dialect))"
            for member in members {
                guard let memberKey = member.primaryKey else { continue }
                try run(sql, Parameters(first: pk, second: memberKey, third: nil))
            }
        }
    }

    /// Calls `run` with each UPDATE setting the `Z_FOK_` order key of a member of one of `change`'s ordered
    /// to-many relationships kept by the members' foreign keys: its position, then its key.
    package static func visitOrderKeys(
        _ change: SaveRequest.Change, map: [ObjectID: ObjectID], schema: CoreDataSchema, dialect: SQLDialect,
        _ run: (_ sql: String, _ parameters: Parameters) throws -> Void
    ) rethrows {
        for relationship in change.objectID.entity.allRelationships where relationship.isOrdered && CoreDataSchema.usesForeignKey(relationship) {
            guard case .ordered(let members) = change.relationships[relationship.slot], let inverse = relationship.resolvedInverse,
                let owner = inverse.entity, let mapping = schema.mapping(for: owner), mapping.orderKeyColumns[inverse.slot] >= 0
            else { continue }
            let column = mapping.table.columns[mapping.orderKeyColumns[inverse.slot]].name
            let sql = "UPDATE \(dialect.quote(mapping.table.name)) SET \(dialect.quote(column)) = \(parameter(1, dialect)) "
                + "WHERE \(dialect.quote("Z_PK")) = \(parameter(2, dialect))"
            for (position, member) in members.enumerated() {
                guard let key = (map[member] ?? member).primaryKey else { continue }
                try run(sql, Parameters(first: Int64(position + 1), second: key, third: nil))
            }
        }
    }

    /// Calls `run` with the DELETE of the join-table rows a deleted object of `entity` is part of, on either
    /// side, and the UPDATE clearing its key from the members of its to-many relationships without an inverse;
    /// each statement's one parameter is the object's key.
    package static func visitRemovals(
        of entity: EntityDescription, schema: CoreDataSchema, dialect: SQLDialect, _ run: (_ sql: String) throws -> Void
    ) rethrows {
        for join in schema.allJoinTables {
            for (column, owner) in [(join.sourceColumn, join.relationship.entity), (join.destinationColumn, join.relationship.resolvedDestination)] {
                guard let owner, entity.isKind(of: owner) else { continue }
                try run("DELETE FROM \(dialect.quote(join.name)) WHERE \(dialect.quote(column)) = \(parameter(1, dialect))")
            }
        }
        // The members of a deleted owner's to-many relationships without an inverse no longer name it.
        for (relationship, key) in schema.hiddenMemberKeys {
            guard let owner = relationship.entity, entity.isKind(of: owner) else { continue }
            let clearOrder = key.orderColumn.map { ", \(dialect.quote($0)) = NULL" } ?? ""
            try run(
                "UPDATE \(dialect.quote(key.table.name)) SET \(dialect.quote(key.column)) = NULL\(clearOrder) "
                    + "WHERE \(dialect.quote(key.column)) = \(parameter(1, dialect))")
        }
    }

    /// The `index`th parameter (1-based) of a statement bound by position.
    private static func parameter(_ index: Int, _ dialect: SQLDialect) -> String { dialect.positional(index) }
}
