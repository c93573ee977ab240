import QuireCore

/// What a SQL store (SQLite, PostgreSQL) runs to write ``SaveRequest/Change/memberChanges``: the members added
/// to and removed from to-many relationships that were faults when they changed, written without reading the
/// relationships (issue 15).
///
/// - To-many relationships without an inverse (a hidden column of the members' rows): the removed members lose
///   the owner's key, the added ones get it (numbered after the owner's last member when ordered).
/// - Join tables (many-to-many, and inverse-less to-many in stores Quire wrote before 2026-12): the owning side
///   deletes the removed members' rows and inserts the added ones; an ordered owning side numbers them after its current last position
///   (`MAX(Z_FOK_…) + 1`); a row already there keeps its place. An ordered inverse side numbers, after its
///   last position, the rows that have no position on its side yet (the ones the owning side just wrote).
/// - Ordered to-many kept by the members' foreign keys: the added members (whose own saves wrote the foreign
///   key) are numbered after the owner's current last member.
package struct SQLMemberChanges {
    /// Runs a statement with integer parameters and answers the rows it changed.
    package typealias Run = (_ sql: String, _ values: [Int64]) throws -> Int
    /// Runs a query answering one integer, `nil` for NULL or no row.
    package typealias Scalar = (_ sql: String, _ values: [Int64]) throws -> Int64?

    /// The store's schema (join tables, order-key columns).
    package let schema: CoreDataSchema
    /// Quotes an identifier for the store's dialect.
    package let quote: (String) -> String
    /// The placeholder of the `n`th parameter (1-based): `?` for SQLite, `$n` for PostgreSQL.
    package let placeholder: (Int) -> String
    /// See ``Run``.
    package let run: Run
    /// See ``Scalar``.
    package let scalar: Scalar

    /// Creates one for a store's schema, dialect and connection.
    package init(schema: CoreDataSchema, quote: @escaping (String) -> String, placeholder: @escaping (Int) -> String, run: @escaping Run, scalar: @escaping Scalar) {
        self.schema = schema
        self.quote = quote
        self.placeholder = placeholder
        self.run = run
        self.scalar = scalar
    }

    /// Writes the recorded member changes of one saved object (`id` its permanent ID): the owning sides of
    /// join tables and foreign-key order keys when `inverseSides` is false, the inverse sides' order columns
    /// when true (after every owning side wrote its rows). Relationships loaded since they changed are
    /// written from their values by the store's usual path and skipped here.
    package func write(_ change: SaveRequest.Change, id: ObjectID, map: [ObjectID: ObjectID], inverseSides: Bool) throws {
        guard !change.memberChanges.isEmpty, let pk = id.primaryKey else { return }
        let relationships = id.entity.allRelationships
        for (slot, members) in change.memberChanges.sorted(by: { $0.key < $1.key }) {
            guard slot < relationships.count, slot < change.relationships.count, change.relationships[slot].isFault else { continue }
            let relationship = relationships[slot]
            let added = members.added.compactMap { (map[$0] ?? $0).primaryKey }
            let removed = members.removed.compactMap { (map[$0] ?? $0).primaryKey }.sorted()
            if let key = schema.memberKey(for: relationship), key.isHidden {
                if !inverseSides { try writeHiddenKeys(key, owner: pk, added: added, removed: removed) }
            } else if let join = schema.joinTable(for: relationship) {
                let forward = join.relationship === relationship
                if forward == inverseSides { continue }
                if forward {
                    try writeOwningSide(join, owner: pk, added: added, removed: removed)
                } else if let column = join.inverseOrderColumn {
                    try numberInverseSide(join, column: column, owner: pk, added: added)
                }
            } else if !inverseSides, relationship.isOrdered, CoreDataSchema.usesForeignKey(relationship) {
                // Members inserted by this save (temporary IDs) have no position yet.
                let inserted = Set(members.added.compactMap { map[$0]?.primaryKey })
                try numberForeignKeyMembers(relationship, owner: pk, added: added, inserted: inserted)
            }
        }
    }

    private func writeOwningSide(_ join: CoreDataSchema.JoinTable, owner: Int64, added: [Int64], removed: [Int64]) throws {
        let (table, source, destination) = (quote(join.name), quote(join.sourceColumn), quote(join.destinationColumn))
        let delete = "DELETE FROM \(table) WHERE \(source) = \(placeholder(1)) AND \(destination) = \(placeholder(2))"
        for member in removed { _ = try run(delete, [owner, member]) }
        guard !added.isEmpty else { return }
        guard let order = join.orderColumn.map(quote) else {
            let insert = "INSERT INTO \(table) (\(source), \(destination)) VALUES (\(placeholder(1)), \(placeholder(2))) ON CONFLICT DO NOTHING"
            for member in added { _ = try run(insert, [owner, member]) }
            return
        }
        var next = try scalar("SELECT MAX(\(order)) FROM \(table) WHERE \(source) = \(placeholder(1))", [owner]) ?? 0
        let insert = "INSERT INTO \(table) (\(source), \(destination), \(order)) "
            + "VALUES (\(placeholder(1)), \(placeholder(2)), \(placeholder(3))) ON CONFLICT DO NOTHING"
        for member in added where try run(insert, [owner, member, next + 1]) == 1 { next += 1 }
    }

    /// A to-many relationship without an inverse (a hidden column of the members' rows): the removed members lose
    /// the owner's key where it is still this owner's, the added ones get it, numbered after the owner's last
    /// member when ordered.
    private func writeHiddenKeys(_ key: CoreDataSchema.MemberKey, owner: Int64, added: [Int64], removed: [Int64]) throws {
        let (table, column, pk) = (quote(key.table.name), quote(key.column), quote("Z_PK"))
        let clearOrder = key.orderColumn.map { ", \(quote($0)) = NULL" } ?? ""
        let clear = "UPDATE \(table) SET \(column) = NULL\(clearOrder) WHERE \(pk) = \(placeholder(1)) AND \(column) = \(placeholder(2))"
        for member in removed { _ = try run(clear, [member, owner]) }
        guard !added.isEmpty else { return }
        guard let order = key.orderColumn.map(quote) else {
            let set = "UPDATE \(table) SET \(column) = \(placeholder(1)) WHERE \(pk) = \(placeholder(2))"
            for member in added { _ = try run(set, [owner, member]) }
            return
        }
        var next = try scalar("SELECT MAX(\(order)) FROM \(table) WHERE \(column) = \(placeholder(1))", [owner]) ?? 0
        // A member already this owner's keeps its place.
        let set = "UPDATE \(table) SET \(column) = \(placeholder(1)), \(order) = \(placeholder(2)) "
            + "WHERE \(pk) = \(placeholder(3)) AND (\(column) IS NULL OR \(column) <> \(placeholder(4)))"
        for member in added where try run(set, [owner, next + 1, member, owner]) == 1 { next += 1 }
    }

    private func numberInverseSide(_ join: CoreDataSchema.JoinTable, column: String, owner: Int64, added: [Int64]) throws {
        guard !added.isEmpty else { return }
        let (table, source, destination, order) = (quote(join.name), quote(join.sourceColumn), quote(join.destinationColumn), quote(column))
        var next = try scalar("SELECT MAX(\(order)) FROM \(table) WHERE \(destination) = \(placeholder(1))", [owner]) ?? 0
        let update = "UPDATE \(table) SET \(order) = \(placeholder(1)) "
            + "WHERE \(destination) = \(placeholder(2)) AND \(source) = \(placeholder(3)) AND \(order) IS NULL"
        for member in added where try run(update, [next + 1, owner, member]) == 1 { next += 1 }
    }

    private func numberForeignKeyMembers(_ relationship: RelationshipDescription, owner: Int64, added: [Int64], inserted: Set<Int64>) throws {
        guard !added.isEmpty, let inverse = relationship.resolvedInverse, let memberEntity = inverse.entity,
            let mapping = schema.mapping(for: memberEntity), inverse.slot < mapping.orderKeyColumns.count,
            mapping.orderKeyColumns[inverse.slot] >= 0, mapping.foreignKeyColumns[inverse.slot] >= 0
        else { return }
        let table = quote(mapping.table.name)
        let order = quote(mapping.table.columns[mapping.orderKeyColumns[inverse.slot]].name)
        let foreignKey = quote(mapping.table.columns[mapping.foreignKeyColumns[inverse.slot]].name)
        let key = quote("Z_PK")
        // The added members' keys are stale (a position in another owner) or unset (inserted by this save):
        // clear the stale ones, then number them all after the owner's last member. A member whose foreign key
        // names another owner is left alone.
        let clear = "UPDATE \(table) SET \(order) = NULL WHERE \(key) = \(placeholder(1)) AND \(foreignKey) = \(placeholder(2))"
        for member in added where !inserted.contains(member) { _ = try run(clear, [member, owner]) }
        var next = try scalar("SELECT MAX(\(order)) FROM \(table) WHERE \(foreignKey) = \(placeholder(1))", [owner]) ?? 0
        let update = "UPDATE \(table) SET \(order) = \(placeholder(1)) WHERE \(key) = \(placeholder(2)) AND \(foreignKey) = \(placeholder(3))"
        for member in added where try run(update, [next + 1, member, owner]) == 1 { next += 1 }
    }
}
