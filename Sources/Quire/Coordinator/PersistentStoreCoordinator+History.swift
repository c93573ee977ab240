import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// The stores (of `affected`, or all) that record or hold persistent history, with their backends.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreUnsupportedRequestType`` when there is none.
    func historyStores(_ affected: [PersistentStore]?) throws -> [(PersistentStore, any HistoryTrackingStoreBackend)] {
        try locked {
            let attached = persistentStores
            var result: [(PersistentStore, any HistoryTrackingStoreBackend)] = []
            for store in (affected ?? attached) where attached.contains(where: { $0 === store }) {
                if let backend = store.backend as? any HistoryTrackingStoreBackend, try backend.hasHistory() { result.append((store, backend)) }
            }
            guard !result.isEmpty else {
                throw QuireError(
                    .persistentStoreUnsupportedRequestType,
                    "No store of the coordinator records persistent history: add a store with StoreOptions.persistentHistoryTracking.")
            }
            return result
        }
    }

    /// Deletes a store's history up to a bound (see ``historyStores(_:)``); returns how many transactions went.
    func deleteHistory(
        of store: PersistentStore, _ backend: any HistoryTrackingStoreBackend, through bound: PersistentHistoryChangeRequest.Bound
    ) throws -> Int {
        try locked { try backend.deleteHistory(through: bound.storeBound(for: store)) }
    }

    /// A store's history after a bound (see ``historyStores(_:)``), with each transaction's changes when asked.
    func fetchHistory(
        of store: PersistentStore, _ backend: any HistoryTrackingStoreBackend, after bound: PersistentHistoryChangeRequest.Bound,
        includingChanges: Bool
    ) throws -> [StoreHistoryTransaction] {
        try locked { try backend.fetchHistory(after: bound.storeBound(for: store), includingChanges: includingChanges) }
    }

    /// The token of the history as it is now (`currentPersistentHistoryToken(fromStores:)`): the last
    /// transaction of each store that records history; nil when none does.
    public func currentPersistentHistoryToken(fromStores stores: [PersistentStore]? = nil) -> PersistentHistoryToken? {
        guard let tracked = try? historyStores(stores) else { return nil }
        var numbers: [String: Int64] = [:]
        for (store, backend) in tracked { numbers[store.identifier] = locked { (try? backend.lastHistoryTransaction()) ?? 0 } }
        return PersistentHistoryToken(transactionNumbers: numbers)
    }
}

extension PersistentHistoryChangeRequest.Bound {
    /// The bound as one store's history knows it: a token's or a transaction's number for that store (all of its
    /// history when they name none of it).
    func storeBound(for store: PersistentStore) -> StoreHistoryBound {
        switch self {
        case .all: return .all
        case .date(let date): return .date(date)
        case .token(let token): return token?.transactionNumbers[store.identifier].map(StoreHistoryBound.transaction) ?? .all
        case .transaction(let transaction):
            guard let transaction, transaction.storeID == store.identifier else { return .all }
            return .transaction(transaction.transactionNumber)
        }
    }
}
