import QuireCore
import QuireStores
import Foundation

/// The DDL of a PostgreSQL store: ``CoreDataSchema``'s tables, columns and indexes (Core Data's layout) with
/// PostgreSQL's types, names folded to lower case, and one key sequence per entity hierarchy.
package enum PostgresSchema {
    /// The sequence that hands out the `Z_PK` keys of a hierarchy's table, a block per save
    /// (``PostgresStore/allocateKeys(_:count:_:)``): its lock is held for one statement, outside the save's
    /// transaction, so concurrent saves never queue on a key counter.
    package static func keySequence(_ table: CoreDataSchema.Table) -> String { SQLDialect.postgres.quote("Z_PKSEQ_" + table.name) }

    /// The statements that create a store's tables, sequences and indexes in the current schema.
    package static func createStatements(_ schema: CoreDataSchema) -> [String] {
        let q = SQLDialect.postgres.quote
        var sql: [String] = [
            "CREATE TABLE z_primarykey (z_ent BIGINT PRIMARY KEY, z_name TEXT, z_super BIGINT, z_max BIGINT)",
            "CREATE TABLE z_metadata (z_version BIGINT PRIMARY KEY, z_uuid VARCHAR(255), z_plist BYTEA)",
            "CREATE TABLE z_quiremodel (z_version BIGINT PRIMARY KEY, z_content BYTEA)",
            PostgresStore.createExternalDataTable,
        ]
        for table in schema.tables {
            let columns = ["z_pk BIGINT PRIMARY KEY", "z_ent BIGINT", "z_opt BIGINT"]
                + table.columns.map { "\(q($0.name)) \(PostgresDialect.columnType($0.type))" }
            sql.append("CREATE TABLE \(q(table.name)) ( \(columns.joined(separator: ", ")) )")
            sql.append("CREATE SEQUENCE \(keySequence(table))")
            if !table.root.subentities.isEmpty {
                sql.append("CREATE INDEX \(q("\(table.name)_Z_ENT_INDEX")) ON \(q(table.name)) (z_ent)")
            }
            for column in table.columns {
                let indexed: Bool
                switch column.role {
                case .attribute(let attribute): indexed = attribute.isIndexed
                case .foreignKey, .ownerKey: indexed = true
                case .foreignEntity, .orderKey, .ownerOrderKey: indexed = false
                }
                guard indexed else { continue }
                sql.append("CREATE INDEX \(q("\(table.name)_\(column.name)_INDEX")) ON \(q(table.name)) (\(q(column.name)))")
            }
        }
        for entity in schema.numbers.entitiesInOrder {
            guard let table = schema.table(for: entity) else { continue }
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                let columns = constraint.compactMap { name in
                    table.columns.first { column in
                        switch column.role {
                        case .attribute(let attribute): return attribute.name == name && entity.isKind(of: attribute.entity ?? entity)
                        case .foreignKey(let relationship): return relationship.name == name && entity.isKind(of: relationship.entity ?? entity)
                        case .foreignEntity, .orderKey, .ownerKey, .ownerOrderKey: return false
                        }
                    }
                }
                guard columns.count == constraint.count else { continue }
                // A deferred constraint, checked when the save commits: values may move between records in one save
                // (a swap, or a record deleted and another inserted with its values) in any order of statements,
                // which the save's deadlock-free key order does not follow. Its index has the constraint's name.
                sql.append(
                    "ALTER TABLE \(q(table.name)) ADD CONSTRAINT "
                        + "\(SQLDialect.quoteRaw("Z_\(entity.name)_UNIQUE_" + constraint.joined(separator: "_"))) UNIQUE ("
                        + columns.map { q($0.name) }.joined(separator: ", ") + ") DEFERRABLE INITIALLY DEFERRED")
            }
        }
        sql += schema.joinTableStatements(name: q, integerType: "BIGINT")
        return sql
    }
}
