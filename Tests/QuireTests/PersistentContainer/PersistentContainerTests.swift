import Foundation
import Testing

import Quire

/// `PersistentContainer` and `PersistentStoreDescription` on every store type, and on documents (issue 16).
@Suite struct PersistentContainerTests {
    static let sampleDocuments = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SampleDocuments")

    private func container(_ type: StoreType, at url: URL, readOnly: Bool = false) throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Runs", managedObjectModel: Fixtures.runModel())
        let description = PersistentStoreDescription(url: url)
        description.type = type
        description.isReadOnly = readOnly
        container.persistentStoreDescriptions = [description]
        return container
    }

    private func runCount(_ context: ManagedObjectContext) throws -> Int {
        try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Run")) }
    }

    @Test(arguments: [StoreType.sqlite, .xml, .binary, .inMemory])
    func loadsSavesAndReopensEachStoreType(type: StoreType) async throws {
        let folder = try TemporaryFolder()
        // A folder that does not exist yet: loading creates it.
        let url = folder.file("nested/Runs.store")
        let first = try container(type, at: url)
        let stores = try await first.loadPersistentStores()
        #expect(stores.count == 1 && stores.first?.type == type)
        #expect(first.persistentStoreCoordinator.persistentStores.count == 1)
        try await first.performBackgroundTask { context in
            for pid in 1...3 {
                let run = EntityDescription.insertNewObject(forEntityName: "Run", into: context)
                run.setValue(Date(timeIntervalSinceReferenceDate: Double(pid)), forKey: "date")
                run.setValue(Int64(pid), forKey: "processID")
            }
            try context.save()
        }
        // The view context and a new background context read what the background task saved.
        #expect(try runCount(first.viewContext) == 3)
        #expect(try runCount(first.newBackgroundContext()) == 3)
        #expect(first.viewContext.concurrencyType == .mainQueue)
        guard type != .inMemory else {
            // An in-memory store has no location (its kind's `keepsURL`): the description's URL is dropped, and
            // nothing is written there.
            #expect(stores.first?.url == nil)
            #expect(!FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path))
            return
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        // A second container on the same file sees the saved runs.
        let second = try container(type, at: url)
        try await second.loadPersistentStores()
        #expect(try runCount(second.viewContext) == 3)
    }

    @Test func loadsAsynchronouslyAndReportsEachDescription() async throws {
        let folder = try TemporaryFolder()
        let container = try PersistentContainer(name: "Runs", managedObjectModel: Fixtures.runModel())
        let good = PersistentStoreDescription(url: folder.file("Good.sqlite"))
        good.shouldAddStoreAsynchronously = true
        let bad = PersistentStoreDescription(url: folder.file("Bad.sqlite"))
        // A value Quire cannot use under a key it knows (unknown keys are ignored, as in Core Data).
        bad.setOption("a while", forKey: StoreOptions.CoreDataKey.timeout)
        let garbage = folder.file("Garbage.sqlite")
        try Data("not a database".utf8).write(to: garbage)
        let notAStore = PersistentStoreDescription(url: garbage)
        container.persistentStoreDescriptions = [good, bad, notAStore]
        let results = await withCheckedContinuation { (continuation: CheckedContinuation<[String: String], Never>) in
            let collected = Collected()
            container.loadPersistentStores { description, error in
                if let all = collected.add(description.url?.lastPathComponent ?? "?", error), all.count == 3 {
                    continuation.resume(returning: all)
                }
            }
        }
        #expect(results["Good.sqlite"] == "ok")
        #expect(results["Bad.sqlite"]?.contains(StoreOptions.CoreDataKey.timeout) == true)
        #expect(results["Garbage.sqlite"] != "ok")
        #expect(container.persistentStoreCoordinator.persistentStores.map { $0.url?.lastPathComponent } == ["Good.sqlite"])
        // Nothing was written for the refused descriptions, and the garbage file is untouched.
        #expect(!FileManager.default.fileExists(atPath: folder.file("Bad.sqlite").path))
        #expect(try Data(contentsOf: garbage) == Data("not a database".utf8))
    }

    @Test func aReadOnlyDescriptionOpensTheStoreReadOnly() async throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Runs.sqlite")
        let writer = try container(.sqlite, at: url)
        try await writer.loadPersistentStores()
        try await writer.performBackgroundTask { context in
            EntityDescription.insertNewObject(forEntityName: "Run", into: context).setValue(Date(), forKey: "date")
            try context.save()
        }
        let reader = try container(.sqlite, at: url, readOnly: true)
        try await reader.loadPersistentStores()
        #expect(reader.persistentStoreCoordinator.persistentStores.first?.options.isReadOnly == true)
        #expect(try runCount(reader.viewContext) == 1)
        let context = reader.newBackgroundContext()
        #expect(throws: QuireError.self) {
            try context.performAndWait {
                EntityDescription.insertNewObject(forEntityName: "Run", into: context).setValue(Date(), forKey: "date")
                try context.save()
            }
        }
        #expect(try runCount(writer.viewContext) == 1)
    }

    @Test func theDefaultDescriptionIsAnSQLiteStoreInTheDefaultDirectory() throws {
        let container = try PersistentContainer(name: "Runs", managedObjectModel: Fixtures.runModel())
        let description = try #require(container.persistentStoreDescriptions.first)
        #expect(description.type == .sqlite)
        #expect(description.url == PersistentContainer.defaultDirectoryURL().appendingPathComponent("Runs.sqlite"))
        #expect(description.shouldMigrateStoreAutomatically && description.shouldInferMappingModelAutomatically)
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        #expect(PersistentContainer.defaultDirectoryURL().standardizedFileURL.path
            == base.appendingPathComponent(ProcessInfo.processInfo.processName).standardizedFileURL.path)
        #expect(throws: QuireError.self) { try PersistentContainer(name: "NoSuchModel", bundle: .main) }
    }

    @Test(arguments: ["Runs-sqlite.quiredoc", "Runs-xml.zip", "Runs-binary.tar"])
    func opensADocumentsStore(sample: String) async throws {
        let folder = try TemporaryFolder()
        let copy = folder.file(sample)
        try FileManager.default.copyItem(at: Self.sampleDocuments.appendingPathComponent(sample), to: copy)
        let contents = try DocumentContents(contentsOf: copy)
        let model = try ManagedObjectModel.forStore(at: contents.storeURL, type: contents.storeType).model
        let container = try PersistentContainer(name: "Runs", managedObjectModel: model)
        let description = PersistentStoreDescription(documentContents: contents)
        #expect(description.type == contents.storeType)
        container.persistentStoreDescriptions = [description]
        try await container.loadPersistentStores()
        let count = try runCount(container.viewContext)
        #expect(count > 0)
        try await container.performBackgroundTask { context in
            EntityDescription.insertNewObject(forEntityName: "Run", into: context).setValue(Date(), forKey: "date")
            try context.save()
        }
        // The store in the package (or the archive's working copy) has the new run.
        let check = try PersistentStoreCoordinator(managedObjectModel: model)
        try check.addPersistentStore(type: contents.storeType, at: contents.storeURL, options: { var o = StoreOptions(); o.isReadOnly = true; return o }())
        let reader = ManagedObjectContext()
        reader.persistentStoreCoordinator = check
        #expect(try runCount(reader) == count + 1)
    }
}

/// Results of a completion handler called on several threads.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [String: String] = [:]

    func add(_ name: String, _ error: (any Error)?) -> [String: String]? {
        lock.withLock {
            results[name] = error.map { "\($0)" } ?? "ok"
            return results
        }
    }
}
