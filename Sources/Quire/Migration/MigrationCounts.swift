import QuireCore
import QuireStores
import Foundation

/// The count check after each migration step: the migrated store must hold, for every entity, exactly the
/// objects it held before (when objects were added to an existing store) plus those the migration made. A store
/// that holds fewer (or more) is refused before it replaces anything, so no step loses objects silently.
/// (That every source object made its destination object, for mappings without a policy or a filter, is checked
/// by each mapping as it runs.)
enum MigrationCounts {
    /// The objects of each entity (its own, not its sub-entities') a store holds, by entity name.
    static func count(_ store: PersistentStore, in coordinator: PersistentStoreCoordinator) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for entity in store.entities where !entity.isAbstract {
            let fetch = StoreFetch(
                entity: entity, predicate: nil, sortKeys: [], limit: 0, offset: 0, includesSubentities: false, kind: .count)
            let count = try coordinator.storeCount(fetch, in: store)
            if count > 0 { counts[entity.name] = count }
        }
        return counts
    }

    /// Throws when the store's counts are not `existing` plus `made`.
    ///
    /// - Throws: ``QuireError/Code/migration`` naming the entity and both counts.
    static func check(
        _ store: PersistentStore, in coordinator: PersistentStoreCoordinator, existing: [String: Int], made: [String: Int]
    ) throws {
        let found = try count(store, in: coordinator)
        for name in Set(found.keys).union(existing.keys).union(made.keys).sorted() {
            let expected = existing[name, default: 0] + made[name, default: 0]
            let actual = found[name, default: 0]
            guard actual == expected else {
                throw QuireError(
                    .migration,
                    "The migrated store holds \(actual) objects of '\(name)' where the migration made \(expected); "
                        + "it is not used, and the old store is unchanged.",
                    context: .init(file: store.url, entity: name))
            }
        }
    }
}
