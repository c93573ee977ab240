import Foundation
import Testing

import Quire

#if canImport(Glibc)
import Glibc
#endif

/// setURL(_:for:), destroyPersistentStore(at:type:options:) and replacePersistentStore(…).
@Suite struct StoreFilesTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    private var options: StoreOptions {
        var options = StoreOptions()
        options.externalDataThreshold = 100
        return options
    }

    private func makeStore(_ kind: StoreKind, name: String? = nil, title: String = "one") throws -> ConformanceStack {
        var kind = kind
        if let name { kind.fileName = name }
        let stack = try kind.stack(Fixtures.everyTypeModel(), in: folder, options: options)
        _ = try stack.insert("Sample", ["vString": title, "vBinarydata": Data(repeating: 9, count: 3000)])
        try stack.context.save()
        return stack
    }

    private func close(_ stack: ConformanceStack) throws {
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
    }

    @Test func destroyRemovesEveryFileOfTheStore() throws {
        let stack = try makeStore(.sqlite)
        let url = try #require(stack.url)
        try close(stack)
        try Data().write(to: URL(fileURLWithPath: url.path + "-wal"))
        try Data().write(to: URL(fileURLWithPath: url.path + "-shm"))
        #expect(FileManager.default.fileExists(atPath: ExternalDataFiles.supportFolder(forStore: url, type: .sqlite).path))
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.everyTypeModel())
        try coordinator.destroyPersistentStore(at: url, type: .sqlite)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test func destroyRefusesAFileOfAnotherType() throws {
        let stack = try makeStore(.xml)
        let url = try #require(stack.url)
        try close(stack)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.everyTypeModel())
        let error = try #require(throws: QuireError.self) { try coordinator.destroyPersistentStore(at: url, type: .sqlite) }
        #expect(error.code == .persistentStoreTypeMismatch)
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test(arguments: [StoreKind.sqlite, .binary, .xml])
    func replaceClonesAStoreOfTheSameType(kind: StoreKind) throws {
        let source = try makeStore(kind, name: "Source.store", title: "source")
        let sourceURL = try #require(source.url)
        let uuid = try #require(source.store?.identifier)
        let destination = try makeStore(kind, name: "Destination.store", title: "destination")
        let destinationURL = try #require(destination.url)
        try close(destination)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.everyTypeModel())
        // The source stays open in its own coordinator (SQLite's WAL is checkpointed first).
        try coordinator.replacePersistentStore(at: destinationURL, withPersistentStoreFrom: sourceURL, type: kind.type)
        let check = try PersistentStoreCoordinator(managedObjectModel: Fixtures.everyTypeModel())
        let store = try check.addPersistentStore(type: kind.type, at: destinationURL, options: options)
        #expect(store.identifier == uuid)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = check
        let samples = try context.fetch(FetchRequest<ManagedObject>(entityName: "Sample"))
        #expect(samples.map { $0.value(forKey: "vString") as? String } == ["source"])
        #expect(try samples.first?.dataValue(forKey: "vBinarydata") == Data(repeating: 9, count: 3000))
        let name = try #require(ExternalDataFiles(storeURL: sourceURL, type: kind.type).fileNames().first)
        var a = stat()
        var b = stat()
        #expect(stat(ExternalDataFiles(storeURL: sourceURL, type: kind.type).file(name).path, &a) == 0)
        #expect(stat(ExternalDataFiles(storeURL: destinationURL, type: kind.type).file(name).path, &b) == 0)
        #expect(a.st_ino == b.st_ino)
        #expect(ExternalDataFiles(storeURL: destinationURL, type: kind.type).fileNames() == [name])
    }

    @Test func replaceConvertsAStoreOfAnotherType() throws {
        let source = try makeStore(.binary, name: "Source.quire", title: "converted")
        let sourceURL = try #require(source.url)
        try close(source)
        let destinationURL = folder.file("Destination.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.everyTypeModel())
        try coordinator.replacePersistentStore(at: destinationURL, withPersistentStoreFrom: sourceURL, type: .sqlite)
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: destinationURL)[StoreMetadataKey.storeType] == "SQLite")
        let store = try coordinator.addPersistentStore(type: .sqlite, at: destinationURL, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let sample = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Sample")).first)
        #expect(sample.value(forKey: "vString") as? String == "converted")
        #expect(try sample.dataValue(forKey: "vBinarydata") == Data(repeating: 9, count: 3000))
        #expect(store.metadata[StoreMetadataKey.storeType] == "SQLite")
    }

    @Test(arguments: [StoreKind.sqlite, .binary])
    func setURLMovesTheStore(kind: StoreKind) throws {
        let stack = try makeStore(kind)
        let store = try #require(stack.store)
        let old = try #require(stack.url)
        let new = folder.file("Moved." + (old.pathExtension))
        if kind.type == .sqlite {
            try FileManager.default.moveItem(at: old, to: new)
            try FileManager.default.moveItem(at: ExternalDataFiles.supportFolder(forStore: old, type: .sqlite), to: ExternalDataFiles.supportFolder(forStore: new, type: .sqlite))
        }
        try stack.coordinator.setURL(new, for: store)
        #expect(store.url == new)
        let sample = try #require(try stack.fetch("Sample").first)
        #expect(try sample.dataValue(forKey: "vBinarydata") == Data(repeating: 9, count: 3000))
        sample.setValue("two", forKey: "vString")
        try stack.context.save()
        try close(stack)
        let check = try PersistentStoreCoordinator(managedObjectModel: Fixtures.everyTypeModel())
        try check.addPersistentStore(type: kind.type, at: new, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = check
        #expect(try context.fetch(FetchRequest<ManagedObject>(entityName: "Sample")).first?.value(forKey: "vString") as? String == "two")
    }
}
