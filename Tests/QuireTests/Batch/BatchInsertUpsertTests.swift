import Foundation
import Testing

import Quire
import QuirePostgres

/// A quake of the upsert tests' model, filled in by a batch insert's managed-object handler.
final class Quake: ManagedObject {
    @Managed("code") var code: String?
    @Managed("magnitude") var magnitude: Double
    @Managed("place") var place: String?
    @Managed("isFavorite") var isFavorite: Bool
}

/// Batch inserts into an entity with a uniqueness constraint on every store type, as Apple's "Loading and
/// Displaying a Large Data Feed" sample runs them: the context's merge policy decides whether a row that meets a
/// stored record updates it (an upsert), leaves it, or fails the request; and the managed-object handler form.
@Suite struct BatchInsertUpsertTests {
    static let types: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    /// Quakes unique by `code`, each in a region (a relationship the batch insert cannot set, which an upsert must
    /// keep).
    static func model() -> ManagedObjectModel {
        let quake = EntityDescription(name: "Quake", properties: [
            AttributeDescription(name: "code", type: .string),
            AttributeDescription(name: "magnitude", type: .double, defaultValue: 0.0),
            AttributeDescription(name: "place", type: .string),
            AttributeDescription(name: "isFavorite", type: .boolean, defaultValue: false),
            RelationshipDescription(name: "region", destination: "Region", inverse: "quakes"),
        ], managedObjectClass: Quake.self)
        quake.uniquenessConstraints = [["code"]]
        let region = EntityDescription(name: "Region", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "quakes", destination: "Quake", toMany: true, inverse: "region"),
        ])
        return ManagedObjectModel(entities: [quake, region])
    }

    struct Stack {
        let folder: TemporaryFolder
        let type: StoreType
        let url: URL?
        let options: StoreOptions
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext

        init(_ type: StoreType) throws {
            folder = try TemporaryFolder()
            self.type = type
            switch type {
            case .inMemory: url = nil
            case .postgres: url = PostgresTestServer.storeURL()
            default: url = folder.file("Quakes.\(type.rawValue.lowercased())")
            }
            var options = StoreOptions()
            options.persistentHistoryTracking = true
            self.options = options
            coordinator = try PersistentStoreCoordinator(managedObjectModel: BatchInsertUpsertTests.model())
            try coordinator.addPersistentStore(type: type, at: url, options: options)
            context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
        }

        /// Quakes A (magnitude 1, in "Pacific", a favourite) and B (magnitude 2), saved; returns A's ID.
        @discardableResult
        func seed() throws -> ObjectID {
            let region = EntityDescription.insertNewObject(forEntityName: "Region", into: context)
            region.setValue("Pacific", forKey: "name")
            let a = EntityDescription.insertNewObject(forEntityName: "Quake", into: context)
            a.setValue("A", forKey: "code")
            a.setValue(1.0, forKey: "magnitude")
            a.setValue("old place", forKey: "place")
            a.setValue(true, forKey: "isFavorite")
            a.setValue(region, forKey: "region")
            let b = EntityDescription.insertNewObject(forEntityName: "Quake", into: context)
            b.setValue("B", forKey: "code")
            b.setValue(2.0, forKey: "magnitude")
            try context.save()
            return a.objectID
        }

        /// Every quake a fresh coordinator reads from the store (the in-memory store: this one's), by code.
        func storedQuakes() throws -> [String: (magnitude: Double, place: String?, isFavorite: Bool, region: String?, id: URL)] {
            var reader = coordinator
            if let url {
                reader = try PersistentStoreCoordinator(managedObjectModel: coordinator.managedObjectModel)
                try reader.addPersistentStore(type: type, at: url, options: options)
            }
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = reader
            var result: [String: (magnitude: Double, place: String?, isFavorite: Bool, region: String?, id: URL)] = [:]
            for quake in try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake")) {
                let code = quake.value(forKey: "code") as? String ?? "nil"
                #expect(result[code] == nil, "two records with code \(code)")
                result[code] = (
                    quake.value(forKey: "magnitude") as? Double ?? -1, quake.value(forKey: "place") as? String,
                    quake.value(forKey: "isFavorite") as? Bool ?? false,
                    (quake.value(forKey: "region") as? ManagedObject)?.value(forKey: "name") as? String,
                    quake.objectID.uriRepresentation())
            }
            return result
        }

        /// The rows of the SQLite file with a code, read with SQLite's own API.
        func sqliteRows(withCode code: String) throws -> Int64? {
            guard type == .sqlite, let url else { return nil }
            return try RawSQLite(url).rows("SELECT COUNT(*) FROM ZQUAKE WHERE ZCODE = '\(code)'")[0][0].int64
        }
    }

    static var feed: [[String: Any]] { [["code": "A", "magnitude": 5.5, "place": "new place"], ["code": "C", "magnitude": 3.0]] }

    @Test(arguments: types)
    func objectTrumpAndOverwriteUpdateTheStoredRecord(type: StoreType) throws {
        for policy in [MergePolicy.mergeByPropertyObjectTrump, .overwrite] {
            let stack = try Stack(type)
            let a = try stack.seed()
            stack.context.mergePolicy = policy
            let request = BatchInsertRequest(entityName: "Quake", objects: Self.feed)
            request.resultType = .objectIDs
            let ids = try #require(try stack.context.execute(request).objectIDs)
            // The stored record is updated under its own ID, not duplicated; the new code is inserted.
            #expect(ids.count == 2 && ids[0] == a, "\(policy)")
            let stored = try stack.storedQuakes()
            #expect(Set(stored.keys) == ["A", "B", "C"], "\(policy)")
            let updated = try #require(stored["A"])
            #expect(updated.magnitude == 5.5 && updated.place == "new place", "\(policy)")
            // Every value of the row, the default of the attribute it left out too (as Core Data's upsert does),
            // while the relationship the insert cannot set is kept.
            #expect(updated.isFavorite == false && updated.region == "Pacific", "\(policy)")
            #expect(updated.id == a.uriRepresentation(), "\(policy)")
            #expect(stored["B"]?.magnitude == 2.0 && stored["C"]?.magnitude == 3.0, "\(policy)")
            if let rows = try stack.sqliteRows(withCode: "A") { #expect(rows == 1) }

            // The upsert is an update in the store's history (PostgreSQL stores keep none).
            guard type != .postgres else { continue }
            let history = try stack.context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?))
            let last = try #require(history.transactions?.last?.changes)
            #expect(last.contains { $0.changedObjectID == a && $0.changeType == .update && $0.updatedProperties?.contains("magnitude") == true })
            #expect(last.contains { $0.changeType == .insert })
        }
    }

    @Test(arguments: types)
    func storeTrumpAndRollbackKeepTheStoredRecord(type: StoreType) throws {
        for policy in [MergePolicy.mergeByPropertyStoreTrump, .rollback] {
            let stack = try Stack(type)
            try stack.seed()
            stack.context.mergePolicy = policy
            let request = BatchInsertRequest(entityName: "Quake", objects: Self.feed)
            request.resultType = .count
            #expect(try stack.context.execute(request).count == 1, "\(policy)")
            let stored = try stack.storedQuakes()
            #expect(Set(stored.keys) == ["A", "B", "C"], "\(policy)")
            #expect(stored["A"]?.magnitude == 1.0 && stored["A"]?.place == "old place" && stored["A"]?.isFavorite == true, "\(policy)")
            if let rows = try stack.sqliteRows(withCode: "A") { #expect(rows == 1) }
        }
    }

    /// An app's own policy, as Moody's: a subclass of a standard policy that counts the conflicts a save hands it.
    final class CountingMergePolicy: MergePolicy {
        var resolved = 0
        override func resolve(constraintConflicts list: [ConstraintConflict]) throws {
            resolved += list.count
            try super.resolve(constraintConflicts: list)
        }
    }

    @Test(arguments: types)
    func aSubclassOfAStandardPolicyUpsertsAsItsBasePolicy(type: StoreType) throws {
        // Object trump: the stored record is updated, as under `.mergeByPropertyObjectTrump`.
        let trumping = try Stack(type)
        let a = try trumping.seed()
        let policy = CountingMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        trumping.context.mergePolicy = policy
        let request = BatchInsertRequest(entityName: "Quake", objects: Self.feed)
        request.resultType = .objectIDs
        let ids = try #require(try trumping.context.execute(request).objectIDs)
        #expect(ids.count == 2 && ids[0] == a)
        let updated = try trumping.storedQuakes()
        #expect(Set(updated.keys) == ["A", "B", "C"])
        #expect(updated["A"]?.magnitude == 5.5 && updated["A"]?.place == "new place" && updated["A"]?.region == "Pacific")
        // The rows never became objects: the policy's own resolution did not run.
        #expect(policy.resolved == 0)

        // Rollback: the stored record is kept, as under `.rollback`.
        let keeping = try Stack(type)
        try keeping.seed()
        keeping.context.mergePolicy = CountingMergePolicy(merge: .rollbackMergePolicyType)
        let kept = BatchInsertRequest(entityName: "Quake", objects: Self.feed)
        kept.resultType = .count
        #expect(try keeping.context.execute(kept).count == 1)
        let stored = try keeping.storedQuakes()
        #expect(Set(stored.keys) == ["A", "B", "C"] && stored["A"]?.magnitude == 1.0 && stored["A"]?.place == "old place")

        // Error: refused, as under `.error`.
        let refusing = try Stack(type)
        try refusing.seed()
        refusing.context.mergePolicy = CountingMergePolicy(merge: .errorMergePolicyType)
        #expect(throws: QuireError.self) { try refusing.context.execute(BatchInsertRequest(entityName: "Quake", objects: Self.feed)) }
        #expect(Set(try refusing.storedQuakes().keys) == ["A", "B"])
    }

    @Test(arguments: types)
    func theErrorPolicyRefusesTheRequestAndWritesNothing(type: StoreType) throws {
        let stack = try Stack(type)
        let a = try stack.seed()
        #expect(stack.context.mergePolicy == .error)
        do {
            try stack.context.execute(BatchInsertRequest(entityName: "Quake", objects: Self.feed))
            Issue.record("the batch insert broke the uniqueness constraint without an error")
        } catch let error as QuireError {
            // Core Data's constraint error with its conflicts, not a store's raw "UNIQUE constraint failed".
            #expect(error.code == .managedObjectConstraintMerge)
            let conflict = try #require(error.constraintConflicts.first)
            #expect(conflict.constraint == ["code"] && conflict.constraintValues["code"] as? String == "A")
            #expect(conflict.databaseObjectID == a)
        }
        let stored = try stack.storedQuakes()
        #expect(Set(stored.keys) == ["A", "B"])
        #expect(stored["A"]?.magnitude == 1.0)
    }

    @Test(arguments: types)
    func rowsOfOneRequestWithTheSameValuesMakeOneRecord(type: StoreType) throws {
        let rows: [[String: Any]] = [["code": "D", "magnitude": 1.0, "place": "first"], ["code": "D", "magnitude": 2.0]]
        // By property: the later row's values that are set win; the others keep the first row's.
        let byProperty = try Stack(type)
        byProperty.context.mergePolicy = .mergeByPropertyObjectTrump
        try byProperty.context.execute(BatchInsertRequest(entityName: "Quake", objects: rows))
        let merged = try #require(try byProperty.storedQuakes()["D"])
        #expect(merged.magnitude == 2.0 && merged.place == "first")
        // Overwrite: the first row stays as it was.
        let whole = try Stack(type)
        whole.context.mergePolicy = .overwrite
        try whole.context.execute(BatchInsertRequest(entityName: "Quake", objects: rows))
        #expect(try whole.storedQuakes()["D"]?.magnitude == 1.0)
        // Error: refused.
        let refusing = try Stack(type)
        #expect(throws: QuireError.self) { try refusing.context.execute(BatchInsertRequest(entityName: "Quake", objects: rows)) }
        #expect(try refusing.storedQuakes().isEmpty)
    }

    @Test(arguments: types)
    func aManagedObjectHandlerFillsObjectsOfTheEntitysClass(type: StoreType) throws {
        let stack = try Stack(type)
        try stack.seed()
        stack.context.mergePolicy = .mergeByPropertyObjectTrump
        let entity = try #require(stack.coordinator.managedObjectModel.entitiesByName["Quake"])
        let incoming: [(String, Double)] = [("A", 6.1), ("E", 4.2), ("F", 2.4)]
        var index = 0
        var classes: [String] = []
        let request = BatchInsertRequest(entity: entity) { (object: ManagedObject) -> Bool in
            guard index < incoming.count else { return true }
            // A new object of the entity's class, in no context, at its defaults.
            classes.append("\(Swift.type(of: object)) \(object.managedObjectContext == nil) \(object.value(forKey: "magnitude") as? Double ?? -1)")
            guard let quake = object as? Quake else { return true }
            quake.code = incoming[index].0
            quake.magnitude = incoming[index].1
            index += 1
            return false
        }
        request.resultType = .objectIDs
        #expect(try stack.context.execute(request).objectIDs?.count == 3)
        #expect(classes == Array(repeating: "Quake true 0.0", count: 3))
        // The handler's objects were never registered in the context.
        #expect(stack.context.registeredObjects.allSatisfy { $0.value(forKey: "code") as? String != "E" })
        let stored = try stack.storedQuakes()
        #expect(Set(stored.keys) == ["A", "B", "E", "F"])
        #expect(stored["A"]?.magnitude == 6.1 && stored["E"]?.magnitude == 4.2 && stored["F"]?.magnitude == 2.4)
    }
}

/// The same batch inserts on a PostgreSQL store.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresBatchInsertUpsertTests {
    private let shared = BatchInsertUpsertTests()

    @Test func theUpsertsOfEveryStoreType() throws {
        try shared.objectTrumpAndOverwriteUpdateTheStoredRecord(type: .postgres)
        try shared.storeTrumpAndRollbackKeepTheStoredRecord(type: .postgres)
        try shared.theErrorPolicyRefusesTheRequestAndWritesNothing(type: .postgres)
        try shared.aSubclassOfAStandardPolicyUpsertsAsItsBasePolicy(type: .postgres)
        try shared.rowsOfOneRequestWithTheSameValuesMakeOneRecord(type: .postgres)
        try shared.aManagedObjectHandlerFillsObjectsOfTheEntitysClass(type: .postgres)
    }
}
