import Foundation
import Testing

import Quire
import QuirePostgres

/// Batch updates whose values are expressions of each object's own attributes (`NSExpression`s in Core Data's
/// `propertiesToUpdate`): on every store type the same values, read back by a fresh coordinator; a value that
/// does not fit its attribute fails the request with nothing written.
@Suite struct BatchUpdateExpressionTests {
    static let types: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    /// Articles with a title, a 16-bit view count, a score, a rating and a date.
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Article", properties: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "views", type: .integer16),
                AttributeDescription(name: "score", type: .double),
                AttributeDescription(name: "rating", type: .float),
                AttributeDescription(name: "published", type: .date),
                AttributeDescription(name: "featured", type: .boolean),
            ])
        ])
    }

    static let start = Date(timeIntervalSinceReferenceDate: 800_000_000)

    struct Stack {
        let folder: TemporaryFolder
        let url: URL?
        let type: StoreType
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext

        /// A store with articles 1…5 (`views` = 10 × n, `score` = n, `published` n days after `start`) and one
        /// article whose values are all nil.
        init(_ type: StoreType) throws {
            folder = try TemporaryFolder()
            self.type = type
            switch type {
            case .inMemory: url = nil
            case .postgres: url = PostgresTestServer.storeURL()
            default: url = folder.file("Articles.\(type.rawValue.lowercased())")
            }
            coordinator = try PersistentStoreCoordinator(managedObjectModel: BatchUpdateExpressionTests.model())
            try coordinator.addPersistentStore(type: type, at: url)
            context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            let entity = try #require(coordinator.managedObjectModel.entitiesByName["Article"])
            for n in 1...5 {
                let article = ManagedObject(entity: entity, insertInto: context)
                article.setValue("Title \(n) ÉTÉ", forKey: "title")
                article.setValue(Int16(10 * n), forKey: "views")
                article.setValue(Double(n), forKey: "score")
                article.setValue(BatchUpdateExpressionTests.start.addingTimeInterval(Double(n) * 86_400), forKey: "published")
            }
            _ = ManagedObject(entity: entity, insertInto: context)
            try context.save()
        }

        /// The articles as a fresh coordinator reads them from the store, by score (the nil one first).
        func stored() throws -> [ManagedObject] {
            var reader = coordinator
            if let url {
                reader = try PersistentStoreCoordinator(managedObjectModel: coordinator.managedObjectModel)
                try reader.addPersistentStore(type: type, at: url)
            }
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = reader
            let request = FetchRequest<ManagedObject>(entityName: "Article")
            request.sortDescriptors = [SortKey("score")]
            request.returnsObjectsAsFaults = false
            return try context.fetch(request)
        }

        func update(_ properties: [String: Any], where format: String? = nil) throws -> Int {
            let request = BatchUpdateRequest(entityName: "Article")
            if let format { request.predicate = try QueryPredicate(format: format) }
            request.propertiesToUpdate = properties
            request.resultType = .count
            return try context.execute(request).count ?? -1
        }
    }

    @Test(arguments: types)
    func expressionsOfTheObjectsOwnAttributesAreComputedForEachObject(type: StoreType) throws {
        let stack = try Stack(type)
        let updated = try stack.update(
            [
                "views": try QueryExpression(format: "views * 2 + 1"),
                "rating": try QueryExpression(format: "score / 4"),
                "score": try QueryExpression(format: "score * 10"),
                "published": try QueryExpression(format: "published + 3600"),
                "title": try QueryExpression(format: "lowercase:(title)"),
            ], where: "score >= 3")
        #expect(updated == 3)
        let articles = try stack.stored()
        #expect(articles.map { $0.value(forKey: "views") as? Int16 } == [nil, 10, 20, 61, 81, 101])
        #expect(articles.map { $0.value(forKey: "score") as? Double } == [nil, 1, 2, 30, 40, 50])
        #expect(articles.map { $0.value(forKey: "rating") as? Float } == [nil, nil, nil, 0.75, 1, 1.25])
        #expect(articles.map { $0.value(forKey: "title") as? String } == [nil, "Title 1 ÉTÉ", "Title 2 ÉTÉ", "title 3 été", "title 4 été", "title 5 été"])
        let hours = articles.map { ($0.value(forKey: "published") as? Date).map { $0.timeIntervalSince(BatchUpdateExpressionTests.start) / 3600 } }
        #expect(hours == [nil, 24, 48, 73, 97, 121])
    }

    @Test(arguments: types)
    func nilPropagatesThroughArithmetic(type: StoreType) throws {
        let stack = try Stack(type)
        #expect(try stack.update(["views": try QueryExpression(format: "views + 1")]) == 6)
        #expect(try stack.stored().map { $0.value(forKey: "views") as? Int16 } == [nil, 11, 21, 31, 41, 51])
    }

    @Test(arguments: types)
    func aWholeDoubleIsStoredAsAnInteger(type: StoreType) throws {
        let stack = try Stack(type)
        #expect(try stack.update(["views": try QueryExpression(format: "score * 2.0")], where: "score != nil") == 5)
        #expect(try stack.stored().map { $0.value(forKey: "views") as? Int16 } == [nil, 2, 4, 6, 8, 10])
        if type == .sqlite, let url = stack.url {
            #expect(try RawSQLite(url).rows("SELECT DISTINCT typeof(ZVIEWS) FROM ZARTICLE WHERE ZSCORE IS NOT NULL").map { String(decoding: $0[0].data, as: UTF8.self) } == ["integer"])
        }
    }

    @Test(arguments: types)
    func aValueThatDoesNotFitFailsTheRequestAndWritesNothing(type: StoreType) throws {
        let stack = try Stack(type)
        let before = try stack.stored().map { $0.value(forKey: "views") as? Int16 }
        // 10 × 1.25 = 12.5 is no integer; 50 × 1000 is out of Int16's range; a string is no number.
        for expression in ["views * 1.25", "views * 1000", "title"] {
            let error = try #require(throws: QuireError.self) {
                try stack.update(["views": try QueryExpression(format: expression), "score": 0.0])
            }
            #expect(error.code == .invalidValue || error.code == .invalidArgument, "\(expression): \(error)")
            #expect(error.context.key == "views", "\(expression): \(error)")
            #expect(try stack.stored().map { $0.value(forKey: "views") as? Int16 } == before, "\(expression)")
            #expect(try stack.stored().map { $0.value(forKey: "score") as? Double } == [nil, 1, 2, 3, 4, 5], "\(expression)")
        }
    }

    @Test func aFractionForAnIntegerReportsTheValueThatDoesNotFit() throws {
        let stack = try Stack(.sqlite)
        let error = try #require(throws: QuireError.self) {
            try stack.update(["views": try QueryExpression(format: "views * 1.25")])
        }
        #expect(error.code == .invalidValue)
        #expect(error.message.contains("12.5"), "\(error)")
    }

    @Test(arguments: types)
    func relationshipsAggregatesAndOtherAttributesAreRefused(type: StoreType) throws {
        let stack = try Stack(type)
        for expression in ["missing + 1", "SUBQUERY(self, $a, $a.views > 1).@count", "$variable"] {
            let error = try #require(throws: QuireError.self) {
                try stack.update(["views": try QueryExpression(format: expression)])
            }
            #expect(error.code == .invalidArgument, "\(expression): \(error)")
        }
        #expect(try stack.stored().map { $0.value(forKey: "views") as? Int16 } == [nil, 10, 20, 30, 40, 50])
    }
}

/// The same requests on a PostgreSQL store, which runs them as a pass over the records.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresBatchUpdateExpressionTests {
    @Test func expressionsAreComputedForEachObject() throws {
        try BatchUpdateExpressionTests().expressionsOfTheObjectsOwnAttributesAreComputedForEachObject(type: .postgres)
    }

    @Test func aValueThatDoesNotFitWritesNothing() throws {
        try BatchUpdateExpressionTests().aValueThatDoesNotFitFailsTheRequestAndWritesNothing(type: .postgres)
    }
}
