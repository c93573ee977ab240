import Foundation
import Synchronization
import Testing

import Quire

/// The store types migration is tested on; the other types join as they gain file operations.
let migratableStoreTypes: [StoreType] = [.sqlite, .xml, .binary]

/// Migrating a v1 Journal store with data to v2 and v3: values, blobs and counts intact; failures leave v1 intact.
@Suite struct MigrationTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    private func fixture(_ type: StoreType) throws -> JournalFixture {
        try JournalFixture(in: folder, type: type, name: "Journal.\(type.rawValue.lowercased())")
    }

    private static var automatic: StoreOptions {
        var options = StoreOptions()
        options.migratesAutomatically = true
        options.infersMappingModel = true
        return options
    }

    @Test(arguments: migratableStoreTypes)
    func openingWithTheNextVersionMigratesAutomaticallyThroughV2ThenV3(type: StoreType) throws {
        let journal = try fixture(type)
        let uuid = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: journal.url)[StoreMetadataKey.storeUUID]
        do {
            let (coordinator, context) = try journal.open(version: 1, options: Self.automatic)
            try journal.expectVersion2(context)
            let store = try #require(coordinator.persistentStores.first)
            #expect(store.metadata[StoreMetadataKey.storeUUID] == uuid)
            #expect(coordinator.managedObjectModel.isConfiguration(nil, compatibleWithStoreMetadata: store.metadata))
            try coordinator.remove(store)
        }
        try journal.expectExternalDataIntact()
        try journal.expectNoLeftovers()
        // Core Data's option names work too.
        let options = try StoreOptions(coreDataOptions: [
            StoreOptions.CoreDataKey.migrateAutomatically: true, StoreOptions.CoreDataKey.inferMappingModel: true,
        ])
        let (_, context) = try journal.open(version: 2, options: options)
        try journal.expectVersion3(context)
        try journal.expectExternalDataIntact()
        try journal.expectNoLeftovers()
    }

    @Test(arguments: migratableStoreTypes)
    func aMultiVersionMigrationHopsV1ToV2ToV3AndReportsProgress(type: StoreType) throws {
        let journal = try fixture(type)
        let reports = Mutex<[MigrationProgress]>([])
        let migrated = try MigrationManager.migrateStore(at: journal.url, type: type, versions: journal.versions) { progress in
            reports.withLock { $0.append(progress) }
        }
        #expect(migrated)
        let (_, context) = try journal.open(version: 2)
        try journal.expectVersion3(context)
        try journal.expectExternalDataIntact()
        try journal.expectNoLeftovers()

        let progress = reports.withLock { $0 }
        #expect(progress.first?.phase == .preparing)
        #expect(progress.last?.phase == .finished && progress.last?.fractionCompleted == 1)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.fractionCompleted <= $1.fractionCompleted })
        #expect(Set(progress.map(\.stage)) == [1, 2] && progress.allSatisfy { $0.stageCount == 2 })
        #expect(progress.contains { $0.phase == .copyingObjects && $0.entityMappingName == "EntryToEntry" })
        #expect(progress.contains { $0.phase == .linkingRelationships && $0.entityMappingName == "NotebookToJournal" })
        #expect(progress.filter { $0.stage == 1 }.allSatisfy { $0.fractionCompleted <= 0.5 })

        // Already at the last version: nothing to do.
        #expect(try !MigrationManager.migrateStore(at: journal.url, type: type, versions: journal.versions))
    }

    @Test(arguments: migratableStoreTypes)
    func withoutMigrationOptionsTheErrorNamesWhatDiffers(type: StoreType) throws {
        let journal = try fixture(type)
        let error = try #require(throws: QuireError.self) { try journal.open(version: 1) }
        #expect(error.code == .persistentStoreIncompatibleVersionHash)
        #expect(error.message.contains("incompatible model"))
        for part in ["entity Place added", "Entry: text, wordCount added, body removed, mood changed", "Notebook: name changed",
                     "Tag: color added", "migratesAutomatically"] {
            #expect(error.message.contains(part), "missing '\(part)' in: \(error.message)")
        }
        #expect(try MigrationManager.storeNeedsMigration(at: journal.url, type: type, to: journal.versions[1]))
        #expect(try !MigrationManager.storeNeedsMigration(at: journal.url, type: type, to: journal.versions[0]))
        var onlyAutomatic = StoreOptions()
        onlyAutomatic.migratesAutomatically = true
        expectError(.migrationMissingMappingModel) { try journal.open(version: 1, options: onlyAutomatic) }
        try journal.expectVersion1Intact()
    }

    @Test(arguments: migratableStoreTypes)
    func aChangeInferenceCannotMapNamesTheEntityAndProperty(type: StoreType) throws {
        let journal = try fixture(type)
        // v2 with Entry.title turned into a date: no inference maps that.
        let broken = try ManagedObjectModel(serializedRepresentation: journal.versions[1].serializedRepresentation())
        let title = try #require(broken.entitiesByName["Entry"]?.attributesByName["title"])
        title.attributeType = .date
        let error = try #require(throws: QuireError.self) {
            try MappingModel.inferredMappingModel(forSourceModel: journal.versions[0], destinationModel: broken)
        }
        #expect(error.code == .inferredMappingModel)
        #expect(error.context.entity == "Entry" && error.context.key == "title")
        #expect(error.message.contains("'Entry.title' changes type from string to date"))

        let coordinator = try PersistentStoreCoordinator(managedObjectModel: broken)
        let opening = try #require(throws: QuireError.self) {
            try coordinator.addPersistentStore(type: type, at: journal.url, options: Self.automatic)
        }
        #expect(opening.code == .inferredMappingModel && opening.context.key == "title")
        #expect(opening.message.contains(journal.url.path))
        try journal.expectVersion1Intact()
    }

    @Test(arguments: migratableStoreTypes)
    func aFailingPolicyOrACancelLeavesV1Intact(type: StoreType) throws {
        struct Failing: MigrationPolicy {
            func createDestinationValues(
                forSource source: MigrationSourceObject, proposedValues: [String: AttributeValue], mapping: EntityMapping,
                manager: MigrationManager
            ) throws -> [String: AttributeValue]? {
                if source["title"] == .string("Entry 17") { throw QuireError(.invalidValue, "Entry 17 is cursed.") }
                return proposedValues
            }
        }
        let journal = try fixture(type)
        var mapping = try MappingModel.inferredMappingModel(forSourceModel: journal.versions[0], destinationModel: journal.versions[1])
        let index = try #require(mapping.index(ofEntityMappingNamed: "EntryToEntry"))
        mapping.entityMappings[index].migrationPolicy = Failing()
        let manager = MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1])
        let error = try #require(throws: QuireError.self) { try manager.migrateStore(at: journal.url, type: type, mapping: mapping) }
        #expect(error.code == .entityMigrationPolicy && error.message.contains("cursed"))
        try journal.expectVersion1Intact()

        let cancelling = MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1])
        cancelling.batchSize = 4
        cancelling.progressHandler = { [cancelling] progress in
            if progress.phase == .copyingObjects { cancelling.cancel() }
        }
        expectError(.migrationCancelled) { try cancelling.migrateStore(at: journal.url, type: type) }
        #expect(cancelling.migrationProgress < 1)
        try journal.expectVersion1Intact()

        // A cancel after the last batch, while the new store is being finished, still cancels (issue 14).
        let late = MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1])
        late.progressHandler = { [late] progress in
            if progress.phase == .finishing { late.cancel() }
        }
        expectError(.migrationCancelled) { try late.migrateStore(at: journal.url, type: type) }
        try journal.expectVersion1Intact()
    }

    /// Only SQLite stores are held open by a connection whose lock tells; atomic stores are read whole and
    /// refuse to save over a file another writer replaced (see the store conformance tests).
    @Test(arguments: [StoreType.sqlite])
    func aStoreOpenElsewhereIsNotReplaced(type: StoreType) throws {
        let journal = try fixture(type)
        let (coordinator, context) = try journal.open(version: 0)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Entry")) == JournalFixture.entryCount)
        let manager = MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1])
        let error = expectError(.migrationManagerDestinationStore) { try manager.migrateStore(at: journal.url, type: type) }
        #expect(error?.message.contains("open elsewhere") == true)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        try journal.expectVersion1Intact()
    }

    @Test(arguments: migratableStoreTypes)
    func migratingToAnotherLocationLeavesTheSourceAndGivesANewIdentity(type: StoreType) throws {
        let journal = try fixture(type)
        let copy = folder.file("Copy." + journal.url.pathExtension)
        try MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1])
            .migrateStore(from: journal.url, type: type, to: copy, type: type)
        try journal.expectVersion1Intact()
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: copy)
        let original = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: journal.url)
        #expect(metadata[StoreMetadataKey.storeUUID] != original[StoreMetadataKey.storeUUID])
        #expect(journal.versions[1].isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: journal.versions[1])
        try coordinator.addPersistentStore(type: type, at: copy)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try journal.expectVersion2(context)
        // The photos stored as external data files read back from the copy's own folder.
        try context.performAndWait {
            let entries = try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry"))
            #expect(entries.count == JournalFixture.entryCount)
            for entry in entries {
                let title = try #require(entry.value(forKey: "title") as? String)
                let index = try #require(Int(title.dropFirst("Entry ".count)))
                #expect(try entry.dataValue(forKey: "photo") == JournalFixture.photo(index), "\(title)'s photo")
            }
        }
        let blobs = try FileManager.default.contentsOfDirectory(atPath: JournalFixture.externalDataFolder(for: copy, type: type).path)
        #expect(!journal.externalFiles.isEmpty)
        #expect(Set(blobs) == Set(journal.externalFiles.keys))
        for (name, inode) in journal.externalFiles {
            let linked = JournalFixture.externalDataFolder(for: copy, type: type).appendingPathComponent(name)
            #expect(try JournalFixture.inode(of: linked) == inode, "\(name) was copied, not linked")
        }
    }
}

/// Expects `body` to throw a ``QuireError`` with `code`, and returns it.
@discardableResult
func expectError<R>(
    _ code: QuireError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) -> QuireError? {
    let error = #expect(throws: QuireError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "\(error.map(String.init(describing:)) ?? "no error")", sourceLocation: sourceLocation)
    return error
}
