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
    /// - Throws: ``QuireError`` when the file is not a store of that type, embeds no model, or its model is
    ///   malformed.
    public static func embedded(inStoreAt url: URL, type: StoreType) throws -> ManagedObjectModel {
        switch type {
        case .sqlite:
            return try SQLiteStore.embeddedModel(at: url)
        default:
            throw QuireError(
                .persistentStoreUnsupportedRequestType,
                "Reading the embedded model of a \(type) store is not supported.", context: .init(file: url))
        }
    }
}
