import QuireCore
import QuireStores
import Dispatch
import Foundation

/// A model, a coordinator and contexts set up together (`NSPersistentContainer`).
///
/// ```swift
/// let container = try PersistentContainer(name: "Runs", managedObjectModel: model)
/// try await container.loadPersistentStores()
/// try container.viewContext.performAndWait {
///     let run = EntityDescription.insertNewObject(forEntityName: "Run", into: container.viewContext)
///     run.setValue(Date(), forKey: "date")
///     try container.viewContext.save()
/// }
/// container.performBackgroundTask { context in … }
/// ```
///
/// By default the container has one description: an SQLite store named after the container in
/// ``defaultDirectoryURL()``. Replace ``persistentStoreDescriptions`` before loading to add other stores,
/// other store types, or a document's store (``PersistentStoreDescription/init(documentContents:)``).
///
/// `@unchecked Sendable`: its coordinator and contexts are thread-safe in Quire's sense (each confined to its
/// queue); ``persistentStoreDescriptions`` is set before loading, from one thread.
open class PersistentContainer: @unchecked Sendable {
    /// The container's name: the default store's file name, and the model's name by default.
    public let name: String
    /// The model of the container's stores.
    public let managedObjectModel: ManagedObjectModel
    /// The coordinator of the container's stores.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The main-queue context for the user interface (`viewContext`), on the coordinator. Use it on the main
    /// thread or in ``ManagedObjectContext/performAndWait(_:)``.
    public let viewContext: ManagedObjectContext
    /// The stores ``loadPersistentStores(completionHandler:)`` adds, in order.
    public var persistentStoreDescriptions: [PersistentStoreDescription]

    /// Creates a container for a model (`init(name:managedObjectModel:)`), with one description of an SQLite
    /// store at `defaultDirectoryURL()/<name>.sqlite`. No store is added until the stores are loaded.
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` for an inconsistent model.
    public init(name: String, managedObjectModel: ManagedObjectModel) throws {
        self.name = name
        self.managedObjectModel = managedObjectModel
        persistentStoreCoordinator = try PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.name = "viewContext"
        viewContext.persistentStoreCoordinator = persistentStoreCoordinator
        persistentStoreDescriptions = [
            PersistentStoreDescription(url: Self.defaultDirectoryURL().appendingPathComponent(name + ".sqlite"))
        ]
    }

    /// Creates a container whose model is the model file named `name` in a bundle (`init(name:)`): the first
    /// of `<name>.momd`, `.mom`, `.xcdatamodeld`, `.xcdatamodel` and `.json` among the bundle's resources.
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when the bundle has no such model, or the model
    ///   file's read error.
    public convenience init(name: String, bundle: Bundle = .main) throws {
        let found = ["momd", "mom", "xcdatamodeld", "xcdatamodel", "json"].lazy.compactMap {
            bundle.url(forResource: name, withExtension: $0)
        }.first
        guard let url = found else {
            throw QuireError(
                .fileReadNoSuchFile, "The bundle at '\(bundle.bundleURL.path)' has no model named '\(name)'.",
                context: .init(file: bundle.bundleURL))
        }
        try self.init(name: name, managedObjectModel: ManagedObjectModel(contentsOf: url))
    }

    /// Where containers put their stores by default (`defaultDirectoryURL()`): `$XDG_DATA_HOME/<program>`, or
    /// `~/.local/share/<program>` (Linux's counterpart of an app's Application Support folder; the program's
    /// name keeps apps apart, as a sandbox container does on macOS). Created when a store is loaded into it.
    /// Override it in a subclass to choose another folder.
    open class func defaultDirectoryURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        return base.appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true)
    }

    /// Adds a store for each description (`loadPersistentStores(completionHandler:)`), calling the handler
    /// once per description with nil or the error that kept it from being added. Descriptions that ask for it
    /// are added on a background queue (the handler is called there); the others before this returns, in
    /// order. A description already loaded (its store is in the coordinator) is reported loaded again.
    ///
    /// - Parameter completionHandler: Called with each description and its error.
    public func loadPersistentStores(
        completionHandler: @escaping @Sendable (PersistentStoreDescription, (any Error)?) -> Void
    ) {
        for description in persistentStoreDescriptions {
            if description.shouldAddStoreAsynchronously {
                DispatchQueue.global().async {
                    completionHandler(description, Self.errorOf { try self.addStore(for: description) })
                }
            } else {
                completionHandler(description, Self.errorOf { try addStore(for: description) })
            }
        }
    }

    /// Adds a store for each description, in order, and returns the stores (the Swift-concurrency form of
    /// ``loadPersistentStores(completionHandler:)``; ``PersistentStoreDescription/shouldAddStoreAsynchronously``
    /// changes nothing here: the work runs off the caller's task either way).
    ///
    /// - Returns: The added stores, one per description.
    /// - Throws: The first description's error; the stores added before it stay added.
    @discardableResult
    public func loadPersistentStores() async throws -> [PersistentStore] {
        let descriptions = persistentStoreDescriptions
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try descriptions.map { try self.addStore(for: $0) } })
            }
        }
    }

    /// A new private-queue context on the coordinator (`newBackgroundContext()`).
    public func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs a block on a new private-queue context, on its queue (`performBackgroundTask(_:)`); returns at
    /// once. The context is released after the block: save inside it.
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs a block on a new private-queue context and returns its result (the Swift-concurrency form of
    /// `performBackgroundTask(_:)` with a block).
    public func performBackgroundTask<T: Sendable>(_ block: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }

    /// Adds the store a description describes, or finds it when it was added already.
    private func addStore(for description: PersistentStoreDescription) throws -> PersistentStore {
        if (try? StoreKinds.kind(for: description.type))?.keepsURL != false, let url = description.url, let existing = persistentStoreCoordinator.persistentStore(for: url) {
            return existing
        }
        return try persistentStoreCoordinator.addPersistentStore(with: description)
    }

    private static func errorOf(_ body: () throws -> PersistentStore) -> (any Error)? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }
}
