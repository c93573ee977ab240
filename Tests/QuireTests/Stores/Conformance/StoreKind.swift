import Foundation
import Testing

import Quire
import QuirePostgres

/// A kind of store the conformance suite runs against: a type, a file name, and whether it survives a new
/// coordinator (the in-memory store does not).
struct StoreKind: CustomTestStringConvertible, Sendable {
    var type: StoreType
    var fileName: String?

    static let sqlite = StoreKind(type: .sqlite, fileName: "Store.sqlite")
    static let xml = StoreKind(type: .xml, fileName: "Store.xml")
    static let binary = StoreKind(type: .binary, fileName: "Store.quire")
    static let inMemory = StoreKind(type: .inMemory, fileName: nil)
    static let customAtomic = StoreKind(type: TestJSONStore.storeType, fileName: "Store.json")
    static let customIncremental = StoreKind(type: TestFolderStore.storeType, fileName: "Store.folder")
    /// A schema on the test PostgreSQL server (the file name stands for the schema, made per folder).
    static let postgres = StoreKind(type: .postgres, fileName: "postgres")

    /// Every store type, the test's own custom store included, and PostgreSQL when a test server runs
    /// (`PostgresStoreTests` says why when it does not).
    static let all: [StoreKind] =
        [.sqlite, .xml, .binary, .inMemory, .customAtomic, .customIncremental] + (PostgresTestServer.isAvailable ? [.postgres] : [])
    /// The store types that keep a file.
    static let persistent: [StoreKind] = all.filter { $0.fileName != nil }

    var testDescription: String { type.rawValue }

    /// Where a store of this kind lives for a test: a file in the folder, or a schema named after the folder.
    func location(in folder: TemporaryFolder) -> URL? {
        guard type == .postgres else { return fileName.map { folder.file($0) } }
        let name = "t_" + folder.url.lastPathComponent.lowercased().filter { $0.isLetter || $0.isNumber }.suffix(40)
        return PostgresTestServer.storeURL(schema: String(name))
    }

    /// A stack on a store of this kind in a folder; registers the custom store type first.
    func stack(
        _ model: ManagedObjectModel, in folder: TemporaryFolder, options: StoreOptions = StoreOptions()
    ) throws -> ConformanceStack {
        TestJSONStore.register()
        TestFolderStore.register()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let url = location(in: folder)
        try coordinator.addPersistentStore(type: type, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return ConformanceStack(kind: self, coordinator: coordinator, context: context, url: url, folder: folder, options: options)
    }
}

/// A coordinator and context on one store, able to reopen it.
struct ConformanceStack {
    var kind: StoreKind
    var coordinator: PersistentStoreCoordinator
    var context: ManagedObjectContext
    var url: URL?
    var folder: TemporaryFolder
    var options: StoreOptions

    var model: ManagedObjectModel { coordinator.managedObjectModel }
    var store: PersistentStore? { coordinator.persistentStores.first }

    func entity(_ name: String) throws -> EntityDescription {
        try #require(model.entitiesByName[name])
    }

    func insert(_ entityName: String, _ values: [String: Any] = [:]) throws -> ManagedObject {
        let object = ManagedObject(entity: try entity(entityName), insertInto: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    func fetch(_ entityName: String, _ format: String? = nil, _ arguments: Any..., sort: [SortKey] = []) throws -> [ManagedObject] {
        let request = FetchRequest<ManagedObject>(entityName: entityName)
        if let format { request.predicate = try QueryPredicate(format: format, argumentArray: arguments) }
        request.sortDescriptors = sort
        return try context.fetch(request)
    }

    /// The same store read afresh: a new coordinator on the file, or a new context for the in-memory store.
    func reopened() throws -> ConformanceStack {
        guard let url else {
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            return ConformanceStack(kind: kind, coordinator: coordinator, context: context, url: nil, folder: folder, options: options)
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: kind.type, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return ConformanceStack(kind: kind, coordinator: coordinator, context: context, url: url, folder: folder, options: options)
    }
}
