import Foundation
import QuireCore
@_spi(QuireEngine) import QuireStores

extension SQLiteStore {
    /// The most problems one check lists per table, so a badly damaged store gives a readable report.
    static let contentProblemLimit = 20

    /// The rows of a closed store file that no object graph can represent, one sentence each naming the table,
    /// the row's `Z_PK` and the column (what `quire verify` reports and `quire convert` refuses): a `Z_PK` below
    /// 1, a `Z_ENT` that names no entity of the table, a value of a storage class its attribute's type never has
    /// (text in an integer column, a blob in a string column, checked with `typeof()`), an integer outside its
    /// type's range, and a to-one key or join-table key that refers to no row. Each table is read once.
    ///
    /// - Throws: ``QuireError`` when the file cannot be read.
    static func contentProblems(at url: URL, model: ManagedObjectModel) throws -> [String] {
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        defer { connection.close() }
        try model.freeze()
        let tables = try connection.tableNames()
        // The store's own entity numbers (Z_PRIMARYKEY) and names (its join tables and columns), as every read and
        // write of its rows uses them.
        let schema = tables.contains("Z_PRIMARYKEY")
            ? try resolvedSchema(connection, tables: tables, model: model, url: url).0 : CoreDataSchema(model: model)
        var problems: [String] = []
        func hierarchy(_ entity: EntityDescription) -> String {
            schema.numbers.hierarchyNumbers(of: entity).map(String.init).joined(separator: ", ")
        }
        /// A condition true when a key column refers to no row of the destination's hierarchy.
        func dangling(_ column: String, _ destination: EntityDescription) -> String? {
            guard let target = schema.mapping(for: destination)?.table, tables.contains(target.name) else { return nil }
            return "(\(column) IS NOT NULL AND (typeof(\(column)) <> 'integer' OR NOT EXISTS (SELECT 1 FROM "
                + "\(SQLDialect.sqlite.quote(target.name)) d WHERE d.Z_PK = \(column) AND d.Z_ENT IN (\(hierarchy(destination))))))"
        }

        for table in schema.tables where tables.contains(table.name) {
            let columns = try connection.columnNames(of: table.name)
            let name = SQLDialect.sqlite.quote(table.name)
            // Each check: a condition, and the sentence for a row it holds for.
            var checks: [(condition: String, column: String, describe: (String, String) -> String)] = []
            checks.append(("(typeof(t.Z_PK) <> 'integer' OR t.Z_PK < 1)", "Z_PK", { _, value in "has the key \(value); keys are 1 or more" }))
            checks.append((
                "(typeof(t.Z_ENT) <> 'integer' OR t.Z_ENT NOT IN (\(hierarchy(table.root))))", "Z_ENT",
                { _, value in "has the entity number \(value), which names no entity of the table (\(table.root.name) and its sub-entities)" }))
            for column in table.columns where columns.contains(column.name) {
                let quoted = "t." + SQLDialect.sqlite.quote(column.name)
                switch column.role {
                case .attribute(let attribute):
                    let type = attribute.attributeType
                    let allowed = SQLStorageClass.typeNames(SQLStorageClass.allowed(for: type))
                    var bad = "typeof(\(quoted)) NOT IN ('null', \(allowed.map { "'\($0)'" }.joined(separator: ", ")))"
                    if let range = type.integerRange, type != .integer64 {
                        bad += " OR (typeof(\(quoted)) = 'integer' AND \(quoted) NOT BETWEEN \(range.lowerBound) AND \(range.upperBound))"
                    }
                    if type == .uuid { bad += " OR (typeof(\(quoted)) = 'blob' AND length(\(quoted)) <> 16)" }
                    let owner = attribute.entity?.name ?? table.root.name
                    checks.append(("(\(bad))", column.name, { storage, value in
                        let what = storage == "integer" && type.integerRange != nil
                            ? "\(value), outside the range of \(type.rawValue) (\(type.integerRange.map { "\($0.lowerBound)...\($0.upperBound)" } ?? ""))"
                            : storage == "blob" ? "a blob" : "the \(storage) \(value)"
                        return "(\(owner).\(attribute.name)) holds \(what) where \(type.rawValue) values are stored as "
                            + SQLStorageClass.names(SQLStorageClass.allowed(for: type))
                    }))
                case .foreignKey(let relationship):
                    guard let destination = relationship.resolvedDestination, let condition = dangling(quoted, destination) else { continue }
                    let owner = relationship.entity?.name ?? table.root.name
                    checks.append((condition, column.name, { storage, value in
                        storage == "integer"
                            ? "(\(owner).\(relationship.name)) refers to Z_PK \(value) of \(destination.name), which does not exist"
                            : "(\(owner).\(relationship.name)) holds the \(storage) \(value), not the key of a row"
                    }))
                case .ownerKey(let relationship):
                    guard let owner = relationship.entity, let condition = dangling(quoted, owner) else { continue }
                    checks.append((condition, column.name, { storage, value in
                        storage == "integer"
                            ? "(the owner of \(owner.name).\(relationship.name)) refers to Z_PK \(value) of \(owner.name), "
                                + "which does not exist"
                            : "(the owner of \(owner.name).\(relationship.name)) holds the \(storage) \(value), not the key of a row"
                    }))
                case .foreignEntity, .orderKey, .ownerOrderKey:
                    continue
                }
            }
            problems += try failingRows(connection, table: name, tableName: table.name, checks: checks)
        }

        for join in schema.allJoinTables where tables.contains(join.name) {
            let columns = try connection.columnNames(of: join.name)
            // A join table without the columns the model needs is a schema difference, which opening reports.
            guard columns.contains(join.sourceColumn), columns.contains(join.destinationColumn), let owner = join.relationship.entity,
                let destination = join.relationship.resolvedDestination
            else { continue }
            var checks: [(condition: String, column: String, describe: (String, String) -> String)] = []
            for (column, entity) in [(join.sourceColumn, owner), (join.destinationColumn, destination)] where columns.contains(column) {
                guard let condition = dangling("t." + SQLDialect.sqlite.quote(column), entity) else { continue }
                checks.append((condition, column, { storage, value in
                    storage == "integer"
                        ? "(\(owner.name).\(join.relationship.name)) refers to Z_PK \(value) of \(entity.name), which does not exist"
                        : "(\(owner.name).\(join.relationship.name)) holds the \(storage) \(value), not the key of a row"
                }))
            }
            let label = "printf('(%s, %s)', t.\(SQLDialect.sqlite.quote(join.sourceColumn)), t.\(SQLDialect.sqlite.quote(join.destinationColumn)))"
            problems += try failingRows(connection, table: SQLDialect.sqlite.quote(join.name), tableName: join.name, checks: checks, label: label)
        }
        return problems
    }

    /// Runs a table's checks in one pass and describes each failing row and column.
    private static func failingRows(
        _ connection: SQLiteConnection, table: String, tableName: String,
        checks: [(condition: String, column: String, describe: (String, String) -> String)], label: String? = nil
    ) throws -> [String] {
        guard !checks.isEmpty else { return [] }
        var select = [label ?? "t.Z_PK"]
        for check in checks {
            let column = "t." + SQLDialect.sqlite.quote(check.column)
            select += [check.condition, "typeof(\(column))", "substr(CAST(\(column) AS TEXT), 1, 40)"]
        }
        let sql = "SELECT \(select.joined(separator: ", ")) FROM \(table) t WHERE "
            + checks.map(\.condition).joined(separator: " OR ") + " LIMIT \(contentProblemLimit)"
        let statement = try connection.prepare(sql)
        defer { statement.finalize() }
        var problems: [String] = []
        while try statement.step() {
            let row = statement.string(at: 0) ?? "?"
            for (index, check) in checks.enumerated() where statement.int64(at: Int32(1 + index * 3)) != 0 {
                let storage = statement.string(at: Int32(2 + index * 3)) ?? "null"
                let value = statement.string(at: Int32(3 + index * 3)) ?? "NULL"
                let rowName = label == nil ? "row Z_PK \(row)" : "row \(row)"
                problems.append("Table \(tableName), \(rowName), column \(check.column) \(check.describe(storage, value)).")
            }
        }
        return problems
    }
}
