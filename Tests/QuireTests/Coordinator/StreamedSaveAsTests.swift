import Foundation
import OrderedCollections
import Testing

import Quire
import QuireCore
import QuireStores

/// Save As into binary and XML stores streams the records into the new file a batch at a time: every value
/// and relationship survives, the file is the same bytes a whole write makes, the new store reads its
/// records back on first use, and a failure part way leaves no file behind and the source as it was.
@Suite struct StreamedSaveAsTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// Folders holding samples (to-many, inverse to-one) and an ordered selection of samples (ordered
    /// many-to-many); samples with one attribute of every type, external data allowed.
    static func model() -> ManagedObjectModel {
        let sample = EntityDescription(name: "Sample", properties: AttributeType.allCases.map { type in
            let attribute = AttributeDescription(name: "v" + type.rawValue.capitalized, type: type)
            if type == .binaryData { attribute.allowsExternalBinaryDataStorage = true }
            return attribute
        } + [
            RelationshipDescription(name: "folder", destination: "Folder", inverse: "samples"),
            RelationshipDescription(name: "pinnedIn", destination: "Folder", toMany: true, inverse: "pinned"),
        ])
        let folder = EntityDescription(name: "Folder", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "samples", destination: "Sample", toMany: true, inverse: "folder"),
            RelationshipDescription(name: "pinned", destination: "Sample", toMany: true, isOrdered: true, inverse: "pinnedIn"),
        ])
        return ManagedObjectModel(entities: [sample, folder])
    }

    /// An SQLite store of `count` samples in two folders, every `externalEvery`-th with data large enough to
    /// live in a file beside the store.
    private func makeSource(count: Int, externalEvery: Int = 7) throws -> ConformanceStack {
        var options = StoreOptions()
        options.externalDataThreshold = 100
        let stack = try StoreKind.sqlite.stack(Self.model(), in: folder, options: options)
        let folders = try ["Inbox", "Archive"].map { try stack.insert("Folder", ["name": $0]) }
        var pinned: [ManagedObject] = []
        for index in 0..<count {
            let sample = try stack.insert("Sample", [
                "vInteger16": Int16(index % 100), "vInteger32": Int32(index), "vInteger64": Int64(index) * 1_000_000_007,
                "vDecimal": Decimal(string: "\(index).25") ?? 0, "vDouble": Double(index) / 3, "vFloat": Float(index) / 4,
                "vString": "sample <\(index)> & \"more\"", "vBoolean": index % 2 == 0,
                "vDate": Date(timeIntervalSinceReferenceDate: Double(index) * 86_400.5),
                "vBinarydata": Data(repeating: UInt8(index % 251), count: index % externalEvery == 0 ? 400 : 12),
                "vUuid": UUID(), "vUri": URL(string: "https://example.org/\(index)?a=b&c=d") as Any,
                "vTransformable": ["tags": ["t\(index)"]],
            ])
            sample.setValue(folders[index % 2], forKey: "folder")
            if index % 5 == 0 { pinned.append(sample) }
        }
        folders[0].setValue(OrderedSet(pinned.reversed()), forKey: "pinned")
        try stack.context.save()
        return stack
    }

    @Test(arguments: [StoreType.binary, .xml])
    func everyValueAndRelationshipSurvivesAndTheStoreReadsItBackOnFirstUse(type: StoreType) throws {
        let source = try makeSource(count: 2_500)
        let original = try SaveAsTests.dump(source.context, source.model)
        let target = folder.file("Saved." + (type == .xml ? "xml" : "quire"))
        let saved = try source.coordinator.migratePersistentStore(try #require(source.store), to: target, type: type)
        let atomic = try #require(saved.backend as? AtomicStore)
        #expect(atomic.recordsPending, "the records stay in the file until first used")

        let fresh = ManagedObjectContext()
        fresh.persistentStoreCoordinator = source.coordinator
        #expect(try SaveAsTests.dump(fresh, source.model) == original)
        #expect(!atomic.recordsPending)
        #expect(try SaveAsTests.dump(source.context, source.model) == original)

        // Read back from the file alone, in a coordinator of its own.
        let reader = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try reader.addPersistentStore(type: type, at: target)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = reader
        #expect(try SaveAsTests.dump(context, source.model) == original)
        let samples = try context.fetch(FetchRequest<ManagedObject>(entityName: "Sample"))
        let externals = samples.filter { (try? $0.dataValue(forKey: "vBinarydata"))?.count == 400 }
        #expect(externals.count == 358)
    }

    /// Samples of every attribute type in folders that list them in order (to-one and ordered to-many only,
    /// so that every list of members has one order and a file has one form).
    static func orderedModel() -> ManagedObjectModel {
        let sample = EntityDescription(name: "Sample", properties: AttributeType.allCases.map { type in
            AttributeDescription(name: "v" + type.rawValue.capitalized, type: type)
        } + [RelationshipDescription(name: "folder", destination: "Folder", inverse: "samples")])
        let folder = EntityDescription(name: "Folder", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "samples", destination: "Sample", toMany: true, isOrdered: true, inverse: "folder"),
        ])
        return ManagedObjectModel(entities: [sample, folder])
    }

    @Test(arguments: [StoreType.binary, .xml])
    func theStreamedFileIsTheBytesAWholeWriteMakes(type: StoreType) throws {
        let source = try StoreKind.sqlite.stack(Self.orderedModel(), in: folder)
        let folders = try ["Inbox", "Archive"].map { try source.insert("Folder", ["name": $0]) }
        for index in 0..<1_200 {
            let sample = try source.insert("Sample", [
                "vInteger64": Int64(index), "vString": "s<\(index)>&", "vDouble": Double(index) / 7,
                "vDecimal": Decimal(string: "\(index).5") ?? 0, "vBinarydata": Data([UInt8(index % 256)]), "vUuid": UUID(),
                "vDate": Date(timeIntervalSinceReferenceDate: Double(index)), "vBoolean": index % 3 == 0,
            ])
            sample.setValue(folders[index % 2], forKey: "folder")
        }
        try source.context.save()
        let target = folder.file("Saved." + (type == .xml ? "xml" : "quire"))
        _ = try source.coordinator.migratePersistentStore(try #require(source.store), to: target, type: type)

        let reader = try PersistentStoreCoordinator(managedObjectModel: Self.orderedModel())
        let reopened = try reader.addPersistentStore(type: type, at: target)
        // The backend answers for its store only while the store (and its coordinator) live.
        defer { withExtendedLifetime((reader, reopened)) {} }
        let backend = try #require(reopened.backend as? AtomicStore)
        let whole = try backend.encode(backend.image).reduce(into: Data()) { $0.append($1) }
        let file = try Data(contentsOf: target)
        #expect(file.count == whole.count)
        if type == .binary {
            // The header, then everything after the metadata slots (the binary property list of the metadata
            // may list its keys in another order).
            let sections = try file.withUnsafeBytes { try BinaryStoreFormat.Header.decode($0, file: target) }.sectionsOffset
            #expect(file.prefix(BinaryStoreFormat.headerSize) == whole.prefix(BinaryStoreFormat.headerSize))
            #expect(file[sections...] == whole[sections...])
            #expect(try BinaryStoreFormat.readMetadata(at: target) == reopened.metadata)
        } else {
            #expect(file == whole, "first difference at \(zip(file, whole).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
        }
    }

    @Test(arguments: [StoreType.binary, .xml])
    func theNewStoreSavesAfterTheStreamedCopy(type: StoreType) throws {
        let source = try makeSource(count: 40)
        let target = folder.file("Saved." + (type == .xml ? "xml" : "quire"))
        _ = try source.coordinator.migratePersistentStore(try #require(source.store), to: target, type: type)
        let folderObject = try #require(try source.fetch("Folder", "name == %@", "Inbox").first)
        folderObject.setValue("Renamed", forKey: "name")
        _ = try source.insert("Sample", ["vString": "added after"])
        try source.context.save()

        let reader = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try reader.addPersistentStore(type: type, at: target)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = reader
        let names = try context.fetch(FetchRequest<ManagedObject>(entityName: "Folder")).compactMap { $0.value(forKey: "name") as? String }
        #expect(names.sorted() == ["Archive", "Renamed"])
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Sample")) == 41)
    }

    @Test(arguments: [StoreType.binary, .xml])
    func aSourceFailingPartWayLeavesNoFileAndTheSourceIntact(type: StoreType) throws {
        // The last sample's external data file is gone: the copy fails after two batches were written.
        let source = try makeSource(count: 2_101, externalEvery: 2_100)
        let sourceURL = try #require(source.url)
        let files = ExternalDataFiles(storeURL: sourceURL, type: .sqlite)
        let last = try #require(try source.fetch("Sample", "vInteger32 == 2100").first)
        let data = try last.dataValue(forKey: "vBinarydata")
        let name = try #require(files.fileNames().first { (try? Data(contentsOf: files.file($0))) == data })
        try FileManager.default.removeItem(at: files.file(name))
        source.context.reset()
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path))

        let target = folder.file("Saved." + (type == .xml ? "xml" : "quire"))
        let store = try #require(source.store)
        #expect(throws: QuireError.self) { try source.coordinator.migratePersistentStore(store, to: target, type: type) }

        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path)) == before)
        #expect(source.coordinator.persistentStores.first === store)
        #expect(try source.context.count(for: FetchRequest<ManagedObject>(entityName: "Sample")) == 2_101)
        #expect(try source.fetch("Folder").count == 2)
    }
}
