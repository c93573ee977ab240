import Foundation

extension PersistentStoreCoordinator {
    /// The stores a fetch of an entity reaches: the affected ones still attached, or every store holding it.
    func stores(for entity: EntityDescription, in affected: [PersistentStore]?) -> [PersistentStore] {
        locked {
            let attached = persistentStores
            return (affected ?? attached).filter { store in attached.contains { $0 === store } && store.holds(entity) }
        }
    }

    /// A dictionary fetch computed by the one store it reaches, or nil when it reaches several stores or the
    /// store leaves it to the context.
    func fetchDictionaries(_ request: DictionaryFetch, stores affected: [PersistentStore]?) throws -> [[DictionaryValue]]? {
        try locked {
            let targets = stores(for: request.fetch.entity, in: affected)
            guard targets.count == 1, let store = targets.first else { return targets.isEmpty ? [] : nil }
            return try store.fetchDictionaries(request)
        }
    }
}
