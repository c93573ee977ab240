import QuireCore
import QuireStores
/// Evaluates predicates against managed objects in memory: unsaved changes during fetches, and predicates a
/// store cannot evaluate itself.
enum InMemoryMatcher {
    static func matches(_ object: ManagedObject, _ predicate: QueryPredicate) throws -> Bool {
        try predicate.evaluate(with: object)
    }
}
