import QuireCore

extension CoreDataSchema {
    /// The tables and columns of an existing store as its file names them, looked up case-insensitively (SQL
    /// names are; a PostgreSQL store reports them folded to lower case).
    ///
    /// A schema made with them (``CoreDataSchema/init(model:numbers:storeTables:)``) takes every name it has a
    /// choice about from the file: which side's name a many-to-many join table carries, the numeric suffix of a
    /// join column (`Z_23USERS1`), `REFLEXIVE`, whether a to-many without an inverse is Core Data's hidden column or
    /// the join table of older Quire stores, and older spellings of entity columns. Built once when a store is
    /// loaded; nothing reads the file's names again per row or per statement.
    package struct StoreTables {
        /// Per table (upper-cased): its name as the file spells it, and its columns (upper-cased → spelled).
        private var tables: [String: (name: String, columns: [String: String], ordered: [String])] = [:]

        /// The tables of a store: every table's columns, in the file's order.
        package init(_ columnsByTable: [String: [String]]) {
            for (table, columns) in columnsByTable {
                var byName: [String: String] = [:]
                for column in columns { byName[column.uppercased()] = column }
                tables[table.uppercased()] = (table, byName, columns)
            }
        }

        /// The columns of a table, as the file names them, or nil when the store has no such table.
        package func columns(of table: String) -> [String]? { tables[table.uppercased()]?.ordered }

        /// Whether the store has the column in the table.
        package func has(_ column: String, in table: String) -> Bool {
            tables[table.uppercased()]?.columns[column.uppercased()] != nil
        }

        /// The table's name as the file spells it.
        package func spelling(of table: String) -> String? { tables[table.uppercased()]?.name }

        /// Every table and its columns, as the file names them.
        package var columnsByTable: [String: Set<String>] {
            var result: [String: Set<String>] = [:]
            for table in tables.values { result[table.name] = Set(table.ordered) }
            return result
        }

        /// The column among `columns` called `name` (case-insensitively), or with `suffixed`, called `name`
        /// followed by a number, as Core Data names a join column whose name another join table took first
        /// (`Z_23USERS1`); the exact name is preferred. `excluding` is a column already taken for the other side.
        static func pick(_ name: String, in columns: [String], suffixed: Bool = false, excluding: String? = nil) -> String? {
            let wanted = name.uppercased()
            let excluded = excluding?.uppercased()
            if let exact = columns.first(where: { $0.uppercased() == wanted && $0.uppercased() != excluded }) { return exact }
            guard suffixed else { return nil }
            return columns.first { column in
                let upper = column.uppercased()
                guard upper != excluded, upper.hasPrefix(wanted) else { return false }
                let rest = upper.dropFirst(wanted.count)
                return !rest.isEmpty && rest.allSatisfy { $0.isASCII && $0.isNumber }
            }
        }
    }

    /// The Core Data version whose naming a new store's DDL follows (its `NSPersistenceFrameworkVersion`): index
    /// and constraint names changed between versions, and a store Core Data created keeps the names it was
    /// created with.
    ///
    /// - Before 836 (corpus: 637, 754): an indexed attribute is `ZMOOD_ZREMOTEID_INDEX ON ZMOOD (ZREMOTEID)`, a
    ///   compound index `ZMOOD_ZA_ZB ON ZMOOD (ZA, ZB)`, a uniqueness constraint `CONSTRAINT ZA_ZB UNIQUE (ZA, ZB)`
    ///   in `CREATE TABLE`.
    /// - 836 and later (corpus: 836 to 1523): an indexed attribute is the fetch index `Z_Bot_identifier ON ZBOT
    ///   (ZIDENTIFIER COLLATE BINARY ASC)`, a compound index a fetch index too, a uniqueness constraint
    ///   `CREATE UNIQUE INDEX Z_Car_UNIQUE_numberPlate …`.
    ///
    /// The corpus has no store of a version between 754 and 836, nor one of 754 or 836 with a uniqueness
    /// constraint: where the change falls inside those gaps is not known.
    package struct DDLStyle: Sendable, Hashable {
        /// Core Data's `NSPersistenceFrameworkVersion`.
        package var frameworkVersion: Int

        /// A style.
        package init(frameworkVersion: Int) { self.frameworkVersion = frameworkVersion }

        /// The version Quire lays new stores out as, and writes as their `NSPersistenceFrameworkVersion`.
        package static let quire = DDLStyle(frameworkVersion: StoreMetadataKey.quireFrameworkVersion)

        /// Whether an indexed attribute gets `<TABLE>_<COLUMN>_INDEX` (before Core Data turned the flag into a fetch
        /// index named after the attribute).
        var indexesAttributesByColumn: Bool { frameworkVersion < 836 }
        /// Whether uniqueness constraints are declared in `CREATE TABLE` rather than as unique indexes.
        var declaresUniquenessInline: Bool { frameworkVersion < 836 }
    }
}
