import QuireCore
import QuireStores
import Foundation

/// Requests addressed to one store of the coordinator and answered by its backend directly, neither from nor
/// into the row cache: what migration, verification and the mapping-model reader read. Each takes the
/// coordinator's lock, as every request to a store does; no other layer takes it.
extension PersistentStoreCoordinator {
    /// Attaches a store made and loaded elsewhere (a mapping model's file, read as an XML store), as
    /// ``addPersistentStore(type:configuration:at:options:)`` attaches the stores it opens.
    func attachLoadedStore(_ store: PersistentStore) {
        locked {
            appendStore(store)
            store.coordinatorReference = self
        }
    }

    /// What a pass over a store's objects reads of one batch of them, in one acquisition of the lock: their rows
    /// when `rows` is true (none otherwise), and the members of each of the to-many `relationships`, in their
    /// order.
    func storeBatch(
        _ ids: [ObjectID], in store: PersistentStore, rows: Bool, members relationships: [RelationshipDescription] = []
    ) throws -> (rows: [RowSnapshot], members: [[ObjectID: [ObjectID]]]) {
        try locked {
            let read = rows ? try store.backend.snapshots(for: ids) : []
            return (read, try relationships.map { try store.backend.relatedObjectIDs(of: ids, relationship: $0) })
        }
    }

    /// The number of objects a fetch counts in one store.
    func storeCount(_ fetch: StoreFetch, in store: PersistentStore) throws -> Int {
        try locked { try store.backend.count(fetch) }
    }

    /// The IDs of the objects a fetch finds in one store.
    func storeObjectIDs(_ fetch: StoreFetch, in store: PersistentStore) throws -> [ObjectID] {
        try locked { try store.backend.fetchObjectIDs(fetch) }
    }

    /// The length a store records for one of its external data files, when it records one.
    func recordedLength(ofExternalData name: String, in store: PersistentStore) -> Int64? {
        locked { store.backend.recordedLength(ofExternalData: name) }
    }

    /// How many saves went through the coordinator: what tells a fetched results controller's cache whether it
    /// is still current.
    var currentSaveGeneration: Int { locked { saveGeneration } }

    /// Saves the requests `makeRequest` makes until one saves without conflicts, under the lock from the first
    /// attempt to the last, so no other context of the coordinator can save between a conflict and the retry
    /// that resolves it. `resolve` gets each attempt's conflict error (its conflicts with the rows the store
    /// holds) and resolves them, or throws to give up.
    ///
    /// - Returns: The request that saved and its result.
    func saveResolvingConflicts(
        _ makeRequest: () throws -> SaveRequest, resolve: (QuireError) throws -> Void
    ) throws -> (SaveRequest, SaveResult) {
        try locked {
            while true {
                let request = try makeRequest()
                do {
                    return (request, try save(request))
                } catch let error as QuireError where !error.conflicts.isEmpty {
                    try resolve(error)
                }
            }
        }
    }
}
