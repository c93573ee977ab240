import QuireCore
import QuireStores
import Foundation

extension ManagedObjectContext {
    /// Fetches or deletes persistent history (`execute(_:)` with an `NSPersistentHistoryChangeRequest`); see
    /// ``PersistentHistoryChangeRequest``.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreUnsupportedRequestType`` when no store it reaches records
    ///   history; store errors.
    @discardableResult
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        try performAndWait {
            let coordinator = coordinatorOrFail()
            let stores = try coordinator.historyStores(request.affectedStores)
            switch request.operation {
            case .delete:
                var deleted = 0
                for (store, backend) in stores {
                    deleted += try coordinator.deleteHistory(of: store, backend, through: request.bound)
                }
                return PersistentHistoryResult(
                    resultType: request.resultType, transactions: request.resultType == .count || request.resultType == .statusOnly ? nil : [],
                    count: deleted, status: true)
            case .fetch:
                var transactions: [PersistentHistoryTransaction] = []
                let filtersChanges = request.fetchRequest?.entityName == PersistentHistoryChange.entityName
                let withChanges = request.resultType == .transactionsAndChanges || filtersChanges
                for (store, backend) in stores {
                    let records = try coordinator.fetchHistory(of: store, backend, after: request.bound, includingChanges: withChanges)
                    transactions += records.map { Self.transaction($0, store: store) }
                }
                transactions.sort { ($0.timestamp, $0.transactionNumber) < ($1.timestamp, $1.transactionNumber) }
                if let fetchRequest = request.fetchRequest {
                    transactions = try Self.narrow(transactions, by: fetchRequest)
                    if filtersChanges && request.resultType != .transactionsAndChanges {
                        transactions = transactions.map { $0.withoutChanges }
                    }
                }
                switch request.resultType {
                case .statusOnly: return PersistentHistoryResult(resultType: .statusOnly, transactions: nil, count: nil, status: true)
                case .count: return PersistentHistoryResult(resultType: .count, transactions: nil, count: transactions.count, status: true)
                default: return PersistentHistoryResult(resultType: request.resultType, transactions: transactions, count: transactions.count, status: true)
                }
            }
        }
    }

    /// The transactions a history fetch request keeps: those its predicate matches (a transaction request), or
    /// those with changes it matches, holding only those (a change request); then its offset and limit.
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` for a request of another entity; the predicate's
    ///   evaluation errors (``QuireError/Code/predicateEvaluation`` for a key the records lack).
    private static func narrow(
        _ transactions: [PersistentHistoryTransaction], by fetchRequest: FetchRequest<any PersistentHistoryFetchResult>
    ) throws -> [PersistentHistoryTransaction] {
        var kept: [PersistentHistoryTransaction]
        switch fetchRequest.entityName {
        case PersistentHistoryTransaction.entityName:
            guard let predicate = fetchRequest.predicate else {
                kept = transactions
                break
            }
            kept = try transactions.filter { try predicate.evaluate(with: $0) }
        case PersistentHistoryChange.entityName:
            kept = []
            for transaction in transactions {
                let changes = try (transaction.changes ?? []).filter { try fetchRequest.predicate?.evaluate(with: $0) ?? true }
                if !changes.isEmpty { kept.append(transaction.with(changes: changes)) }
            }
        default:
            throw QuireError(
                .invalidFetchRequest,
                "A history request's fetch request must be PersistentHistoryTransaction.fetchRequest or "
                    + "PersistentHistoryChange.fetchRequest, not one of entity '\(fetchRequest.entityName)'.",
                context: .init(entity: fetchRequest.entityName))
        }
        if fetchRequest.fetchOffset > 0 { kept = Array(kept.dropFirst(fetchRequest.fetchOffset)) }
        if fetchRequest.fetchLimit > 0 { kept = Array(kept.prefix(fetchRequest.fetchLimit)) }
        return kept
    }

    /// A request's bound for one store: a token or transaction of another store reads that store whole.
    private static func transaction(_ record: StoreHistoryTransaction, store: PersistentStore) -> PersistentHistoryTransaction {
        PersistentHistoryTransaction(
            timestamp: record.timestamp,
            changes: record.changes?.map { change in
                PersistentHistoryChange(
                    changeID: change.number, changedObjectID: change.objectID,
                    changeType: PersistentHistoryChangeType(rawValue: change.type) ?? .update,
                    updatedProperties: change.updatedProperties.map(Set.init), tombstone: change.tombstone,
                    transactionNumber: record.number)
            },
            transactionNumber: record.number, storeID: store.identifier, bundleID: record.bundleID, processID: record.processID,
            contextName: record.contextName, author: record.author,
            token: PersistentHistoryToken(transactionNumbers: [store.identifier: record.number]))
    }
}
