import QuireCore
import QuireStores
import Dispatch
import Foundation

extension PersistentStoreCoordinator {
    /// Adds the store a description describes (`addPersistentStore(with:completionHandler:)`) and calls the
    /// handler with the description and nil, or the error that kept the store from being added. A description
    /// whose ``PersistentStoreDescription/shouldAddStoreAsynchronously`` is set is added on a background queue
    /// (the handler is called there) and this returns at once; otherwise the handler is called before this
    /// returns.
    ///
    /// ```swift
    /// let description = PersistentStoreDescription(url: storeURL)
    /// description.setOption(true, forKey: StoreOptions.CoreDataKey.persistentHistoryTracking)
    /// coordinator.addPersistentStore(with: description) { description, error in
    ///     if let error { print("\(description.url?.path ?? "store"): \(error)") }
    /// }
    /// ```
    ///
    /// The store's folder is created when missing (unless the store is read-only or a document's). Options
    /// Quire does not know are ignored with a note, as ``addPersistentStore(type:configuration:at:options:)``
    /// ignores them.
    ///
    /// - Parameters:
    ///   - description: The store's type, file, configuration and options.
    ///   - completionHandler: Called once, with the description and the error, if any.
    public func addPersistentStore(
        with description: PersistentStoreDescription,
        completionHandler: @escaping @Sendable (PersistentStoreDescription, (any Error)?) -> Void
    ) {
        if description.shouldAddStoreAsynchronously {
            DispatchQueue.global().async {
                completionHandler(description, Result { try self.addPersistentStore(with: description) }.error)
            }
        } else {
            completionHandler(description, Result { try addPersistentStore(with: description) }.error)
        }
    }

    /// Adds the store a description describes and returns it: the throwing form of
    /// ``addPersistentStore(with:completionHandler:)``, always on the caller's thread.
    ///
    /// - Returns: The added store.
    /// - Throws: ``QuireError/Code/invalidArgument`` for an option value Quire cannot use; the errors of
    ///   ``addPersistentStore(type:configuration:at:options:)``.
    @discardableResult
    public func addPersistentStore(with description: PersistentStoreDescription) throws -> PersistentStore {
        let type = description.type
        // A kind whose stores have no location (in memory) is given no URL; an unknown type throws when added.
        let url = (try? StoreKinds.kind(for: type))?.keepsURL == false ? nil : description.url
        let options = try description.storeOptions()
        if let url, url.isFileURL, description.documentContents == nil, !options.isReadOnly {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        return try addPersistentStore(type: type, configuration: description.configuration, at: url, options: options)
    }

    /// Logs a note for each Core Data option of a store's options that Quire ignores.
    static func noteIgnoredOptions(_ options: StoreOptions, store: PersistentStore) {
        for key in options.ignoredCoreDataOptions {
            FileHandle.standardError.write(Data(
                "Quire note: the store option '\(key)' is not one Quire knows; it is ignored (\(store)).\n".utf8))
        }
    }
}

extension Result where Failure == any Error {
    /// The error, or nil for a success.
    fileprivate var error: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
