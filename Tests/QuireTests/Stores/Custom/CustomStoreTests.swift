import Foundation
import Testing

import Quire

/// Registration of custom stores: detection, metadata, and refusal of bad content.
@Suite struct CustomStoreTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    @Test func aRegisteredAtomicStoreIsRecognizedAndReadsItsMetadata() throws {
        let stack = try StoreKind.customAtomic.stack(Fixtures.companyModel(), in: folder)
        _ = try stack.insert("Department", ["name": "Research"])
        try stack.context.save()
        let url = try #require(stack.url)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
        #expect(metadata[StoreMetadataKey.storeType] == .string("TestJSON"))
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        #expect(try coordinator.addPersistentStore(type: nil, at: url).type == TestJSONStore.storeType)
    }

    @Test func aCustomFileThatDoesNotDecodeIsRefusedWithItsName() throws {
        TestJSONStore.register()
        let url = folder.file("Broken.json")
        try Data("{\"format\":\"quire-test-json\", \"nodes\": 3}".utf8).write(to: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: TestJSONStore.storeType, at: url) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains(url.path))
    }

    @Test func anIncrementalStoreKeepsItsMetadata() throws {
        let stack = try StoreKind.customIncremental.stack(Fixtures.companyModel(), in: folder)
        let url = try #require(stack.url)
        let store = try #require(stack.store)
        var metadata = stack.coordinator.metadata(for: store)
        metadata["keywords"] = ["folder"]
        stack.coordinator.setMetadata(metadata, for: store)
        _ = try stack.insert("Department", ["name": "Research"])
        try stack.context.save()
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: TestFolderStore.storeType, at: url)["keywords"] == ["folder"])
    }
}
