import CSQLite
import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension SQLiteStore {
    /// The largest key handed out in an entity hierarchy: the largest `Z_MAX` of its entities' `Z_PRIMARYKEY`
    /// rows or the largest `Z_PK` of its table, whichever is larger, and at least 0. A counter below the
    /// table's keys (a store damaged or edited by hand: `Z_MAX = -1`) therefore never hands out a key a row
    /// has, nor a key below 1.
    ///
    /// Costs two lookups: `Z_PK` is the table's `INTEGER PRIMARY KEY`, whose largest value SQLite reads from
    /// the end of the table's b-tree.
    ///
    /// - Throws: ``QuireError/Code/fileReadCorruptFile`` when a `Z_MAX` or `Z_PK` is not an integer.
    func largestKey(of root: EntityDescription, _ connection: SQLiteConnection) throws -> Int64 {
        let numbers = schema.numbers.hierarchyNumbers(of: root)
        let counters = try connection.cachedStatement(
            "SELECT Z_ENT, Z_MAX, typeof(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))")
        defer { counters.reset() }
        var largest: Int64 = 0
        while try counters.step() {
            switch counters.string(at: 2) {
            case "integer": largest = max(largest, counters.int64(at: 1))
            case "null": continue
            default:
                throw QuireError(
                    .fileReadCorruptFile,
                    "The store '\(storeURL.path)' is damaged: Z_MAX of entity number \(counters.int64(at: 0)) in Z_PRIMARYKEY "
                        + "holds the \(counters.string(at: 2) ?? "value") '\((counters.string(at: 1) ?? "").prefix(40))', not a key.",
                    context: .init(file: storeURL, entity: root.name))
            }
        }
        guard let table = schema.mapping(for: root)?.table.name else { return largest }
        // MAX alone in its statement, so that SQLite reads it from the b-tree's last entry.
        let keys = try connection.cachedStatement("SELECT MAX(Z_PK) FROM \(SQLDialect.sqlite.quote(table))")
        defer { keys.reset() }
        if try keys.step(), keys.storageClass(at: 0) == SQLITE_INTEGER { largest = max(largest, keys.int64(at: 0)) }
        return largest
    }

    /// The error of a save that needs `count` keys after `largest`, the largest key handed out so far for
    /// `entity`, when fewer are left below `Int64.max` (a counter set to its end by hand): no key is ever
    /// reused, and no counter wraps around.
    func noKeysLeft(after largest: Int64, count: Int, for entity: String) -> QuireError {
        QuireError(
            .persistentStoreSave,
            "Could not save: the store '\(storeURL.path)' has no keys left for \(count) new objects of entity '\(entity)': "
                + "the largest key handed out (Z_MAX in Z_PRIMARYKEY, or the largest Z_PK) is \(largest).",
            context: .init(file: storeURL, entity: entity))
    }

    /// Whether `count` keys are left after `largest`.
    static func hasKeys(after largest: Int64, count: Int) -> Bool { largest <= Int64.max - Int64(max(count, 0)) }
}

extension SQLiteStore {
    /// The key counters of a closed store file that a save could not use as they are, one sentence each (what
    /// `quire verify` reports): a `Z_MAX` that is negative or not an integer, a hierarchy whose largest `Z_MAX`
    /// is below the largest `Z_PK` of its table (Core Data would give a new object a key a row has; Quire counts
    /// on from the table's), and a hierarchy with no key left before `Int64.max`.
    ///
    /// - Throws: ``QuireError`` when the file cannot be read or its `Z_PRIMARYKEY` does not match the model.
    static func keyCounterProblems(at url: URL, model: ManagedObjectModel) throws -> [String] {
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        defer { connection.close() }
        try model.freeze()
        let tables = try connection.tableNames()
        guard tables.contains("Z_PRIMARYKEY") else { return [] }
        let numbers = try CoreDataEntityNumbers.read(try primaryKeyRows(connection, url: url), model: model, url: url)
        let schema = CoreDataSchema(model: model, numbers: numbers)
        var problems: [String] = []
        for root in numbers.entitiesInOrder where root.superentity == nil {
            guard let table = schema.mapping(for: root)?.table.name, tables.contains(table) else { continue }
            let counters = try connection.prepare(
                "SELECT Z_ENT, Z_MAX, typeof(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT IN ("
                    + numbers.hierarchyNumbers(of: root).map(String.init).joined(separator: ", ") + ") ORDER BY Z_ENT")
            defer { counters.finalize() }
            // The hierarchy's counter: its largest Z_MAX (Core Data keeps it on the root's row).
            var counter: Int64 = 0
            while try counters.step() {
                let number = counters.int64(at: 0)
                let entity = numbers.entity(number: number)?.name ?? "?"
                let row = "Table Z_PRIMARYKEY, entity \(entity) (Z_ENT \(number)), column Z_MAX"
                switch counters.string(at: 2) {
                case "integer":
                    let value = counters.int64(at: 1)
                    if value < 0 { problems.append("\(row) is \(value); key counters are 0 or more.") }
                    counter = max(counter, value)
                case "null":
                    continue
                default:
                    problems.append("\(row) holds the \(counters.string(at: 2) ?? "value") '\((counters.string(at: 1) ?? "").prefix(40))', not a key counter.")
                }
            }
            let keys = try connection.prepare("SELECT MAX(Z_PK) FROM \(SQLDialect.sqlite.quote(table))")
            defer { keys.finalize() }
            let largestKey = try keys.step() && keys.storageClass(at: 0) == SQLITE_INTEGER ? keys.int64(at: 0) : 0
            let hierarchy = root.subentities.isEmpty ? "Z_MAX of \(root.name)" : "largest Z_MAX of \(root.name) and its sub-entities"
            if largestKey > counter {
                problems.append(
                    "Table Z_PRIMARYKEY: the key counter of table \(table) (the \(hierarchy)) is \(counter), below its largest "
                        + "key (Z_PK \(largestKey)); Core Data would give a new object a key a row has.")
            }
            if max(counter, largestKey) == .max {
                problems.append(
                    "Table Z_PRIMARYKEY: the keys of table \(table) have reached \(Int64.max); no new object of "
                        + "\(root.name)\(root.subentities.isEmpty ? "" : " or its sub-entities") can be saved.")
            }
        }
        return problems
    }
}
