import Foundation
import Synchronization

/// The store types a coordinator can add, by name.
enum StoreRegistry {
    typealias Factory = @Sendable (URL?, String?, StoreOptions, ManagedObjectModel) throws -> PersistentStore

    private static let factories = Mutex<[StoreType: Factory]>([
        .sqlite: { url, configuration, options, model in
            guard let url else {
                throw QuireError(.persistentStoreOpen, "An SQLite store needs a file URL.")
            }
            return SQLiteStore(url: url, configurationName: configuration, options: options, model: model)
        },
        .binary: { url, configuration, options, model in
            guard let url else {
                throw QuireError(.persistentStoreOpen, "A binary store needs a file URL.")
            }
            return BinaryStore(url: url, configurationName: configuration, options: options, model: model)
        },
        .xml: { url, configuration, options, model in
            guard let url else {
                throw QuireError(.persistentStoreOpen, "An XML store needs a file URL.")
            }
            return XMLStore(url: url, configurationName: configuration, options: options, model: model)
        },
        .inMemory: { _, configuration, options, model in
            InMemoryStore(configurationName: configuration, options: options, model: model)
        },
    ])

    static func makeStore(
        type: StoreType, url: URL?, configuration: String?, options: StoreOptions, model: ManagedObjectModel
    ) throws -> PersistentStore {
        guard let factory = factories.withLock({ $0[type] }) else {
            throw QuireError(
                .persistentStoreInvalidType, "The store type '\(type)' is not one Quire knows.", context: .init(file: url))
        }
        return try factory(url, configuration, options, model)
    }
}
