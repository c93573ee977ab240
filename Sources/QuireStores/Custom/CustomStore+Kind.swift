import Foundation
import QuireCore
import QuireSupport

extension StoreKind {
    /// The kind of a custom atomic store format: records encoded and decoded whole by the user's coder.
    package static func customAtomic(_ coder: any AtomicStoreCoder.Type, type: StoreType) -> StoreKind {
        var kind = StoreKind(
            type: type,
            makeBackend: { CustomAtomicStore(coder: coder.init(), store: $0) },
            readMetadata: { url, _ in
                let data = try Data(contentsOf: url)
                return try coder.init().decode(data, from: url, model: ManagedObjectModel()).metadata
            },
            writeMetadata: { _, url, _ in
                throw QuireError(
                    .persistentStoreUnsupportedRequestType,
                    "The \(type) store's metadata is written by adding the store and saving, not in place ('\(url.path)').",
                    context: .init(file: url))
            })
        kind.recognizes = { coder.recognizes($0) }
        kind.writeMetadataWithModel = { metadata, url, model in
            let coder = coder.init()
            var contents = try coder.decode(try Data(contentsOf: url), from: url, model: model)
            contents.metadata = StoreMetadataKey.merged(metadata, existing: contents.metadata, type: type)
            try AtomicFileWriter.write([try coder.encode(contents, model: model)], to: url)
        }
        kind.copiesByCloning = false
        return kind
    }

    /// The kind of a custom incremental store: records read and written one at a time by the user's backend.
    package static func customIncremental(_ backend: any IncrementalStoreBackend.Type, type: StoreType) -> StoreKind {
        // Metatypes of a protocol are not Sendable in general; this one names a class the user registers
        // once, whose `init` and static members the kind only calls.
        nonisolated(unsafe) let backend = backend
        return StoreKind(
            type: type, needsFile: false,
            makeBackend: { store in
                CustomIncrementalStore(
                    backend: try backend.init(url: store.url, options: store.options, model: store.model), store: store)
            },
            readMetadata: { url, options in
                guard let metadata = try backend.init(url: url, options: options, model: ManagedObjectModel()).loadMetadata() else {
                    throw QuireError(.fileReadNoSuchFile, "There is no \(type) store at '\(url.path)'.", context: .init(file: url))
                }
                return metadata
            },
            writeMetadata: { metadata, url, options in
                let instance = try backend.init(url: url, options: options, model: ManagedObjectModel())
                let existing = try instance.loadMetadata() ?? [:]
                try instance.save(IncrementalStoreChanges(metadata: StoreMetadataKey.merged(metadata, existing: existing, type: type)))
                try instance.close()
            })
    }
}
