import Foundation
import Quire
// `ManagedObjectModel.liveCount` and `RawInflate` (to make a `.mom` of a model cache) have no public face.
import QuireCore
import QuireTestSupport
import Testing

/// Models read per document are freed with the document (issue 33, item 1): through every public way to get a
/// model, opening a document, reading it and letting it go leaves no model and at most 200 heap bytes behind.
@Suite struct ModelLifetimeTests {
    /// The heap growth per document, measured in a process of its own (`quire-crash-worker model-memory`, with
    /// glibc's heap statistics, `quire_heap_bytes_in_use`): in this process the other suites run beside the test
    /// and their allocations count too. Before models were freed, each document left its model behind (about
    /// 12 KB through `embedded(inStoreAt:type:)`).
    @Test(arguments: ModelPerDocument.EntryPoint.allCases)
    func aModelReadFromEachDocumentIsFreedWithIt(entryPoint: ModelPerDocument.EntryPoint) throws {
        let worker = try #require(CrashTests.worker, "quire-crash-worker is not built; run swift build --build-tests first")
        let folder = try TemporaryFolder()
        let documents = folder.file("documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        var arguments = ["model-memory", documents.path, entryPoint.rawValue, "300"]
        if entryPoint.needsCompiledModel {
            let blob = try Data(contentsOf: try FixtureFiles.url("CoreData/CompiledModels/ModelCache/SampleModel_V1.modelcache"))
            let file = folder.file(entryPoint == .modelCache ? "SampleModel_V1.modelcache" : "SampleModel_V1.mom")
            // A .mom is the model cache's keyed archive, uncompressed.
            try (entryPoint == .modelCache ? blob : try RawInflate.inflate(blob)).write(to: file)
            arguments.append(file.path)
        }
        let process = Process()
        let pipe = Pipe()
        process.executableURL = worker
        process.arguments = arguments
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        let fields = output.split(whereSeparator: \.isWhitespace).map(String.init)
        func field(_ name: String) -> Int? {
            fields.firstIndex(of: name).flatMap { $0 + 1 < fields.count ? Int(fields[$0 + 1]) : nil }
        }
        let growth = try #require(field("growth"), "\(output)")
        #expect(growth <= 200, "\(entryPoint.rawValue): the heap grew \(growth) bytes a document")
        #expect(field("models") == 0, "\(entryPoint.rawValue): models are left alive: \(output)")
        #expect((field("objects") ?? 0) >= 300, "\(entryPoint.rawValue): too few objects read: \(output)")
    }

    /// What keeps a model alive: an object ID of it, an object made outside any context, or the application's
    /// reference; nothing else once the document is closed.
    @Test func objectIDsAndObjectsKeepTheirModelAliveAndNothingElseDoes() throws {
        let folder = try TemporaryFolder()
        let documents = try ModelPerDocument(folder: folder.url, entryPoint: .embeddedSQLite, count: 1)
        let url = documents.documents[0]
        weak var weakModel: ManagedObjectModel?
        var kept: (ids: [ObjectID], owner: ObjectID?, loose: ManagedObject?) = ([], nil, nil)
        do {
            let model = try ManagedObjectModel.embedded(inStoreAt: url, type: .sqlite)
            weakModel = model
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                let items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
                kept.ids = items.map(\.objectID)
                // A to-one read from the fetched row (kept packed) carries its own reference to the model.
                kept.owner = (items.first?.value(forKey: "owner") as? ManagedObject)?.objectID
            }
            try coordinator.remove(store)
        }
        #expect(weakModel != nil, "the model of object IDs still held was freed")
        #expect(kept.ids.map(\.entity.name) == ["Item", "Item"])
        #expect(kept.owner?.entity.name == "Owner")
        kept.ids = []
        #expect(weakModel != nil, "the model of the to-one's ID was freed")
        kept.owner = nil
        #expect(weakModel == nil, "the model outlived everything that used it")

        do {
            let model = try ManagedObjectModel.embedded(inStoreAt: url, type: .sqlite)
            weakModel = model
            _ = try PersistentStoreCoordinator(managedObjectModel: model)  // freezes it
            let entity = try #require(model.entitiesByName["Owner"])
            kept.loose = ManagedObject(entity: entity, insertInto: nil)
        }
        #expect(weakModel != nil, "the model of an object made outside any context was freed")
        kept.loose?.setValue("loose", forKey: "name")
        #expect(kept.loose?.value(forKey: "name") as? String == "loose")
        #expect(kept.loose?.entity.name == "Owner")
        kept.loose = nil
        #expect(weakModel == nil)
    }
}
