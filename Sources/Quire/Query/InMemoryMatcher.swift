/// Evaluates predicates against managed objects in memory (pending changes, and predicates a store cannot
/// evaluate itself).
enum InMemoryMatcher {
    static func matches(_ object: ManagedObject, _ predicate: QueryPredicate) throws -> Bool {
        true  // INTERIM until the predicate language lands.
    }
}
