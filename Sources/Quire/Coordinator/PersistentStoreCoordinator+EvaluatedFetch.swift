import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// Hands the rows of a fetch from every store it reaches to `body`, as ``visitRows(_:stores:_:)`` does,
    /// when those stores evaluate its predicate themselves; returns false, having read nothing, when one does
    /// not (the context then works in memory). One acquisition of the lock, and for the usual single store
    /// one compilation of the predicate (none when the store has compiled a fetch of the same shape).
    func visitRowsIfStoresEvaluate(
        _ fetch: StoreFetch, stores affected: [PersistentStore]?, _ body: (consuming RowSnapshot) throws -> Void
    ) throws -> Bool {
        try locked {
            let targets = targetStores(fetch, affected)
            if targets.count == 1 { return try targets[0].backend.visitRowsIfEvaluable(fetch, body) }
            if let predicate = fetch.predicate,
                !targets.allSatisfy({ $0.backend.canEvaluate(predicate, for: fetch.entity) })
            {
                return false
            }
            for store in targets { try store.backend.visitRows(fetch, body) }
            return true
        }
    }
}
