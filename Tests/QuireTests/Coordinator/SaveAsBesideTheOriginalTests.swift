import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// Save As beside the original (`Store.sqlite` → `Store.xml`): the two stores never share an external data
/// folder, so neither one's collection of unreferenced files removes the other's (issue 14, item 1).
@Suite struct SaveAsBesideTheOriginalTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    private func open(_ kind: StoreKind, at url: URL, options: StoreOptions) throws -> ConformanceStack {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.everyTypeModel())
        try coordinator.addPersistentStore(type: kind.type, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return ConformanceStack(kind: kind, coordinator: coordinator, context: context, url: url, folder: folder, options: options)
    }

    @Test(arguments: [(StoreKind.xml, "Store.xml"), (StoreKind.binary, "Store.db")])
    func deletingInTheNewStoreKeepsTheOriginalsFiles(kind: StoreKind, name: String) throws {
        var options = StoreOptions()
        options.externalDataThreshold = 100
        let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder, options: options)
        let original = try #require(stack.url)
        let kept = Data((0..<5000).map { UInt8($0 % 251) })
        _ = try stack.insert("Sample", ["vBinarydata": kept, "vString": "kept"])
        try stack.context.save()

        let url = folder.file(name)
        let saved = try stack.coordinator.migratePersistentStore(try #require(stack.store), to: url, options: options, type: kind.type)
        #expect(saved.type == kind.type)
        let added = Data((0..<7000).map { UInt8($0 % 241) })
        _ = try stack.insert("Sample", ["vBinarydata": added, "vString": "added"])
        for sample in try stack.fetch("Sample", "vString == 'kept'") { stack.context.delete(sample) }
        try stack.context.save()

        // The untouched original still reads its value; saving it (which collects its unreferenced files)
        // leaves the new store's files alone.
        let reopened = try open(.sqlite, at: original, options: options)
        let sample = try #require(try reopened.fetch("Sample", "vString == 'kept'").first)
        #expect(try sample.dataValue(forKey: "vBinarydata") == kept)
        sample.setValue(Data((0..<6000).map { UInt8($0 % 239) }), forKey: "vBinarydata")
        try reopened.context.save()
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        let copy = try open(kind, at: url, options: options)
        #expect(try copy.fetch("Sample", "vString == 'kept'").isEmpty)
        let other = try #require(try copy.fetch("Sample", "vString == 'added'").first)
        #expect(try other.dataValue(forKey: "vBinarydata") == added)
    }

    @Test func aSQLiteStoreBesideOneOfTheSameNameIsRefused() throws {
        var options = StoreOptions()
        options.externalDataThreshold = 100
        let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder, options: options)
        let kept = Data((0..<5000).map { UInt8($0 % 251) })
        _ = try stack.insert("Sample", ["vBinarydata": kept, "vString": "kept"])
        try stack.context.save()
        let store = try #require(stack.store)
        // `Store.db` would be given Core Data's `.Store_SUPPORT`, the original's.
        let url = folder.file("Store.db")
        let error = try #require(throws: QuireError.self) {
            try stack.coordinator.migratePersistentStore(store, to: url, options: options, type: .sqlite)
        }
        #expect(error.message.contains("_SUPPORT"))
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(stack.coordinator.persistentStores.first === store)
        let sample = try #require(try stack.fetch("Sample", "vString == 'kept'").first)
        #expect(try sample.dataValue(forKey: "vBinarydata") == kept)
    }
}
