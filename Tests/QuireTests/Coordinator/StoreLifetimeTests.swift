import Foundation
import Testing

import Quire
import QuireCore

/// Stores are freed once removed (object IDs name them by a token, never by a pointer that could dangle), and
/// models read from stores are freed with them once nothing else uses them.
@Suite struct StoreLifetimeTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// Adds a store of `kind`, saves one object, removes the store, and returns weak references to what
    /// should be gone with the stack, and the saved object's ID.
    private func savedAndRemoved(_ kind: StoreKind) throws -> (store: WeakBox<PersistentStore>, coordinator: WeakBox<PersistentStoreCoordinator>, id: ObjectID) {
        let stack = try kind.stack(Fixtures.everyTypeModel(), in: folder)
        let object = try stack.insert("Sample", ["vString": "kept"])
        try stack.context.save()
        let id = object.objectID
        let store = try #require(stack.store)
        #expect(id.persistentStore === store)
        try stack.coordinator.remove(store)
        #expect(id.persistentStore == nil, "a removed store's IDs name no store")
        return (WeakBox(store), WeakBox(stack.coordinator), id)
    }

    @Test(arguments: [StoreKind.sqlite, .xml, .binary, .inMemory])
    func aRemovedStoreIsFreedAndItsIDsNameNoStore(kind: StoreKind) throws {
        let (store, coordinator, id) = try savedAndRemoved(kind)
        #expect(store.value == nil, "the removed store is still alive")
        #expect(coordinator.value == nil, "the coordinator is still alive")
        #expect(id.persistentStore == nil)
        #expect(id.primaryKey == 1)
    }

    @Test func anIDOfAFreedStoreKeepsItsURI() throws {
        var identifier = ""
        var url: URL?
        var weakStore: WeakBox<PersistentStore>?
        let id = try { () -> ObjectID in
            let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder)
            let object = try stack.insert("Sample", ["vString": "kept"])
            try stack.context.save()
            let store = try #require(stack.store)
            identifier = store.identifier
            url = stack.url
            weakStore = WeakBox(store)
            try stack.coordinator.remove(store)
            return object.objectID
        }()
        #expect(weakStore?.value == nil)
        #expect(id.uriRepresentation().absoluteString == "x-coredata://\(identifier)/Sample/p1")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.everyTypeModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let again = try #require(coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation()))
        #expect(again.primaryKey == 1)
        #expect(again != id, "an ID of the old store is not an ID of the store added again")
    }

    @Test func anIDOfARemovedStoreAnswersStoreRemoved() throws {
        let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder)
        let object = try stack.insert("Sample", ["vString": "kept"])
        try stack.context.save()
        let id = object.objectID
        let store = try #require(stack.store)
        try stack.coordinator.remove(store)
        let other = ManagedObjectContext()
        other.persistentStoreCoordinator = stack.coordinator
        let error = try #require(throws: QuireError.self) { try other.existingObject(with: id) }
        #expect(error.code == .managedObjectReferentialIntegrity)
        #expect(error.message.contains("was removed"))
        // The same file added again is a new store: the old ID names no store of it.
        try stack.coordinator.addPersistentStore(type: .sqlite, at: stack.url)
        #expect(id.persistentStore == nil)
        #expect(throws: QuireError.self) { try other.existingObject(with: id) }
    }

    @Test func theSourceOfASaveAsIsFreed() throws {
        var source: WeakBox<PersistentStore>?
        var target: WeakBox<PersistentStore>?
        try {
            let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder)
            _ = try stack.insert("Sample", ["vString": "moved"])
            try stack.context.save()
            let store = try #require(stack.store)
            source = WeakBox(store)
            let moved = try stack.coordinator.migratePersistentStore(store, to: folder.file("Moved.quire"), type: .binary)
            target = WeakBox(moved)
            #expect(stack.coordinator.persistentStores.count == 1)
            #expect(try stack.fetch("Sample").map { $0.value(forKey: "vString") as? String } == ["moved"])
            try stack.coordinator.remove(moved)
        }()
        #expect(source?.value == nil, "the Save As source is still alive")
        #expect(target?.value == nil, "the Save As target is still alive after removal")
    }

    @Test func modelsReadFromStoresAreFreedWithTheirDocuments() throws {
        var urls: [URL] = []
        for index in 0..<3 {
            let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder)
            _ = try stack.insert("Sample", ["vString": "document \(index)"])
            try stack.context.save()
            for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
            let url = folder.file("Document\(index).sqlite")
            try FileManager.default.moveItem(at: try #require(stack.url), to: url)
            urls.append(url)
        }
        // ObjectGraphDump and StoreVerification read the model from each store and freeze it; neither keeps it.
        weak var dumped: ManagedObjectModel?
        var ids: [ObjectID] = []
        do {
            let dump = try ObjectGraphDump(storeAt: urls[0], type: .sqlite)
            #expect(dump.objects.count == 1)
            #expect(try StoreVerification.problems(inStoreAt: urls[1], type: .sqlite).isEmpty)
            // A model used by a coordinator lives while its object IDs do.
            let model = try ManagedObjectModel.embedded(inStoreAt: urls[2], type: .sqlite)
            dumped = model
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(type: .sqlite, at: urls[2])
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            ids = try context.performAndWait { try context.fetch(FetchRequest<ObjectID>(entityName: "Sample")) }
            try coordinator.remove(store)
        }
        #expect(dumped != nil, "the model of object IDs still held was freed")
        #expect(ids.map(\.entity.name) == ["Sample"])
        #expect(ids.first?.uriRepresentation().absoluteString.contains("/Sample/p1") == true)
        ids = []
        #expect(dumped == nil, "a model nothing uses any more is still alive")
        // A model read but never frozen is an ordinary object: freed when dropped.
        weak var unfrozen: ManagedObjectModel?
        do {
            let model = try ManagedObjectModel.embedded(inStoreAt: urls[0], type: .sqlite)
            unfrozen = model
            #expect(unfrozen?.entities.count == 1)
        }
        #expect(unfrozen == nil)
    }
}

/// A weak reference, so a test can hold one across the scope that owned the object.
final class WeakBox<T: AnyObject> {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
