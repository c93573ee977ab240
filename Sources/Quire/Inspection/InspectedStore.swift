import QuireCore
import QuireStores
import Foundation

/// A closed store opened read-only to be looked at (dumped, verified, converted), with the model it embeds, else
/// the model file the caller named, else the model Core Data cached in it.
///
/// Its errors are the inspection's own: a store written with another model than the one it is opened with says
/// so, naming the model and what differs, without the coordinator's advice about migration options (an
/// inspection opens read-only and never migrates; its caller chose the model file).
struct InspectedStore {
    let coordinator: PersistentStoreCoordinator
    let store: PersistentStore
    let model: ManagedObjectModel

    /// Opens the store at `url` read-only.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreIncompatibleVersionHash`` naming the store, the model and what
    ///   differs when the model is not the one the store was written with; the errors of
    ///   ``ManagedObjectModel/forStore(at:type:modelFile:)`` and of adding the store.
    init(at url: URL, type: StoreType, modelFile: URL?) throws {
        let (found, source) = try ManagedObjectModel.forStore(at: url, type: type, modelFile: modelFile)
        let model = found
        try Self.checkModel(model, from: source, forStoreAt: url, type: type)
        coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var options = StoreOptions()
        options.isReadOnly = true
        do {
            store = try coordinator.addPersistentStore(type: type, at: url, options: options)
        } catch let error as QuireError where error.code == .persistentStoreIncompatibleVersionHash {
            throw Self.incompatible(model, from: source, forStoreAt: url, type: type, underlying: error)
        }
        self.model = model
    }

    /// Refuses a model file the caller named that is not the model the store was written with (its entity
    /// version hashes are not the store's), before anything else reads the store with it: what differs is then
    /// said in the model's terms rather than as a table the model lacks.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreIncompatibleVersionHash`` naming the store, the model file and
    ///   what differs.
    static func checkModel(_ model: ManagedObjectModel, from source: StoreModelSource, forStoreAt url: URL, type: StoreType) throws {
        guard case .file = source,
            let metadata = try? PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url),
            !ManagedObjectModel.versionHashes(fromStoreMetadata: metadata).isEmpty,
            !model.isConfiguration(nil, compatibleWithStoreMetadata: metadata)
        else { return }
        throw incompatible(model, from: source, forStoreAt: url, type: type, underlying: nil)
    }

    private static func incompatible(
        _ model: ManagedObjectModel, from source: StoreModelSource, forStoreAt url: URL, type: StoreType, underlying: QuireError?
    ) -> QuireError {
        let metadata = (try? PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)) ?? [:]
        let difference = ModelDifference(storeVersionHashes: ManagedObjectModel.versionHashes(fromStoreMetadata: metadata), model: model)
        return QuireError(
            .persistentStoreIncompatibleVersionHash,
            "The store \(StoreKinds.storeDescription(url)) was written with another model than \(source) (\(difference)).",
            context: .init(file: StoreKinds.safeURL(url)), underlying: underlying)
    }

    /// Removes the store from its coordinator.
    func close() { try? coordinator.remove(store) }
}
