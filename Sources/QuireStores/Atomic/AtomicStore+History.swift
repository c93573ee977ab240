import QuireCore
import Foundation

/// Persistent history for the stores Core Data offers none on: XML, binary, custom atomic and in-memory stores
/// added with ``StoreOptions/persistentHistoryTracking``. The history lives in the store's metadata under
/// ``StoreMetadataKey/persistentHistory`` (a property list: numbers, timestamps, authors, and per change the
/// entity's name, the record's key, the changed property names or the tombstone), so it is written with the
/// records in the same atomic write and a failed save leaves it as it was. The in-memory store keeps it as long
/// as it is attached.
///
/// Reading history re-reads a file another coordinator or process rewrote since this store read it, records
/// and all, so that ``PersistentHistoryMerger`` sees their saves and the objects they saved.
extension AtomicStore: HistoryTrackingStoreBackend {
    // MARK: The log in the metadata

    /// The history as the metadata holds it.
    private struct Log {
        var lastTransaction: Int64 = 0
        var lastChange: Int64 = 0
        var transactions: [PropertyListValue] = []

        init(_ value: PropertyListValue?) {
            guard let dictionary = value?.dictionaryValue else { return }
            lastTransaction = dictionary["lastTransaction"]?.integerValue ?? 0
            lastChange = dictionary["lastChange"]?.integerValue ?? 0
            transactions = dictionary["transactions"]?.arrayValue ?? []
        }

        var value: PropertyListValue {
            .dictionary([
                "lastTransaction": .integer(lastTransaction), "lastChange": .integer(lastChange),
                "transactions": .array(transactions),
            ])
        }
    }

    private var historyLog: Log { Log(metadata[StoreMetadataKey.persistentHistory]) }

    /// Brings the store up to date with its file when another writer rewrote it: history and records are read
    /// again (an atomic store holds no unsaved state, so nothing is lost).
    private func reloadIfRewritten() throws {
        guard persistsToFile else { return }
        do {
            try checkFileUnchanged()
        } catch {
            try load()
        }
    }

    // MARK: Recording

    /// The attribute values of the deleted records whose entities preserve values in history, taken before the
    /// save removes them.
    func historyTombstoneRows(_ request: SaveRequest) -> [ObjectID: [AttributeValue]] {
        guard options.persistentHistoryTracking else { return [:] }
        var rows: [ObjectID: [AttributeValue]] = [:]
        for change in request.deleted where !StoreHistoryLayout.tombstoneAttributes(change.objectID.entity).isEmpty {
            if let key = change.objectID.primaryKey, let node = nodes[key] { rows[change.objectID] = node.attributes }
        }
        return rows
    }

    /// Adds a save to the history in the metadata (before the save writes the file): one transaction, and a
    /// change per inserted, updated (with the names of the properties it changed) and deleted object (with its
    /// tombstone).
    func recordHistory(_ request: SaveRequest, permanentIDs: [ObjectID], tombstoneRows: [ObjectID: [AttributeValue]]) {
        guard options.persistentHistoryTracking, !request.isEmpty else { return }
        var log = historyLog
        var changes: [PropertyListValue] = []
        changes.reserveCapacity(permanentIDs.count + request.updated.count + request.deleted.count)
        func add(_ id: ObjectID, type: Int64, detail: PropertyListValue?) {
            guard let key = id.primaryKey else { return }
            log.lastChange += 1
            var fields: [PropertyListValue] = [.integer(log.lastChange), .integer(type), .string(id.entity.name), .integer(key)]
            if let detail { fields.append(detail) }
            changes.append(.array(fields))
        }
        for id in permanentIDs { add(id, type: 0, detail: nil) }
        for change in request.updated {
            add(change.objectID, type: 1, detail: .array(StoreHistoryLayout.changedPropertyNames(change).map { .string($0) }))
        }
        for change in request.deleted {
            let tombstone = tombstoneRows[change.objectID].flatMap {
                StoreHistoryLayout.tombstone(of: change.objectID.entity, attributes: $0)
            }
            add(change.objectID, type: 2, detail: tombstone.map { .dictionary($0.compactMapValues(Self.propertyListValue)) })
        }
        log.lastTransaction += 1
        var transaction: [String: PropertyListValue] = [
            "number": .integer(log.lastTransaction), "timestamp": .date(Date()), "changes": .array(changes),
            "bundleID": .string(Self.processStrings.bundleID), "processID": .string(Self.processStrings.processID),
        ]
        if let author = request.transactionAuthor { transaction["author"] = .string(author) }
        if let name = request.contextName { transaction["contextName"] = .string(name) }
        log.transactions.append(.dictionary(transaction))
        metadata[StoreMetadataKey.persistentHistory] = log.value
    }

    /// The bundle identifier and process name recorded with every transaction of this process.
    private static let processStrings: (bundleID: String, processID: String) = {
        let process = ProcessInfo.processInfo.processName
        return (Bundle.main.bundleIdentifier ?? process, process)
    }()

    /// A tombstone value in the property list (decimals, UUIDs and URIs as strings); nil for no value.
    private static func propertyListValue(_ value: AttributeValue) -> PropertyListValue? {
        switch value {
        case .null, .externalData: return nil
        case .integer(let v): return .integer(v)
        case .double(let v): return .real(v)
        case .float(let v): return .real(Double(v))
        case .decimal(let v): return .string(v.description)
        case .string(let v): return .string(v)
        case .boolean(let v): return .boolean(v)
        case .date(let v): return .date(v)
        case .data(let v): return .data(v)
        case .uuid(let v): return .string(v.uuidString)
        case .uri(let v): return .string(v.absoluteString)
        }
    }

    /// A tombstone value read back as its attribute's type; nil when it does not fit the type.
    private static func attributeValue(_ value: PropertyListValue, type: AttributeType) -> AttributeValue? {
        switch (type, value) {
        case (.integer16, .integer(let v)), (.integer32, .integer(let v)), (.integer64, .integer(let v)): return .integer(v)
        case (.double, .real(let v)): return .double(v)
        case (.float, .real(let v)): return .float(Float(v))
        case (.decimal, .string(let v)): return Decimal(string: v, locale: Locale(identifier: "en_US_POSIX")).map(AttributeValue.decimal)
        case (.string, .string(let v)): return .string(v)
        case (.boolean, .boolean(let v)): return .boolean(v)
        case (.date, .date(let v)): return .date(v)
        case (.binaryData, .data(let v)), (.transformable, .data(let v)): return .data(v)
        case (.uuid, .string(let v)): return UUID(uuidString: v).map(AttributeValue.uuid)
        case (.uri, .string(let v)): return URL(string: v).map(AttributeValue.uri)
        default: return nil
        }
    }

    // MARK: Reading and deleting

    package func hasHistory() throws -> Bool {
        options.persistentHistoryTracking || metadata[StoreMetadataKey.persistentHistory] != nil
    }

    package func lastHistoryTransaction() throws -> Int64 {
        try reloadIfRewritten()
        return historyLog.lastTransaction
    }

    package func fetchHistory(after bound: StoreHistoryBound, includingChanges: Bool) throws -> [StoreHistoryTransaction] {
        try reloadIfRewritten()
        var result: [StoreHistoryTransaction] = []
        for value in historyLog.transactions {
            guard let transaction = value.dictionaryValue, let number = transaction["number"]?.integerValue,
                let timestamp = transaction["timestamp"]?.dateValue
            else { continue }
            switch bound {
            case .all: break
            case .transaction(let after): if number <= after { continue }
            case .date(let after): if timestamp <= after { continue }
            }
            result.append(StoreHistoryTransaction(
                number: number, timestamp: timestamp, author: transaction["author"]?.stringValue,
                contextName: transaction["contextName"]?.stringValue, bundleID: transaction["bundleID"]?.stringValue,
                processID: transaction["processID"]?.stringValue,
                changes: includingChanges ? (transaction["changes"]?.arrayValue ?? []).compactMap(change) : nil))
        }
        return result
    }

    /// One change as the log holds it; nil for a change of an entity the model does not have.
    private func change(_ value: PropertyListValue) -> StoreHistoryChange? {
        guard let fields = value.arrayValue, fields.count >= 4, let number = fields[0].integerValue,
            let type = fields[1].integerValue, let name = fields[2].stringValue, let key = fields[3].integerValue,
            let entity = model.entitiesByName[name]
        else { return nil }
        let detail = fields.count > 4 ? fields[4] : nil
        var tombstone: [String: AttributeValue]?
        if type == 2, let values = detail?.dictionaryValue {
            var decoded: [String: AttributeValue] = [:]
            for attribute in StoreHistoryLayout.tombstoneAttributes(entity) {
                if let value = values[attribute.name], let read = Self.attributeValue(value, type: attribute.attributeType) {
                    decoded[attribute.name] = read
                }
            }
            tombstone = decoded
        }
        return StoreHistoryChange(
            number: number, objectID: ObjectID(entity: entity, store: store, primaryKey: key), type: Int(type),
            updatedProperties: type == 1 ? detail?.arrayValue?.compactMap(\.stringValue) : nil, tombstone: tombstone)
    }

    package func deleteHistory(through bound: StoreHistoryBound) throws -> Int {
        guard !options.isReadOnly else { throw readOnlyError() }
        try reloadIfRewritten()
        let saved = metadata
        var log = historyLog
        let before = log.transactions.count
        log.transactions.removeAll { value in
            guard let transaction = value.dictionaryValue, let number = transaction["number"]?.integerValue,
                let timestamp = transaction["timestamp"]?.dateValue
            else { return true }
            switch bound {
            case .all: return true
            case .transaction(let through): return number <= through
            case .date(let date): return timestamp < date
            }
        }
        let deleted = before - log.transactions.count
        guard deleted > 0 else { return 0 }
        metadata[StoreMetadataKey.persistentHistory] = log.value
        do {
            try writeChanges(of: [])
        } catch {
            metadata = saved
            throw error
        }
        return deleted
    }
}
