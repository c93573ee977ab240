import Foundation
import Testing

import Quire

/// Store metadata: queued on attached stores, read and written on files without a stack.
@Suite struct StoreMetadataTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    static let fileKinds: [StoreKind] = [.sqlite, .xml, .binary]

    private func makeStore(_ kind: StoreKind) throws -> ConformanceStack {
        let stack = try kind.stack(Fixtures.companyModel(), in: folder)
        for index in 0..<20 { _ = try stack.insert("Department", ["name": "D\(index)"]) }
        try stack.context.save()
        return stack
    }

    @Test(arguments: fileKinds)
    func staticReadMatchesTheStoresMetadata(kind: StoreKind) throws {
        let stack = try makeStore(kind)
        let url = try #require(stack.url)
        let store = try #require(stack.store)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
        #expect(metadata[StoreMetadataKey.storeType] == .string(kind.type.rawValue))
        #expect(metadata[StoreMetadataKey.storeUUID] == .string(store.identifier))
        #expect(metadata[StoreMetadataKey.modelVersionHashesVersion] == .integer(3))
        let hashes = try #require(metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue)
        #expect(hashes["Department"]?.dataValue == stack.model.entitiesByName["Department"]?.versionHash)
        #expect(metadata == stack.coordinator.metadata(for: store))
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: kind.type, at: url) == metadata)
    }

    @Test(arguments: fileKinds)
    func setMetadataIsQueuedUntilTheNextSave(kind: StoreKind) throws {
        let stack = try makeStore(kind)
        let url = try #require(stack.url)
        let store = try #require(stack.store)
        var metadata = stack.coordinator.metadata(for: store)
        metadata["keywords"] = ["budget", "2026"]
        metadata["reviewed"] = true
        metadata[StoreMetadataKey.storeType] = "Bogus"
        stack.coordinator.setMetadata(metadata, for: store)
        #expect(stack.coordinator.metadata(for: store)["keywords"] == ["budget", "2026"])
        #expect(stack.coordinator.metadata(for: store)[StoreMetadataKey.storeType] == .string(kind.type.rawValue))
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)["keywords"] == nil)
        _ = try stack.insert("Department", ["name": "New"])
        try stack.context.save()
        let saved = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
        #expect(saved["keywords"] == ["budget", "2026"])
        #expect(saved["reviewed"] == true)

        // Removing a store writes what is still queued.
        metadata["reviewed"] = false
        stack.coordinator.setMetadata(metadata, for: store)
        let again = try stack.reopened()
        #expect(again.store?.metadata["reviewed"] == false)
        #expect(try again.fetch("Department").count == 21)
    }

    @Test(arguments: fileKinds)
    func staticWriteKeepsTheObjects(kind: StoreKind) throws {
        let stack = try makeStore(kind)
        let url = try #require(stack.url)
        let uuid = try #require(stack.store?.identifier)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        try PersistentStoreCoordinator.setMetadata(["title": "Budget", "count": 3], forPersistentStoreOfType: nil, at: url)
        // A large value needs larger metadata blocks in the binary store: the file is rewritten.
        let large = PropertyListValue.string(String(repeating: "x", count: 10_000))
        var metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
        #expect(metadata["title"] == "Budget")
        #expect(metadata[StoreMetadataKey.storeUUID] == .string(uuid))
        metadata["notes"] = large
        try PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: kind.type, at: url)
        let reread = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
        #expect(reread["notes"] == large)
        #expect(reread["count"] == 3)
        let reopened = try kind.stack(Fixtures.companyModel(), in: folder)
        #expect(try reopened.fetch("Department").count == 20)
        #expect(reopened.store?.metadata["title"] == "Budget")
        #expect(reopened.store?.identifier == uuid)
    }

    @Test func binaryMetadataSurvivesATornSlotWrite() throws {
        let stack = try makeStore(.binary)
        let url = try #require(stack.url)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        try PersistentStoreCoordinator.setMetadata(["edition": 1], forPersistentStoreOfType: .binary, at: url)
        try PersistentStoreCoordinator.setMetadata(["edition": 2], forPersistentStoreOfType: .binary, at: url)
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .binary, at: url)["edition"] == 2)
        // Damage the newest slot, as a crash in the middle of writing it would: the previous one is read.
        // As the BinaryStoreFormat article lays the file out: a 32-byte header with the slot capacity at offset 12,
        // then two slots, each starting with its generation; the newest slot has the higher generation.
        var bytes = try Data(contentsOf: url)
        func littleEndian(_ offset: Int, _ count: Int) -> UInt64 {
            (0..<count).reduce(0) { value, index in value | UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        }
        let capacity = Int(littleEndian(12, 4))
        let slot = littleEndian(32 + capacity, 8) > littleEndian(32, 8) ? 1 : 0
        bytes[32 + slot * capacity + 30] ^= 0xFF
        try bytes.write(to: url)
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .binary, at: url)["edition"] == 1)
    }

    @Test func metadataReadsDoNotDecodeTheObjects() throws {
        for kind in [StoreKind.xml, .binary] {
            let stack = try makeStore(kind)
            let url = try #require(stack.url)
            for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
            // Damage the end of the file, far past the metadata: objects can no longer be read, metadata can.
            var bytes = try Data(contentsOf: url)
            bytes = bytes.prefix(bytes.count - 40)
            try bytes.write(to: url)
            #expect(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)[StoreMetadataKey.storeType] == .string(kind.type.rawValue))
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
            #expect(throws: QuireError.self) { try coordinator.addPersistentStore(type: kind.type, at: url) }
        }
    }

    @Test func addingWithoutATypeDetectsIt() throws {
        for kind in Self.fileKinds {
            let url = try #require(try makeStore(kind).url)
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
            let store = try coordinator.addPersistentStore(type: nil, at: url)
            #expect(store.type == kind.type)
        }
        let garbage = folder.file("Notes.txt")
        try Data("just some notes".utf8).write(to: garbage)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: nil, at: garbage) }
        #expect(error.code == .persistentStoreInvalidType)
        let missing = try #require(throws: QuireError.self) {
            try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: folder.file("Missing.sqlite"))
        }
        #expect(missing.code == .fileReadNoSuchFile)
    }
}
