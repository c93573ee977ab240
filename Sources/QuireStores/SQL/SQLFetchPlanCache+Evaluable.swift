import QuireCore
import Foundation

extension SQLFetchPlanCache where Value == Bool {
    /// Whether a predicate on an entity compiles to SQL as a whole, remembered by the predicate's shape (the
    /// SQLite and PostgreSQL stores' `canEvaluate`): `compile` runs the store's compiler and says whether it
    /// compiled and whether its SQL depends on the constants' values (then the answer is not remembered).
    ///
    /// - Parameter compiled: Called when `compile` ran (stores count compilations).
    package mutating func evaluates(
        _ predicate: QueryPredicate, for entity: EntityDescription, store: PersistentStore,
        compile: () -> (compiles: Bool, dependsOnParameterValues: Bool)
    ) -> Bool {
        let fetch = StoreFetch(
            entity: entity, predicate: predicate, sortKeys: [], limit: 0, offset: 0, includesSubentities: true, kind: .count)
        let shape = SQLFetchShape(fetch, selection: .predicateOnly, sorted: false, store: store)
        if let known = value(for: shape) { return known }
        let answer = compile()
        if !answer.dependsOnParameterValues { insert(answer.compiles, for: shape) }
        return answer.compiles
    }
}
