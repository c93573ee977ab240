import Foundation
import Testing

import Quire

/// The SQLite store on real files: Core Data's schema, every attribute type, optimistic locking, bad files.
@Suite struct SQLiteStoreTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    @Test func everyAttributeTypeRoundTrips() throws {
        let url = folder.file("Types.sqlite")
        let date = Date(timeIntervalSinceReferenceDate: 123_456.789)
        let uuid = UUID()
        let blob = Data((0..<300).map { UInt8($0 % 256) })
        let values: [String: Any] = [
            "vInteger16": Int16(-12), "vInteger32": Int32(123_456), "vInteger64": Int64.max, "vDecimal": Decimal(string: "12.375")!,
            "vDouble": 2.5, "vFloat": Float(1.25), "vString": "héllo \u{0}wörld", "vBoolean": true, "vDate": date,
            "vBinarydata": blob, "vUuid": uuid, "vUri": URL(string: "https://example.org/a?b=c")!,
            "vTransformable": ["tags": ["a", "b"]], "plainData": Data([1, 2, 3]),
        ]
        do {
            let (coordinator, context) = try Fixtures.stack(Fixtures.everyTypeModel(), at: url)
            let object = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Sample"]), insertInto: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            try context.save()
        }
        let (_, context) = try Fixtures.stack(Fixtures.everyTypeModel(), at: url)
        let object = try #require(context.fetch(FetchRequest<ManagedObject>(entityName: "Sample")).first)
        #expect(object.value(forKey: "vInteger16") as? Int16 == -12)
        #expect(object.value(forKey: "vInteger32") as? Int32 == 123_456)
        #expect(object.value(forKey: "vInteger64") as? Int64 == Int64.max)
        #expect(object.value(forKey: "vDecimal") as? Decimal == Decimal(string: "12.375"))
        #expect(object.value(forKey: "vDouble") as? Double == 2.5)
        #expect(object.value(forKey: "vFloat") as? Float == 1.25)
        #expect(object.value(forKey: "vString") as? String == "héllo \u{0}wörld")
        #expect(object.value(forKey: "vBoolean") as? Bool == true)
        #expect(object.value(forKey: "vDate") as? Date == date)
        #expect(object.value(forKey: "vBinarydata") as? Data == blob)
        #expect(object.value(forKey: "vUuid") as? UUID == uuid)
        #expect(object.value(forKey: "vUri") as? URL == URL(string: "https://example.org/a?b=c"))
        #expect((object.value(forKey: "vTransformable") as? [String: [String]]) == ["tags": ["a", "b"]])
        #expect(object.value(forKey: "plainData") as? Data == Data([1, 2, 3]))

        // The bytes on disk use Core Data's encodings.
        let rows = try RawSQLite(url).rows("SELECT ZVDATE, ZVUUID, ZVBINARYDATA, ZPLAINDATA, ZVBOOLEAN FROM ZSAMPLE")
        let row = try #require(rows.first)
        #expect(row[0].double == 123_456.789)
        #expect(row[1].data == withUnsafeBytes(of: uuid.uuid) { Data($0) })
        #expect(row[2].data == Data([0x01]) + blob)
        #expect(row[3].data == Data([1, 2, 3]))
        #expect(row[4].int64 == 1)
    }

    @Test func sqlite3ToolShowsCoreDataTablesAndColumns() throws {
        let url = folder.file("Company.sqlite")
        do {
            let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
            let model = coordinator.managedObjectModel
            let employee = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: context)
            employee.setValue("Ada", forKey: "name")
            try context.save()
        }
        let tables = try sqlite3(url, ".tables")
        for table in ["Z_PRIMARYKEY", "Z_METADATA", "ZDEPARTMENT", "ZEMPLOYEE", "ZBADGE", "ZPROJECT", "ZTASK", "Z_3PROJECTS"] {
            #expect(tables.contains(table), "missing table \(table) in: \(tables)")
        }
        let schema = try sqlite3(url, ".schema ZEMPLOYEE")
        for column in ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZNAME VARCHAR", "ZSALARY INTEGER",
                       "ZDEPARTMENT INTEGER", "ZBADGE INTEGER", "ZLEVEL INTEGER"] {
            #expect(schema.contains(column), "missing \(column) in: \(schema)")
        }
        #expect(try sqlite3(url, ".schema ZTASK").contains("Z_FOK_PROJECT"))
        #expect(try sqlite3(url, ".schema Z_3PROJECTS").contains("Z_3MEMBERS"))
        let keys = try sqlite3(url, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        #expect(keys.split(separator: "\n").map(String.init) == ["1|Badge|0", "2|Department|0", "3|Employee|0", "4|Manager|3", "5|Project|0", "6|Task|0"])
        #expect(try sqlite3(url, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME FROM ZEMPLOYEE") == "1|3|1|Ada")
        #expect(try sqlite3(url, "PRAGMA journal_mode") == "wal")
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    @Test func metadataHoldsCoreDataKeys() throws {
        let url = folder.file("Runs.sqlite")
        let (coordinator, _) = try Fixtures.stack(Fixtures.runModel(), at: url)
        let store = try #require(coordinator.persistentStores.first)
        #expect(store.metadata[StoreMetadataKey.storeType] == .string("SQLite"))
        #expect(store.metadata[StoreMetadataKey.storeUUID] == .string(store.identifier))
        #expect(store.metadata[StoreMetadataKey.modelVersionHashesVersion] == .integer(3))
        let hashes = try #require(store.metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue)
        #expect(hashes["Run"]?.dataValue == coordinator.managedObjectModel.entitiesByName["Run"]?.versionHash)
        #expect(hashes["Run"]?.dataValue?.count == 32)
        let plist = try sqlite3(url, "SELECT hex(substr(Z_PLIST, 1, 8)) FROM Z_METADATA")
        #expect(plist == "62706C6973743030")  // "bplist00"
    }

    @Test func staleUpdateFromAnotherCoordinatorIsDetected() throws {
        let url = folder.file("Runs.sqlite")
        let (first, firstContext) = try Fixtures.stack(Fixtures.runModel(), at: url)
        let run = ManagedObject(entity: try #require(first.managedObjectModel.entitiesByName["Run"]), insertInto: firstContext)
        run.setValue(Date(), forKey: "date")
        try firstContext.save()

        let (_, secondContext) = try Fixtures.stack(Fixtures.runModel(), at: url)
        let other = try #require(secondContext.fetch(FetchRequest<ManagedObject>(entityName: "Run")).first)
        other.setValue(2, forKey: "processID")
        try secondContext.save()

        run.setValue(1, forKey: "processID")
        let error = try #require(throws: QuireError.self) { try firstContext.save() }
        // The store reports the conflict; the context's default merge policy (error) makes it a merge error.
        #expect(error.code == .managedObjectMerge)
        #expect((error.underlying as? QuireError)?.code == .persistentStoreSaveConflicts)
        #expect(error.message.contains(run.objectID.description))
        #expect(error.conflicts.map(\.objectID) == [run.objectID])
        #expect(error.conflicts.first?.persistedValues?["processID"] == .integer(2))
        #expect(run.isUpdated)
        #expect(try sqlite3(url, "SELECT ZPROCESSID, Z_OPT FROM ZRUN") == "2|2")

        // Deleting a record another coordinator changed is a conflict too.
        firstContext.rollback()
        firstContext.refresh(run, mergeChanges: false)
        #expect(run.value(forKey: "processID") as? Int64 == 2)
        other.setValue(3, forKey: "processID")
        try secondContext.save()
        firstContext.delete(run)
        #expect(throws: QuireError.self) { try firstContext.save() }
    }

    @Test func fetchLimitsOffsetsCountsAndResultTypes() throws {
        let url = folder.file("Runs.sqlite")
        let (coordinator, context) = try Fixtures.stack(Fixtures.runModel(), at: url)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Run"])
        for index in 0..<10 {
            let run = ManagedObject(entity: entity, insertInto: context)
            run.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "date")
            run.setValue(index, forKey: "processID")
        }
        try context.save()
        let request = FetchRequest<ManagedObject>(entityName: "Run")
        request.sortDescriptors = [SortKey("processID", ascending: false)]
        request.fetchLimit = 3
        request.fetchOffset = 2
        #expect(try context.fetch(request).map { $0.value(forKey: "processID") as? Int64 } == [7, 6, 5])
        #expect(try context.count(for: request) == 3)
        let ids = FetchRequest<ObjectID>(entityName: "Run")
        ids.sortDescriptors = [SortKey("processID")]
        let fetchedIDs = try context.fetch(ids)
        #expect(fetchedIDs.count == 10)
        #expect(context.object(with: fetchedIDs[0]).value(forKey: "processID") as? Int64 == 0)
        let counted = FetchRequest<Int>(entityName: "Run")
        #expect(try context.fetch(counted) == [10])
        let dictionaries = FetchRequest<[String: Any]>(entityName: "Run")
        dictionaries.sortDescriptors = [SortKey("processID")]
        dictionaries.fetchLimit = 1
        #expect(try context.fetch(dictionaries).first?["processID"] as? Int64 == 0)
        let full = FetchRequest<ManagedObject>(entityName: "Run")
        full.returnsObjectsAsFaults = false
        let objects = try context.fetch(full)
        #expect(objects.allSatisfy { !$0.isFault })
        #expect(context.persistentStoreCoordinator?.persistentStores.count == 1)
        let unknown = FetchRequest<ManagedObject>(entityName: "Nope")
        #expect(throws: QuireError.self) { try context.fetch(unknown) }
        let badSort = FetchRequest<ManagedObject>(entityName: "Run")
        badSort.sortDescriptors = [SortKey("missing")]
        #expect { try context.fetch(badSort) } throws: { ($0 as? QuireError)?.code == .invalidFetchRequest }
    }

    @Test func pendingChangesCountUnlessExcluded() throws {
        let url = folder.file("Runs.sqlite")
        let (coordinator, context) = try Fixtures.stack(Fixtures.runModel(), at: url)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Run"])
        var saved: [ManagedObject] = []
        for index in 0..<3 {
            let run = ManagedObject(entity: entity, insertInto: context)
            run.setValue(Date(), forKey: "date")
            run.setValue(index * 10, forKey: "processID")
            saved.append(run)
        }
        try context.save()
        let fresh = ManagedObject(entity: entity, insertInto: context)
        fresh.setValue(5, forKey: "processID")
        context.delete(saved[0])
        saved[2].setValue(1, forKey: "processID")
        let request = FetchRequest<ManagedObject>(entityName: "Run")
        request.sortDescriptors = [SortKey("processID")]
        #expect(try context.fetch(request).map { $0.value(forKey: "processID") as? Int64 } == [1, 5, 10])
        #expect(try context.count(for: request) == 3)
        request.fetchLimit = 2
        #expect(try context.fetch(request).map { $0.value(forKey: "processID") as? Int64 } == [1, 5])
        request.fetchLimit = 0
        request.includesPendingChanges = false
        #expect(try context.fetch(request).count == 3)
    }

    @Test func readOnlyStoreRefusesSaves() throws {
        let url = folder.file("Runs.sqlite")
        do { _ = try Fixtures.stack(Fixtures.runModel(), at: url) }
        var options = StoreOptions()
        options.isReadOnly = true
        let (coordinator, context) = try Fixtures.stack(Fixtures.runModel(), at: url, options: options)
        let run = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Run"]), insertInto: context)
        run.setValue(Date(), forKey: "date")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .persistentStoreOperation)
        #expect(try StoreOptions(coreDataOptions: [StoreOptions.CoreDataKey.readOnly: true]).isReadOnly)
        #expect(try StoreOptions(coreDataOptions: [StoreOptions.CoreDataKey.sqlitePragmas: ["journal_mode": "DELETE"]]).journalMode == .delete)
        // A key Quire does not know is ignored and listed, as Core Data ignores it; a bad value of a known key is not.
        #expect(try StoreOptions(coreDataOptions: ["NSBogusOption": true]).ignoredCoreDataOptions == ["NSBogusOption"])
        #expect(throws: QuireError.self) { try StoreOptions(coreDataOptions: [StoreOptions.CoreDataKey.readOnly: "yes"]) }
    }

    @Test func pragmasAndJournalModeApply() throws {
        let url = folder.file("Runs.sqlite")
        var options = StoreOptions()
        options.journalMode = .delete
        options.sqlitePragmas = ["user_version": "7"]
        do { _ = try Fixtures.stack(Fixtures.runModel(), at: url, options: options) }
        #expect(try sqlite3(url, "PRAGMA journal_mode") == "delete")
        #expect(try sqlite3(url, "PRAGMA user_version") == "7")
        options.sqlitePragmas = ["user_version": "7; DROP TABLE ZRUN"]
        #expect { try Fixtures.stack(Fixtures.runModel(), at: url, options: options) } throws: {
            ($0 as? QuireError)?.code == .invalidArgument
        }
        #expect(try sqlite3(url, ".tables").contains("ZRUN"))
    }
}

/// Runs the `sqlite3` command-line tool on a database and returns its trimmed output.
func sqlite3(_ url: URL, _ command: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [url.path, command]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
