import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// The metadata of an attached store (`metadata(for:)`), including changes set but not saved yet.
    public func metadata(for store: PersistentStore) -> [String: PropertyListValue] {
        locked { store.metadata }
    }

    /// Sets the metadata of an attached store (`setMetadata(_:for:)`). As on the Mac, the change is queued:
    /// the store writes it with the next save that reaches it, or when it is removed.
    ///
    /// ```swift
    /// var metadata = coordinator.metadata(for: store)
    /// metadata["keywords"] = ["budget", "2026"]
    /// coordinator.setMetadata(metadata, for: store)
    /// try context.save()
    /// ```
    ///
    /// `NSStoreType` and `NSStoreUUID` always keep the store's values; model version keys left out are kept.
    public func setMetadata(_ metadata: [String: PropertyListValue], for store: PersistentStore) {
        locked {
            var merged = StoreMetadataKey.merged(metadata, existing: store.metadata, type: store.type)
            merged[StoreMetadataKey.storeUUID] = .string(store.identifier)
            store.metadata = merged
            store.metadataIsDirty = true
        }
    }

    /// Reads a store file's metadata without adding it to a coordinator or reading its objects
    /// (`metadataForPersistentStore(ofType:at:options:)`): SQLite's `Z_METADATA` row, the XML store's
    /// `<databaseInfo>`, the binary store's header block. The cost does not grow with the store's size.
    ///
    /// ```swift
    /// let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
    /// metadata[StoreMetadataKey.storeType]   // "SQLite", "XML" or "Binary"
    /// ```
    ///
    /// - Parameters:
    ///   - type: The store's type, or nil to tell it from the file's content.
    ///   - url: The store file.
    ///   - options: The options the store would be added with.
    /// - Returns: The metadata, with Core Data's keys and the application's own.
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile``, ``QuireError/Code/persistentStoreInvalidType`` for a
    ///   file of no known type, ``QuireError/Code/fileReadCorruptFile`` for a damaged file.
    public static func metadataForPersistentStore(
        ofType type: StoreType?, at url: URL, options: StoreOptions = StoreOptions()
    ) throws -> [String: PropertyListValue] {
        let type = try type ?? StoreKinds.detectType(at: url)
        return try StoreKinds.kind(for: type, url: url).readMetadata(url, options)
    }

    /// Writes a store file's metadata without adding it to a coordinator or reading its objects
    /// (`setMetadata(_:forPersistentStoreOfType:at:options:)`). SQLite updates its metadata row in one
    /// transaction; the binary store writes the older of its two metadata slots in place, so a crash keeps
    /// the previous metadata; the XML store rewrites its head and copies the objects that follow as bytes.
    ///
    /// `NSStoreType` keeps the file's type; `NSStoreUUID` and the model version keys are kept when left out.
    ///
    /// - Throws: As ``metadataForPersistentStore(ofType:at:options:)``, and file write errors.
    public static func setMetadata(
        _ metadata: [String: PropertyListValue], forPersistentStoreOfType type: StoreType?, at url: URL,
        options: StoreOptions = StoreOptions()
    ) throws {
        let type = try type ?? StoreKinds.detectType(at: url)
        guard !options.isReadOnly else {
            throw QuireError(
                .persistentStoreOperation, "The metadata of '\(url.path)' cannot be written with the read-only option.",
                context: .init(file: url))
        }
        try StoreKinds.kind(for: type, url: url).writeMetadata(metadata, url, options)
    }
}
