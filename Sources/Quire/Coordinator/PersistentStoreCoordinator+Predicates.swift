import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// Splits a fetch's predicate between the stores and memory: the whole predicate when every store the
    /// fetch reaches evaluates it, otherwise the conjuncts of a top-level `AND` they all evaluate; the rest is
    /// for the context to evaluate in memory.
    ///
    /// - Returns: The part for the stores and the part for memory, each nil when empty.
    func split(
        _ predicate: QueryPredicate, for fetch: StoreFetch, in affected: [PersistentStore]?
    ) -> (store: QueryPredicate?, memory: QueryPredicate?) {
        locked {
            let attached = persistentStores
            let targets = (affected ?? attached).filter { store in
                attached.contains { $0 === store } && store.holds(fetch.entity)
            }
            func evaluated(_ part: QueryPredicate) -> Bool {
                targets.allSatisfy { $0.backend.canEvaluate(part, for: fetch.entity) }
            }
            if evaluated(predicate) { return (predicate, nil) }
            guard case .and(let operands) = predicate else { return (nil, predicate) }
            var stored: [QueryPredicate] = []
            var remaining: [QueryPredicate] = []
            for operand in operands {
                if evaluated(operand) { stored.append(operand) } else { remaining.append(operand) }
            }
            return (
                stored.isEmpty ? nil : QueryPredicate.conjunction(stored),
                remaining.isEmpty ? nil : QueryPredicate.conjunction(remaining)
            )
        }
    }
}
