@_spi(QuireEngine) import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// Hands the rows of a fetch from every store it reaches to `body`, each row's values packed as fetched
    /// objects keep them (the SQLite and PostgreSQL stores read the columns straight into the packed form), when
    /// those stores evaluate its predicate themselves; returns false, having read nothing, when one does not (the
    /// context then works in memory). One acquisition of the lock, and for the usual single store one compilation
    /// of the predicate (none when the store has compiled a fetch of the same shape).
    func visitPackedRowsIfStoresEvaluate(
        _ fetch: StoreFetch, stores affected: [PersistentStore]?, _ body: (consuming PackedRowSnapshot) throws -> Void
    ) throws -> Bool {
        try locked {
            let targets = targetStores(fetch, affected)
            if targets.count == 1 { return try targets[0].backend.visitPackedRowsIfEvaluable(fetch, body) }
            guard storesEvaluate(fetch, targets) else { return false }
            for store in targets { try store.backend.visitRows(fetch) { row in try body(PackedRowSnapshot(row)) } }
            return true
        }
    }
}

extension PersistentStoreCoordinator {
    /// ``visitRows(_:stores:_:)`` when every store the fetch reaches evaluates its predicate; false, having read
    /// nothing, when one does not. One acquisition of the lock, and for a single store one lookup of the fetch's
    /// shape (whether it compiles is known from the statement's plan).
    func visitRowsIfStoresEvaluate(
        _ fetch: StoreFetch, stores affected: [PersistentStore]?, _ body: (consuming RowSnapshot) throws -> Void
    ) throws -> Bool {
        try locked {
            let targets = targetStores(fetch, affected)
            if targets.count == 1 { return try targets[0].backend.visitRowsIfEvaluable(fetch, body) }
            guard storesEvaluate(fetch, targets) else { return false }
            for store in targets { try store.backend.visitRows(fetch, body) }
            return true
        }
    }

    /// The IDs of a fetch from every store it reaches, as ``fetchObjectIDs(_:stores:)`` answers them, when those
    /// stores evaluate its predicate themselves; nil when one does not. One acquisition of the lock.
    func fetchObjectIDsIfStoresEvaluate(_ fetch: StoreFetch, stores affected: [PersistentStore]?) throws -> [ObjectID]? {
        try locked {
            let targets = targetStores(fetch, affected)
            guard storesEvaluate(fetch, targets) else { return nil }
            // One store's array as it is: appending it to an empty one would copy it (24 MB a million IDs).
            if targets.count == 1, let store = targets.first { return try store.backend.fetchObjectIDs(fetch) }
            var ids: [ObjectID] = []
            for store in targets { ids += try store.backend.fetchObjectIDs(fetch) }
            return ids
        }
    }

    /// The number of objects a fetch matches in every store it reaches, when those stores evaluate its
    /// predicate themselves; nil when one does not. One acquisition of the lock.
    func countIfStoresEvaluate(_ fetch: StoreFetch, stores affected: [PersistentStore]?) throws -> Int? {
        try locked {
            let targets = targetStores(fetch, affected)
            guard storesEvaluate(fetch, targets) else { return nil }
            return try targets.reduce(0) { $0 + (try $1.backend.count(fetch)) }
        }
    }

    /// Whether every one of `targets` evaluates the fetch's predicate (stores cache the answer by the
    /// predicate's shape). Call under the lock.
    private func storesEvaluate(_ fetch: StoreFetch, _ targets: [PersistentStore]) -> Bool {
        guard let predicate = fetch.predicate else { return true }
        return targets.allSatisfy { $0.backend.canEvaluate(predicate, for: fetch.entity) }
    }
}
