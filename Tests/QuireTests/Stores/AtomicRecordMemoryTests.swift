import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// An attached atomic store keeps its records packed: about what its binary file takes, and not more than
/// twice, however often its records are saved over.
@Suite struct AtomicRecordMemoryTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    private func makeStore(_ type: StoreType, count: Int) throws -> ConformanceStack {
        let kind = try #require(StoreKind.all.first { $0.type == type })
        let stack = try kind.stack(StreamedSaveAsTests.model(), in: folder)
        let inbox = try stack.insert("Folder", ["name": "Inbox"])
        for index in 0..<count {
            let sample = try stack.insert("Sample", [
                "vInteger64": Int64(index), "vInteger32": Int32(index % 1000), "vDouble": Double(index) / 3,
                "vString": "sample number \(index)", "vBoolean": index % 2 == 0, "vBinarydata": Data(repeating: 1, count: 24),
                "vDate": Date(timeIntervalSinceReferenceDate: Double(index)), "vUuid": UUID(),
            ])
            sample.setValue(inbox, forKey: "folder")
        }
        try stack.context.save()
        return stack
    }

    @Test(arguments: [StoreType.binary, .xml])
    func anAttachedStoreHoldsItsRecordsInAtMostTwiceItsBinaryFile(type: StoreType) throws {
        let stack = try makeStore(type, count: 5_000)
        let url = try #require(stack.url)
        let reader = try PersistentStoreCoordinator(managedObjectModel: StreamedSaveAsTests.model())
        let store = try reader.addPersistentStore(type: type, at: url)
        defer { withExtendedLifetime((reader, store)) {} }
        let backend = try #require(store.backend as? AtomicStore)
        #expect(backend.nodes.count == 5_001)
        let packed = backend.nodes.packedSize
        // The binary file of the same records: the measure for both kinds (an XML file is several times larger).
        let binary = folder.file("Measure.quire")
        try reader.migratePersistentStore(store, to: binary, type: .binary)
        let binarySize = try #require(try FileManager.default.attributesOfItem(atPath: binary.path)[.size] as? Int)
        #expect(packed <= 2 * binarySize, "\(packed) bytes held for a \(binarySize)-byte file")
    }

    @Test func recordsSavedOverAgainAndAgainDoNotGrowTheTable() throws {
        let stack = try makeStore(.binary, count: 2_000)
        let store = try #require(stack.store)
        let backend = try #require(store.backend as? AtomicStore)
        let before = backend.nodes.packedSize
        let samples = try stack.fetch("Sample")
        for round in 0..<20 {
            for sample in samples { sample.setValue("round \(round) of \(sample.value(forKey: "vInteger64") ?? 0)", forKey: "vString") }
            try stack.context.save()
        }
        #expect(backend.nodes.packedSize <= 3 * before, "\(backend.nodes.packedSize) bytes after, \(before) before")
        let again = try stack.reopened()
        #expect(try again.fetch("Sample", "vString BEGINSWITH 'round 19 of'").count == 2_000)
    }
}
