import QuireCore
import QuireStores
import Foundation

extension ManagedObjectModel {
    /// The model a store embeds, read without the application's code and without building a stack, so
    /// tools can open any store Quire wrote.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel.embedded(inStoreAt: url, type: .sqlite)
    /// let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
    /// ```
    ///
    /// The model is an ordinary object, freed once nothing uses it (object IDs of it included); reading a
    /// model per document leaves nothing behind (see ``ManagedObjectModel``, "Lifetime").
    ///
    /// - Throws: ``QuireError`` when the file is not a store of that type,
    ///   ``QuireError/Code/persistentStoreIncompatibleSchema`` when it embeds no model (a store written by Core
    ///   Data), or ``QuireError/Code/invalidModel`` when the embedded model is malformed.
    public static func embedded(inStoreAt url: URL, type: StoreType) throws -> ManagedObjectModel {
        let contents = try StoreKinds.kind(for: type, url: url).readContents(at: url)
        guard let data = contents.model else {
            throw QuireError(
                .persistentStoreIncompatibleSchema,
                "The store '\(url.path)' embeds no model (it was not written by Quire); open it with the application's model.",
                context: .init(file: url))
        }
        do {
            return try ManagedObjectModel(serializedRepresentation: data)
        } catch var error as QuireError {
            error.context.file = url
            error.message = "The model embedded in '\(url.path)' is unreadable: " + error.message
            throw error
        }
    }
}
