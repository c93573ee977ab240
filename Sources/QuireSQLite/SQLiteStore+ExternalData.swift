import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension SQLiteStore {
    /// Quire's record of the length of each external data file it wrote, so truncated files are detected
    /// (Core Data's column holds only the name). Created on first use; stores without it still open.
    package static let externalDataTable = "Z_QUIREEXTERNALDATA"

    /// Records the lengths of files written by a save, inside its transaction.
    package func recordExternalData(_ lengths: [String: Int64], _ connection: SQLiteConnection) throws {
        try connection.execute("CREATE TABLE IF NOT EXISTS \(Self.externalDataTable) (Z_UUID VARCHAR PRIMARY KEY, Z_LENGTH INTEGER)")
        let insert = try connection.cachedStatement("INSERT OR REPLACE INTO \(Self.externalDataTable) (Z_UUID, Z_LENGTH) VALUES (?, ?)")
        for (name, length) in lengths.sorted(by: { $0.key < $1.key }) {
            insert.reset()
            insert.bind(name, at: 1)
            insert.bind(length, at: 2)
            try insert.run()
        }
    }

    package func recordedLength(ofExternalData name: String) -> Int64? {
        guard let connection, let statement = try? connection.cachedStatement(
            "SELECT Z_LENGTH FROM \(Self.externalDataTable) WHERE Z_UUID = ?")
        else { return nil }
        defer { statement.reset() }
        statement.bind(name, at: 1)
        return (try? statement.step()) == true ? statement.int64(at: 0) : nil
    }

    /// Whether a save may have left external data files unreferenced: it updated or deleted objects of an
    /// entity with attributes that allow external storage.
    static func mayUnreferenceExternalData(_ request: SaveRequest) -> Bool {
        (request.updated + request.deleted).contains { change in
            change.objectID.entity.allAttributes.contains(where: \.allowsExternalBinaryDataStorage)
        }
    }

    /// The names of the external data files the store's rows refer to.
    func referencedExternalData(_ connection: SQLiteConnection) throws -> Set<String> {
        var referenced = Set<String>()
        for table in schema.tables {
            for column in table.columns {
                guard case .attribute(let attribute) = column.role, attribute.allowsExternalBinaryDataStorage else { continue }
                let name = SQLDialect.sqlite.quote(column.name)
                let select = try connection.cachedStatement(
                    "SELECT substr(\(name), 2, 36) FROM \(SQLDialect.sqlite.quote(table.name)) WHERE substr(\(name), 1, 1) = x'02'")
                defer { select.reset() }
                while try select.step() { referenced.insert(String(decoding: select.data(at: 0), as: UTF8.self)) }
            }
        }
        return referenced
    }

    /// Removes external data files no row refers to, in a write transaction of its own, so no other
    /// connection is between writing a file and committing the row that refers to it.
    func collectExternalData() throws {
        guard let folder = externalDataFolder, !options.isReadOnly, !folder.fileNames().isEmpty else { return }
        let connection = try db()
        try connection.transaction {
            let removed = folder.collect(keeping: try referencedExternalData(connection))
            guard !removed.isEmpty, try connection.tableNames().contains(Self.externalDataTable) else { return }
            let delete = try connection.cachedStatement("DELETE FROM \(Self.externalDataTable) WHERE Z_UUID = ?")
            for name in removed {
                delete.reset()
                delete.bind(name, at: 1)
                try delete.run()
            }
        }
    }
}
