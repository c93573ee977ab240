import Foundation
import Synchronization

/// The store types a coordinator can add, by name: how to make a store of each, and how to read and write
/// a store file's metadata without making one.
enum StoreRegistry {
    typealias Factory = @Sendable (URL?, String?, StoreOptions, ManagedObjectModel) throws -> PersistentStore
    typealias MetadataReader = @Sendable (URL, StoreOptions) throws -> [String: PropertyListValue]
    typealias MetadataWriter = @Sendable ([String: PropertyListValue], URL, StoreOptions) throws -> Void

    /// What Quire knows of one store type.
    struct Entry: Sendable {
        var make: Factory
        var readMetadata: MetadataReader
        var writeMetadata: MetadataWriter
        /// Whether a file's first bytes are a store of this type (custom types), if the type can tell.
        var detect: (@Sendable (Data) -> Bool)?
    }

    private static func needsURL(_ url: URL?, _ type: StoreType) throws -> URL {
        guard let url else { throw QuireError(.persistentStoreOpen, "A store of type \(type) needs a file URL.") }
        return url
    }

    private static let entries = Mutex<[StoreType: Entry]>([
        .sqlite: Entry(
            make: { url, configuration, options, model in
                SQLiteStore(url: try needsURL(url, .sqlite), configurationName: configuration, options: options, model: model)
            },
            readMetadata: { url, _ in try SQLiteStore.readMetadata(at: url) },
            writeMetadata: { metadata, url, _ in try SQLiteStore.writeMetadata(metadata, at: url) }),
        .xml: Entry(
            make: { url, configuration, options, model in
                XMLStore(url: try needsURL(url, .xml), configurationName: configuration, options: options, model: model)
            },
            readMetadata: { url, _ in try XMLStore.readMetadata(at: url) },
            writeMetadata: { metadata, url, _ in try XMLStore.writeMetadata(metadata, at: url) }),
        .binary: Entry(
            make: { url, configuration, options, model in
                BinaryStore(url: try needsURL(url, .binary), configurationName: configuration, options: options, model: model)
            },
            readMetadata: { url, _ in try BinaryStore.readMetadata(at: url) },
            writeMetadata: { metadata, url, _ in try BinaryStore.writeMetadata(metadata, at: url) }),
        .inMemory: Entry(
            make: { _, configuration, options, model in
                InMemoryStore(configurationName: configuration, options: options, model: model)
            },
            readMetadata: { url, _ in throw inMemoryHasNoFile(url) },
            writeMetadata: { _, url, _ in throw inMemoryHasNoFile(url) }),
    ])

    private static func inMemoryHasNoFile(_ url: URL) -> QuireError {
        QuireError(
            .persistentStoreInvalidType, "An in-memory store has no file whose metadata could be read at '\(url.path)'.",
            context: .init(file: url))
    }

    static func entry(for type: StoreType, url: URL?) throws -> Entry {
        guard let entry = entries.withLock({ $0[type] }) else {
            throw QuireError(
                .persistentStoreInvalidType, "The store type '\(type)' is not one Quire knows.", context: .init(file: url))
        }
        return entry
    }

    static func register(_ entry: Entry, for type: StoreType) {
        entries.withLock { $0[type] = entry }
    }

    static func isBuiltIn(_ type: StoreType) -> Bool {
        [.sqlite, .xml, .binary, .inMemory].contains(type)
    }

    static func detectCustomType(_ head: Data) -> StoreType? {
        let custom = entries.withLock { $0.filter { !isBuiltIn($0.key) } }
        return custom.sorted { $0.key.rawValue < $1.key.rawValue }.first { $0.value.detect?(head) == true }?.key
    }

    static func makeStore(
        type: StoreType, url: URL?, configuration: String?, options: StoreOptions, model: ManagedObjectModel
    ) throws -> PersistentStore {
        try entry(for: type, url: url).make(url, configuration, options, model)
    }
}
