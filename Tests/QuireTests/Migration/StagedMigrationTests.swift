import Foundation
import QuireTestSupport
import Testing

import Quire

/// Staged migration (`NSStagedMigrationManager`) of the Journal store, v1 → v2 lightweight, v2 → v3 custom: the
/// will-migrate handler keeps the moods v3 drops as tags, while the store is at v2; the did-migrate handler files
/// every entry under a place, which v3 adds, once the store is at v3.
@Suite struct StagedMigrationTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        TestJSONStore.register()
    }

    /// What the handlers saw, by stage: the model version of the store, as counts of entities.
    final class Seen: @unchecked Sendable {
        // `@unchecked Sendable`: `events` is read and written only under `lock`.
        private let lock = NSLock()
        private var storage: [String] = []
        func add(_ event: String) { lock.withLock { storage.append(event) } }
        var events: [String] { lock.withLock { storage } }
    }

    /// The stages, with handlers that record what they saw in `seen`; `failing` makes the did-migrate handler throw.
    static func manager(_ versions: [ManagedObjectModel], seen: Seen, failing: Bool = false) throws -> StagedMigrationManager {
        let (v1, v2, v3) = (versions[0], versions[1], versions[2])
        let lightweight = LightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])
        lightweight.label = "v1 to v2"
        let custom = CustomMigrationStage(
            migratingFrom: try ManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum),
            to: try ManagedObjectModelReference(model: v3, versionChecksum: v3.versionChecksum))
        custom.label = "v2 to v3"
        custom.willMigrateHandler = { manager, stage in
            let container = try #require(manager.container)
            #expect(container.managedObjectModel.versionChecksum == stage.currentModel.versionChecksum)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let entries = try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry"))
                seen.add("will: \(entries.count) entries at v2")
                var tags: [Int32: ManagedObject] = [:]
                for entry in entries {
                    let mood = entry.value(forKey: "mood") as? Int32 ?? 0
                    let tag = tags[mood] ?? {
                        let made = ManagedObject(entity: container.managedObjectModel.entitiesByName["Tag"]!, insertInto: context)
                        made.setValue("mood \(mood)", forKey: "name")
                        return made
                    }()
                    tags[mood] = tag
                    entry.addObject(tag, toRelationship: "tags")
                }
                try context.save()
            }
        }
        custom.didMigrateHandler = { manager, stage in
            let container = try #require(manager.container)
            #expect(container.managedObjectModel.versionChecksum == stage.nextModel.versionChecksum)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let entries = try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry"))
                seen.add("did: \(entries.count) entries at v3")
                let home = ManagedObject(entity: container.managedObjectModel.entitiesByName["Place"]!, insertInto: context)
                home.setValue("Home", forKey: "name")
                for entry in entries { entry.setValue(home, forKey: "place") }
                try context.save()
            }
            if failing { throw QuireError(.validationMissingMandatoryProperty, "The handler refuses.") }
        }
        return StagedMigrationManager([lightweight, custom])
    }

    /// The v3 store holds the v1 data, the moods as tags, every entry at home.
    func expectStaged(_ journal: JournalFixture) throws {
        let (coordinator, context) = try journal.open(version: 2)
        defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
        try context.performAndWait {
            let entries = try JournalFixture.objects("Entry", by: "title", in: context)
            #expect(entries.count == JournalFixture.entryCount)
            for i in 0..<JournalFixture.entryCount {
                let entry = try #require(entries["Entry \(i)"])
                #expect(entry.value(forKey: "text") as? String == JournalFixture.body(i))
                #expect(entry.value(forKey: "photo") as? Data == JournalFixture.photo(i))
                let tags = Set(((entry.value(forKey: "tags") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String })
                #expect(tags == JournalFixture.tags(i).union(["mood \(JournalFixture.mood(i))"]), "tags of Entry \(i)")
                #expect((entry.value(forKey: "place") as? ManagedObject)?.value(forKey: "name") as? String == "Home")
            }
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Place")) == 1)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Journal")) == 2)
        }
        try journal.expectExternalDataIntact()
        try journal.expectNoLeftovers()
    }

    /// Every store type that lives in files: the built-in ones and a custom atomic store an app registers.
    @Test(arguments: migratableStoreTypes + [TestJSONStore.storeType])
    func addingAStoreRunsTheStagesFromItsVersion(type: StoreType) throws {
        let journal = try JournalFixture(in: folder, type: type, name: "Journal.\(type.rawValue.lowercased())")
        let seen = Seen()
        var options = StoreOptions()
        options.stagedMigrationManager = try Self.manager(journal.versions, seen: seen)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: journal.versions[2])
        let store = try coordinator.addPersistentStore(type: type, at: journal.url, options: options)
        #expect(journal.versions[2].isConfiguration(nil, compatibleWithStoreMetadata: store.metadata))
        try coordinator.remove(store)
        #expect(seen.events == ["will: 24 entries at v2", "did: 24 entries at v3"])
        try expectStaged(journal)
    }

    @Test func aStoreAtTheCustomStagesVersionStartsThere() throws {
        let journal = try JournalFixture(in: folder)
        try MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1]).migrateStore(at: journal.url, type: .sqlite)
        let seen = Seen()
        let manager = try Self.manager(journal.versions, seen: seen)
        #expect(try manager.migrateStore(at: journal.url, type: .sqlite, to: journal.versions[2]))
        #expect(seen.events == ["will: 24 entries at v2", "did: 24 entries at v3"])
        try expectStaged(journal)
        // At the last version: nothing to do.
        #expect(try !manager.migrateStore(at: journal.url, type: .sqlite, to: journal.versions[2]))
        #expect(seen.events.count == 2)
    }

    @Test func aContainerTakesTheManagerAsCoreDatasOption() throws {
        let journal = try JournalFixture(in: folder)
        let seen = Seen()
        let container = try PersistentContainer(name: "Journal", managedObjectModel: journal.versions[2])
        let description = PersistentStoreDescription(url: journal.url)
        description.setOption(try Self.manager(journal.versions, seen: seen), forKey: "NSPersistentStoreStagedMigrationManagerOptionKey")
        container.persistentStoreDescriptions = [description]
        let failure = LockedBox<(any Error)?>(nil)
        container.loadPersistentStores { _, error in failure.mutate { $0 = error } }
        #expect(failure.value == nil)
        for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.remove(store) }
        try expectStaged(journal)
    }

    @Test(arguments: migratableStoreTypes + [TestJSONStore.storeType])
    func aFailingHandlerLeavesTheStoreAsItWas(type: StoreType) throws {
        let journal = try JournalFixture(in: folder, type: type, name: "Journal.\(type.rawValue.lowercased())")
        let before = try Data(contentsOf: journal.url)
        let seen = Seen()
        var options = StoreOptions()
        options.stagedMigrationManager = try Self.manager(journal.versions, seen: seen, failing: true)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: journal.versions[2])
        let error = expectError(.migration) { try coordinator.addPersistentStore(type: type, at: journal.url, options: options) }
        #expect(error?.message.contains("The did-migrate handler of the migration stage 'v2 to v3' failed: The handler refuses.") == true,
            "\(error?.message ?? "")")
        // Both handlers ran on the private copy; the store is v1 as it was.
        #expect(seen.events.count == 2)
        #expect(try Data(contentsOf: journal.url) == before)
        try journal.expectVersion1Intact()
    }

    @Test func aStageNamingAVersionNoModelHasIsRefused() throws {
        let journal = try JournalFixture(in: folder)
        let manager = StagedMigrationManager([LightweightMigrationStage([journal.versions[0].versionChecksum, "bm90IGEgY2hlY2tzdW0="])])
        let error = expectError(.migrationMissingSourceModel) { try manager.migrateStore(at: journal.url, type: .sqlite, to: journal.versions[2]) }
        #expect(error?.message.contains("bm90IGEgY2hlY2tzdW0=") == true)
        #expect(throws: QuireError.self) {
            _ = try ManagedObjectModelReference(model: journal.versions[1], versionChecksum: journal.versions[0].versionChecksum)
        }
        try journal.expectVersion1Intact()
    }

    /// Core Data's checksum, as stores written by Core Data record it (`NSStoreModelVersionChecksumKey`).
    @Test func theVersionChecksumIsCoreDatas() throws {
        let store = try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel3_V1.sqlite")
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: store)
        let recorded = try #require(metadata["NSStoreModelVersionChecksumKey"]?.stringValue)
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel3.xcdatamodeld"))
        let version = try #require(bundle.models.first { $0.isConfiguration(nil, compatibleWithStoreMetadata: metadata) })
        #expect(version.versionChecksum == recorded)
    }
}
