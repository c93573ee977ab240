import Foundation
import QuireCore
import QuireStores

/// Where the model used to open a store came from (what `quire info` reports).
public enum StoreModelSource: Sendable, Hashable, CustomStringConvertible {
    /// The model Quire embeds in every store it writes.
    case embedded
    /// A model file the caller named (an `.xcdatamodel(d)`, `.mom` or `.momd`).
    case file(URL)
    /// The compiled model Core Data caches in the store (`Z_MODELCACHE`).
    case modelCache

    /// A short phrase naming the source, such as `the model embedded by Quire`.
    public var description: String {
        switch self {
        case .embedded: return "the model embedded by Quire"
        case .file(let url): return "the model file '\(url.path)'"
        case .modelCache: return "the model Core Data cached in the store (Z_MODELCACHE)"
        }
    }
}

extension ManagedObjectModel {
    /// The model to open a store with when the application's model is not at hand, in this order: the model
    /// Quire embedded in the store, the model file given, the compiled model Core Data cached in the store.
    ///
    /// ```swift
    /// let (model, source) = try ManagedObjectModel.forStore(at: url, type: .sqlite, modelFile: appModel)
    /// print("Opened with \(source)")
    /// ```
    ///
    /// The model is an ordinary object, freed once nothing uses it (object IDs of it included); reading a
    /// model per document leaves nothing behind (see ``ManagedObjectModel``, "Lifetime").
    ///
    /// - Parameters:
    ///   - url: A closed store file.
    ///   - type: The store's type.
    ///   - modelFile: A model file to use for stores Quire did not write (optional); of an `.xcdatamodeld` bundle
    ///     or a `.momd` folder, the version whose entity hashes match the store's metadata (else the current
    ///     version; of a `.momd` whose `VersionInfo.plist` names none, the newest).
    /// - Returns: The model and where it came from.
    /// - Throws: ``QuireError/Code/persistentStoreIncompatibleSchema`` when none of the three is there (a Core
    ///   Data store without a model cache, and no model file given), or the errors of reading the one found.
    public static func forStore(
        at url: URL, type: StoreType, modelFile: URL? = nil
    ) throws -> (model: ManagedObjectModel, source: StoreModelSource) {
        let kind = try StoreKinds.kind(for: type, url: url)
        if try kind.readModel(url) != nil {
            return (try embedded(inStoreAt: url, type: type), .embedded)
        }
        if let modelFile {
            // A bundle of versions: the version the store was written with, when one matches its metadata.
            if modelFile.pathExtension == "xcdatamodeld" {
                let bundle = try ModelBundle(contentsOf: modelFile)
                let metadata = try kind.readMetadata(url, StoreOptions())
                let matching = bundle.models.last { $0.isConfiguration(nil, compatibleWithStoreMetadata: metadata) }
                return (matching ?? bundle.currentModel, .file(modelFile))
            }
            // A compiled bundle: the version whose hashes in VersionInfo.plist are the store's, else the current
            // version, else (no current version named, as CartKit's .momd) the newest.
            if modelFile.pathExtension == "momd" {
                let metadata = try kind.readMetadata(url, StoreOptions())
                let hashes = ManagedObjectModel.versionHashes(fromStoreMetadata: metadata)
                return (try ManagedObjectModel(compiledModelAt: modelFile, matchingStoreHashes: hashes), .file(modelFile))
            }
            return (try ManagedObjectModel(contentsOf: modelFile), .file(modelFile))
        }
        if let cache = try kind.readModelCache(url) {
            do {
                return (try ManagedObjectModel(modelCache: cache, file: url), .modelCache)
            } catch var error as QuireError {
                error.message = "The model cached in the store '\(url.path)' is unreadable: " + error.message
                throw error
            }
        }
        throw QuireError(
            .persistentStoreIncompatibleSchema,
            "The store '\(url.path)' embeds no model and caches none (it was written by Core Data before 2017, or by "
                + "another tool); name the application's model file (an .xcdatamodeld, .mom or .momd).",
            context: .init(file: url))
    }
}
