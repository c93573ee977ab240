// Reads the SQLite store's fetch-plan statistics and the coordinator's lock count, which have no public face: uses Quire's internals and QuireStores' package API.
import Foundation
import Testing

@testable import Quire
import QuireCore
import QuireStores

/// A fetch compiles its predicate once, takes the coordinator's lock once, and a later fetch of the same shape
/// (the same predicate with other constants, the same sort keys and window) compiles nothing; the answer is
/// always the one for the fetch's own constants.
@Suite struct SQLiteFetchPlanTests {
    /// A store of 200 items: `tag` = index % 10, `name` "Item-<index>" (mixed case every other), `price`
    /// index / 4, `made` a day per index.
    static func stack(_ folder: TemporaryFolder) throws -> (PersistentStoreCoordinator, ManagedObjectContext, SQLiteStore) {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "tag", type: .integer64),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "price", type: .double),
            AttributeDescription(name: "made", type: .date),
        ])
        let (coordinator, context) = try Fixtures.stack(ManagedObjectModel(entities: [item]), at: folder.file("Plans.sqlite"))
        for index in 0..<200 {
            let object = ManagedObject(entity: item, insertInto: context)
            object.setValue(Int64(index % 10), forKey: "tag")
            object.setValue(index % 2 == 0 ? "Item-\(index)" : "ITEM-\(index)", forKey: "name")
            object.setValue(Double(index) / 4, forKey: "price")
            object.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 86_400), forKey: "made")
        }
        try context.save()
        context.reset()
        let store = try #require(coordinator.persistentStores.first?.backend as? SQLiteStore)
        return (coordinator, context, store)
    }

    /// The names of the stored items that pass a test of their name and index, in index (price) order.
    static func expected(_ test: (String, Int) -> Bool) -> [String] {
        (0..<200).map { ($0 % 2 == 0 ? "Item-\($0)" : "ITEM-\($0)", $0) }.filter { test($0.0, $0.1) }.map(\.0)
    }

    static func names(_ objects: [ManagedObject]) -> [String] {
        objects.compactMap { $0.value(forKey: "name") as? String }
    }

    /// Constants inside function expressions are bound by the compiler but are not parameters of the shape:
    /// fetches that differ only in them answer for their own constants (they are compiled afresh, not served
    /// from the first one's plan).
    @Test func functionArgumentsAnswerForTheirOwnConstants() throws {
        let folder = try TemporaryFolder()
        let (_, context, _) = try Self.stack(folder)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("price")]
        request.predicate = try QueryPredicate(format: "price * 4 >= %d", 196)
        #expect(Self.names(try context.fetch(request)) == Self.expected { $1 >= 196 })
        request.predicate = try QueryPredicate(format: "price * %d >= 100", 4)
        #expect(Self.names(try context.fetch(request)) == Self.expected { $1 >= 100 })
        request.predicate = try QueryPredicate(format: "price * %d >= 100", 2)
        #expect(try context.fetch(request).isEmpty)
        request.predicate = try QueryPredicate(format: "price * %d >= %d", 8, 390)
        #expect(Self.names(try context.fetch(request)) == Self.expected { $1 >= 195 })
    }

    @Test func sameShapeWithOtherConstantsCompilesOnceAndAnswersForItsOwnConstants() throws {
        let folder = try TemporaryFolder()
        let (_, context, store) = try Self.stack(folder)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("price")]

        let compilationsBefore = store.fetchCompilations
        let hitsBefore = store.fetchPlans.hits
        for tag in 0..<10 {
            request.predicate = try QueryPredicate(format: "tag == %d", tag)
            let fetched = try context.fetch(request)
            #expect(fetched.count == 20)
            #expect(fetched.allSatisfy { ($0.value(forKey: "tag") as? Int64) == Int64(tag) }, "tag \(tag)")
            #expect(fetched.first?.value(forKey: "price") as? Double == Double(tag) / 4)
        }
        // The first fetch compiled once (not once to ask whether the store evaluates it and again to run it);
        // the nine others found its plan.
        #expect(store.fetchCompilations - compilationsBefore == 1)
        #expect(store.fetchPlans.hits - hitsBefore == 9)

        // Case-insensitive comparisons bind the folded constant of each fetch, not the first one's.
        request.predicate = try QueryPredicate(format: "name ==[c] %@", "item-3")
        #expect(Self.names(try context.fetch(request)) == ["ITEM-3"])
        request.predicate = try QueryPredicate(format: "name ==[c] %@", "ITEM-4")
        #expect(Self.names(try context.fetch(request)) == ["Item-4"])
        request.predicate = try QueryPredicate(format: "name BEGINSWITH[c] %@ AND price < %f", "item-1", 5.0)
        #expect(Self.names(try context.fetch(request)) == Self.expected { $0.lowercased().hasPrefix("item-1") && $1 < 20 })
        request.predicate = try QueryPredicate(format: "name BEGINSWITH[c] %@ AND price < %f", "ITEM-19", 100.0)
        #expect(Self.names(try context.fetch(request)) == Self.expected { name, _ in name.lowercased().hasPrefix("item-19") })

        // Dates, limits and offsets: the window's values are bound per fetch too.
        request.predicate = try QueryPredicate(format: "made >= %@", Date(timeIntervalSinceReferenceDate: 190 * 86_400))
        request.fetchLimit = 3
        request.fetchOffset = 2
        #expect(Self.names(try context.fetch(request)) == ["Item-192", "ITEM-193", "Item-194"])
        request.predicate = try QueryPredicate(format: "made >= %@", Date(timeIntervalSinceReferenceDate: 10 * 86_400))
        request.fetchLimit = 2
        request.fetchOffset = 0
        #expect(Self.names(try context.fetch(request)) == ["Item-10", "ITEM-11"])

        // Counts and IDs share plans by shape the same way.
        let counted = FetchRequest<ManagedObject>(entityName: "Item")
        for tag in [3, 11] {
            counted.predicate = try QueryPredicate(format: "tag == %d", tag)
            #expect(try context.count(for: counted) == (tag < 10 ? 20 : 0))
        }
    }

    @Test func objectIDConstantsAreParametersOfTheirStore() throws {
        let folder = try TemporaryFolder()
        let model = Fixtures.companyModel()
        let (coordinator, context) = try Fixtures.stack(model, at: folder.file("Company.sqlite"))
        let store = try #require(coordinator.persistentStores.first?.backend as? SQLiteStore)
        var departments: [ManagedObject] = []
        for name in ["Research", "Sales", "Support"] {
            let department = ManagedObject(entity: try #require(model.entitiesByName["Department"]), insertInto: context)
            department.setValue(name, forKey: "name")
            departments.append(department)
        }
        for (index, name) in ["Ada", "Grace", "Linus", "Ken", "Barbara"].enumerated() {
            let employee = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: context)
            employee.setValue(name, forKey: "name")
            employee.setValue(departments[index % 3], forKey: "department")
        }
        try context.save()
        let request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.sortDescriptors = [SortKey("name")]
        var answers: [[String]] = []
        let compilations = store.fetchCompilations
        for department in departments + departments {
            request.predicate = try QueryPredicate(format: "department == %@", department)
            answers.append(try context.fetch(request).compactMap { $0.value(forKey: "name") as? String })
        }
        #expect(answers == [["Ada", "Ken"], ["Barbara", "Grace"], ["Linus"], ["Ada", "Ken"], ["Barbara", "Grace"], ["Linus"]])
        #expect(store.fetchCompilations - compilations == 1)
    }

    /// A fetch whose predicate holds a long list (`tag IN {…}` of more values than a shape keeps) shares its SQL
    /// with no other fetch: it is compiled each time and not kept in the cache (where its key would be the whole
    /// list), and each answers for its own list; a short list is still cached.
    @Test func aLongListIsCompiledForItsFetchAndNotCached() throws {
        let folder = try TemporaryFolder()
        let (_, context, store) = try Self.stack(folder)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("price")]
        let shapes = store.fetchPlans.count
        let compilations = store.fetchCompilations
        for first in 0..<3 {
            let names = (first * 20..<first * 20 + 20).map { $0 % 2 == 0 ? "Item-\($0)" : "ITEM-\($0)" } + ["none"]
            request.predicate = try QueryPredicate(format: "name IN %@", names)
            #expect(Self.names(try context.fetch(request)) == Self.expected { (first * 20..<first * 20 + 20).contains($1) && $0 != "none" })
        }
        #expect(store.fetchPlans.count == shapes)
        #expect(store.fetchCompilations - compilations == 3)
        request.predicate = try QueryPredicate(format: "name IN %@", ["Item-4", "ITEM-5"])
        #expect(Self.names(try context.fetch(request)) == ["Item-4", "ITEM-5"])
        #expect(store.fetchPlans.count == shapes + 1)
    }

    /// A long list is bound as one JSON array written byte by byte: keys holding what JSON escapes (quotes,
    /// backslashes, control characters) or bytes above ASCII find exactly their rows, as integers in a long list do.
    @Test func aLongListFindsKeysJSONMustEscape() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context, _) = try Self.stack(folder)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Item"])
        let odd = ["say \"hi\"", "back\\slash", "line\nbreak", "tab\there", "bell\u{07}", "Ångström", "日本", "👍🏽", "\u{1F}"]
        for (index, name) in odd.enumerated() {
            let object = ManagedObject(entity: entity, insertInto: context)
            object.setValue(Int64(1_000 + index), forKey: "tag")
            object.setValue(name, forKey: "name")
            object.setValue(Double(1_000 + index), forKey: "price")
        }
        try context.save()
        context.reset()
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("price")]
        // Near misses of each odd key, and padding past the short-list limit: none of them stored.
        let misses = odd.map { $0 + " " } + (0..<10).map { "none-\($0)" }
        request.predicate = try QueryPredicate(format: "name IN %@", odd + misses + ["Item-4"])
        #expect(Self.names(try context.fetch(request)) == ["Item-4"] + odd)
        request.predicate = try QueryPredicate(format: "tag IN %@", Array(Int64(1_000)..<1_020) + [-1, 3])
        #expect(try context.fetch(request).count == odd.count + 20)
    }

    @Test func oneFetchTakesTheCoordinatorsLockOnce() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context, _) = try Self.stack(folder)
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.predicate = try QueryPredicate(format: "tag == %d AND price > %f", 4, 10.0)
        request.sortDescriptors = [SortKey("price", ascending: false)]
        request.fetchLimit = 5
        _ = try context.fetch(request)
        let before = coordinator.lockAcquisitions
        let fetched = try context.fetch(request)
        #expect(coordinator.lockAcquisitions - before == 1)
        #expect(fetched.compactMap { $0.value(forKey: "price") as? Double } == [48.5, 46.0, 43.5, 41.0, 38.5])

        // Counts and ID fetches too.
        let counting = coordinator.lockAcquisitions
        #expect(try context.count(for: request) == 5)
        #expect(coordinator.lockAcquisitions - counting == 1)
        let ids = FetchRequest<ObjectID>(entityName: "Item")
        ids.resultType = .managedObjectID
        ids.predicate = request.predicate
        let fetchingIDs = coordinator.lockAcquisitions
        #expect(try context.fetch(ids).count == 16)
        #expect(coordinator.lockAcquisitions - fetchingIDs == 1)
    }

    @Test func theCacheIsBoundedAndForgetsTheLeastRecentlyUsedShape() throws {
        let folder = try TemporaryFolder()
        let (_, context, store) = try Self.stack(folder)
        let capacity = store.fetchPlans.capacity
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        // Predicates of 1, 2, 3, … comparisons: each a shape of its own.
        func shape(_ index: Int) throws -> QueryPredicate {
            try QueryPredicate(format: "tag == %d" + String(repeating: " OR tag == %d", count: index), argumentArray: Array(repeating: 1, count: index + 1))
        }
        for index in 0..<(capacity + 10) {
            request.predicate = try shape(index)
            #expect(try context.fetch(request).count == 20)
        }
        #expect(store.fetchPlans.count == capacity)
        #expect(store.fetchPlans.evictions >= 10)
        // The most recent shape is still there; the first ones are gone.
        let compilations = store.fetchCompilations
        request.predicate = try shape(capacity + 9)
        _ = try context.fetch(request)
        #expect(store.fetchCompilations == compilations)
        request.predicate = try shape(0)
        _ = try context.fetch(request)
        #expect(store.fetchCompilations == compilations + 1)
    }

    /// Every predicate of the agreement cases, fetched after every other (so that each finds plans made by
    /// other constants of its shape), answers what memory answers.
    @Test func everyAgreementCaseAnswersAlikeWithWarmPlans() throws {
        let library = try LibraryFixture()
        let cases = SQLitePredicateAgreementTests.cases(library)
        var all: [String: [ManagedObject]] = [:]
        for entity in ["Author", "Publication", "Address", "Tag"] {
            all[entity] = try library.context.fetch(FetchRequest<ManagedObject>(entityName: entity))
        }
        let store = try #require(library.store.backend as? SQLiteStore)
        let hitsBefore = store.fetchPlans.hits
        for pass in 0..<2 {
            for item in pass == 0 ? cases : cases.reversed() {
                guard let predicate = try? QueryPredicate(format: item.format, argumentArray: item.arguments) else { continue }
                guard let memory = try? LibraryFixture.names((all[item.entity] ?? []).filter({ try predicate.evaluate(with: $0) }))
                else { continue }
                let request = FetchRequest<ManagedObject>(entityName: item.entity)
                request.predicate = predicate
                #expect(LibraryFixture.names(try library.context.fetch(request)) == memory, "\(item.format), pass \(pass)")
            }
        }
        #expect(store.fetchPlans.hits - hitsBefore > cases.count / 4)
    }
}
