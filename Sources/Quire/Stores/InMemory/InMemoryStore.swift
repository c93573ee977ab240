import Foundation

/// The in-memory store (`NSInMemoryStoreType`): an atomic store without a file. Its records live as long as
/// it is attached; removing it discards them.
///
/// `@unchecked Sendable` (inherited): used only under the coordinator's lock.
final class InMemoryStore: AtomicStore, @unchecked Sendable {
    init(configurationName: String?, options: StoreOptions, model: ManagedObjectModel) {
        super.init(type: .inMemory, url: nil, configurationName: configurationName, options: options, model: model)
    }

    override var persistsToFile: Bool { false }
}
