import Foundation
import QuireTestSupport
import Testing

import Quire

/// Every form of value expression Xcode writes, and every override point of ``EntityMigrationPolicy``, on a small
/// library: v1 `Author` — `Book` — `Tag`; v2 renames Author to `Writer` and computes new attributes.
@Suite struct EntityMigrationPolicyTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    static func version1() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Author", properties: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "born", type: .integer16),
                RelationshipDescription(name: "books", destination: "Book", toMany: true, inverse: "author"),
            ]),
            EntityDescription(name: "Book", properties: [
                AttributeDescription(name: "title", type: .string, isOptional: false),
                AttributeDescription(name: "pages", type: .integer32),
                RelationshipDescription(name: "author", destination: "Author", inverse: "books"),
                RelationshipDescription(name: "tags", destination: "Tag", toMany: true, inverse: "books"),
            ]),
            EntityDescription(name: "Tag", properties: [
                AttributeDescription(name: "label", type: .string, isOptional: false),
                RelationshipDescription(name: "books", destination: "Book", toMany: true, inverse: "tags"),
            ]),
        ])
    }

    static func version2(uniqueLabels: Bool = false) -> ManagedObjectModel {
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "label", type: .string, isOptional: false),
            RelationshipDescription(name: "books", destination: "Book", toMany: true, inverse: "tags"),
        ])
        if uniqueLabels { tag.uniquenessConstraints = [["label"]] }
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Writer", properties: [
                AttributeDescription(name: "fullName", type: .string, isOptional: false),
                AttributeDescription(name: "initials", type: .string),
                AttributeDescription(name: "bornYear", type: .integer32),
                AttributeDescription(name: "bookCount", type: .integer64, isOptional: false, defaultValue: 0),
                RelationshipDescription(name: "works", destination: "Book", toMany: true, inverse: "writer"),
            ]),
            EntityDescription(name: "Book", properties: [
                AttributeDescription(name: "title", type: .string, isOptional: false),
                AttributeDescription(name: "shouted", type: .string),
                AttributeDescription(name: "writerName", type: .string),
                AttributeDescription(name: "pages", type: .integer64),
                AttributeDescription(name: "subtitle", type: .string),
                AttributeDescription(name: "rating", type: .double),
                AttributeDescription(name: "isOnShelf", type: .boolean, isOptional: false, defaultValue: false),
                AttributeDescription(name: "note", type: .string, defaultValue: "none"),
                RelationshipDescription(name: "writer", destination: "Writer", inverse: "works"),
                RelationshipDescription(name: "tags", destination: "Tag", toMany: true, inverse: "books"),
            ]),
            tag,
        ])
    }

    static let authors = [("Ada Lovelace", 1815), ("Alan Turing", 1912), ("Grace Hopper", 1906)]

    /// A v1 store: each author with two books, tagged red, blue or both; `duplicateTag` adds a second "red".
    func writeVersion1(type: StoreType = .sqlite, duplicateTag: Bool = false) throws -> URL {
        let url = folder.file("Library.\(type.rawValue.lowercased())")
        let model = Self.version1()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            func make(_ entity: String, _ values: [String: Any]) -> ManagedObject {
                let object = ManagedObject(entity: model.entitiesByName[entity]!, insertInto: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let tags = ["red", "blue"].map { make("Tag", ["label": $0]) }
            if duplicateTag { _ = make("Tag", ["label": "red"]) }
            for (index, (name, born)) in Self.authors.enumerated() {
                let author = make("Author", ["name": name, "born": Int16(born)])
                for volume in 1...2 {
                    let book = make("Book", ["title": "\(name.split(separator: " ")[1]) \(volume)", "pages": Int32(100 * volume + index), "author": author])
                    for (position, tag) in tags.enumerated() where (index + volume + position) % 3 != 0 { book.addObject(tag, toRelationship: "tags") }
                }
            }
            try context.save()
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return url
    }

    /// The mapping, every expression written as Xcode's editor writes it.
    static func mapping(policy: String? = "Tests.WriterPolicy", bookPolicy: String? = nil, tagPolicy: String? = nil) throws -> MappingModel {
        func properties(_ pairs: KeyValuePairs<String, String?>) throws -> [PropertyMapping] {
            try pairs.map { name, text in PropertyMapping(name: name, valueExpression: try text.map(MappingExpression.init(format:))) }
        }
        var writers = EntityMapping(mappingType: .custom, sourceEntityName: "Author", destinationEntityName: "Writer")
        writers.entityMigrationPolicyClassName = policy
        writers.attributeMappings = try properties([
            "fullName": "$source.name",
            "initials": "FUNCTION($entityPolicy, \"initials:\", $source.name)",
            "bornYear": "$source.born",
            "bookCount": "$source.books.@count",
        ])
        writers.relationshipMappings = try properties([
            "works": "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"BookToBook\", $source.books)"
        ])
        var books = EntityMapping(mappingType: .transform, sourceEntityName: "Book", destinationEntityName: "Book")
        books.entityMigrationPolicyClassName = bookPolicy
        books.attributeMappings = try properties([
            "title": "$source.title",
            "shouted": "uppercase:($source.title)",
            "writerName": "$source.author.name",
            "pages": "$source.pages",
            "subtitle": "\"untitled\"",
            "rating": "4.5",
            "isOnShelf": "YES",
            "note": nil,
        ])
        books.relationshipMappings = try properties([
            "writer": "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"AuthorToWriter\", $source.author)",
            "tags": "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"tags\", $source.tags)",
        ])
        var tags = EntityMapping(mappingType: .copy, sourceEntityName: "Tag", destinationEntityName: "Tag")
        tags.entityMigrationPolicyClassName = tagPolicy
        tags.attributeMappings = try properties(["label": "$source.label"])
        tags.relationshipMappings = try properties(["books": nil])
        return MappingModel(entityMappings: [writers, books, tags])
    }

    /// Answers `initials:` for the writer mapping.
    final class WriterPolicy: EntityMigrationPolicy {
        override func evaluateFunction(_ selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
            guard selector == "initials:", let name = arguments.first as? String else {
                return try super.evaluateFunction(selector, arguments: arguments, manager: manager)
            }
            return String(name.split(separator: " ").compactMap(\.first))
        }
    }

    static func registry(_ more: [String: @Sendable () -> EntityMigrationPolicy] = [:]) -> EntityMigrationPolicyRegistry {
        let registry = EntityMigrationPolicyRegistry()
        registry.register(WriterPolicy.self, as: "Tests.WriterPolicy")
        for (name, make) in more { registry.register(name, make) }
        return registry
    }

    func migrate(_ url: URL, type: StoreType = .sqlite, mapping: MappingModel, registry: EntityMigrationPolicyRegistry = registry(),
                 model: ManagedObjectModel = version2()) throws {
        let manager = MigrationManager(sourceModel: Self.version1(), destinationModel: model)
        manager.policyRegistry = registry
        try manager.migrateStore(at: url, type: type, mapping: mapping)
    }

    func open(_ url: URL, type: StoreType = .sqlite) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.version2())
        try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return context
    }

    // MARK: Expressions

    @Test func everyExpressionFormReadsAndWritesAsXcodeWritesIt() throws {
        let texts = [
            "$source.name", "$source.author.name", "$source.books.@count", "uppercase:($source.title)", "\"untitled\"", "4.5", "YES", "nil",
            "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"BookToBook\", $source.books)",
            "FUNCTION($manager, \"sourceInstancesForEntityMappingNamed:destinationInstances:\", \"BookToBook\", $destination.works)",
            "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"tags\", $source.tags)",
            "FUNCTION($entityPolicy, \"initials:\", $source.name)",
        ]
        for text in texts {
            #expect(try MappingExpression(format: text).format == text)
        }
        if case .sourceValue("name") = try MappingExpression(format: "$source.name") {} else { Issue.record("$source.name is not sourceValue") }
        // Xcode's own spacing, `"…" , "…"`, reads the same.
        let spaced = try MappingExpression(format: "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\" , \"A\", $source.a)")
        #expect(spaced.format == "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"A\", $source.a)")
        // What Quire cannot evaluate is refused, naming it.
        for bad in [
            "FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"Book\", \"TRUEPREDICATE\")",
            "FUNCTION($source, \"description\")", "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", $source.a)",
            "$source.name +", "FUNCTION($entityPolicy, initials:, $source.name",
        ] {
            let error = expectError(.predicateSyntax) { _ = try MappingExpression(format: bad) }
            #expect(error?.message.contains(bad.prefix(20)) == true, "\(bad): \(error?.message ?? "")")
        }
    }

    @Test(arguments: migratableStoreTypes)
    func everyExpressionFormMigratesItsValues(type: StoreType) throws {
        let url = try writeVersion1(type: type)
        try migrate(url, type: type, mapping: try Self.mapping())
        let context = try open(url, type: type)
        try context.performAndWait {
            let writers = try JournalFixture.objects("Writer", by: "fullName", in: context)
            #expect(Set(writers.keys) == Set(Self.authors.map(\.0)))
            for (name, born) in Self.authors {
                let writer = try #require(writers[name])
                #expect(writer.value(forKey: "initials") as? String == String(name.split(separator: " ").compactMap(\.first)))
                #expect(writer.value(forKey: "bornYear") as? Int32 == Int32(born))
                #expect(writer.value(forKey: "bookCount") as? Int64 == 2)
                let works = ((writer.value(forKey: "works") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "title") as? String }
                #expect(Set(works) == ["\(name.split(separator: " ")[1]) 1", "\(name.split(separator: " ")[1]) 2"])
            }
            let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
            #expect(books.count == 6)
            for book in books {
                let title = try #require(book.value(forKey: "title") as? String)
                let writer = try #require(book.value(forKey: "writer") as? ManagedObject)
                #expect(book.value(forKey: "shouted") as? String == title.uppercased())
                #expect(book.value(forKey: "writerName") as? String == writer.value(forKey: "fullName") as? String)
                #expect(book.value(forKey: "subtitle") as? String == "untitled")
                #expect(book.value(forKey: "rating") as? Double == 4.5)
                #expect(book.value(forKey: "isOnShelf") as? Bool == true)
                #expect(book.value(forKey: "note") as? String == "none")   // no expression: the default
                #expect(book.value(forKey: "pages") as? Int64 != nil)
            }
            let tags = try JournalFixture.objects("Tag", by: "label", in: context)
            #expect(Set(tags.keys) == ["red", "blue"])
            // Tag.books has no expression: the books' tags made it through the inverse.
            #expect(tags.values.allSatisfy { (($0.value(forKey: "books") as? Set<ManagedObject>)?.count ?? 0) > 0 })
            let tagged = books.map { ((($0.value(forKey: "tags") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "label") as? String }).sorted() }
            #expect(tagged.flatMap { $0 }.count == 8)
        }
    }

    // MARK: Override points

    /// Records each call, `<step> <mapping>`, in a log shared by the policies of one migration.
    final class RecordingPolicy: EntityMigrationPolicy {
        let log: LockedBox<[String]>
        init(log: LockedBox<[String]>) {
            self.log = log
            super.init()
        }
        required init() { log = LockedBox([]) }

        override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
            log.mutate { $0.append("begin \(mapping.name)") }
            #expect(manager.currentEntityMapping?.name == mapping.name)
        }
        override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            log.mutate { $0.append("create \(mapping.name)") }
            // The default made one object, associated both ways.
            let made = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance])
            #expect(made.count == 1)
            #expect(manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: made).first === sInstance)
            #expect(made.first?.managedObjectContext === manager.destinationContext)
            #expect(sInstance.managedObjectContext === manager.sourceContext)
        }
        override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
            log.mutate { $0.append("endInstanceCreation \(mapping.name)") }
        }
        override func createRelationships(forDestination dInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createRelationships(forDestination: dInstance, in: mapping, manager: manager)
            log.mutate { $0.append("createRelationships \(mapping.name)") }
        }
        override func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
            log.mutate { $0.append("endRelationshipCreation \(mapping.name)") }
        }
        override func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
            log.mutate { $0.append("performCustomValidation \(mapping.name)") }
            // Every destination object of the mapping exists, with its relationships, before the save.
            #expect(!manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: nil).isEmpty)
        }
        override func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
            log.mutate { $0.append("end \(mapping.name)") }
        }
        override func evaluateFunction(_ selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
            "\(selector)"
        }
    }

    @Test func theOverridePointsRunInCoreDatasOrder() throws {
        let url = try writeVersion1()
        let log = LockedBox<[String]>([])
        let registry = Self.registry(["Tests.Recording": { RecordingPolicy(log: log) }])
        try migrate(url, mapping: try Self.mapping(policy: "Tests.Recording", bookPolicy: "Tests.Recording", tagPolicy: "Tests.Recording"),
            registry: registry)
        let (writers, books, tags) = ("AuthorToWriter", "BookToBook", "TagToTag")
        var expected = ["begin \(writers)"] + Array(repeating: "create \(writers)", count: 3) + ["endInstanceCreation \(writers)"]
        expected += ["begin \(books)"] + Array(repeating: "create \(books)", count: 6) + ["endInstanceCreation \(books)"]
        expected += ["begin \(tags)"] + Array(repeating: "create \(tags)", count: 2) + ["endInstanceCreation \(tags)"]
        expected += Array(repeating: "createRelationships \(writers)", count: 3) + ["endRelationshipCreation \(writers)"]
        expected += Array(repeating: "createRelationships \(books)", count: 6) + ["endRelationshipCreation \(books)"]
        expected += Array(repeating: "createRelationships \(tags)", count: 2) + ["endRelationshipCreation \(tags)"]
        expected += [writers, books, tags].map { "performCustomValidation \($0)" } + [writers, books, tags].map { "end \($0)" }
        #expect(log.value == expected)
        // The recording policy answers initials: with the selector.
        let context = try open(url)
        let migrated = try context.performAndWait { try context.fetch(FetchRequest<ManagedObject>(entityName: "Writer")) }
        #expect(migrated.count == 3)
        #expect(context.performAndWait { migrated.allSatisfy { $0.value(forKey: "initials") as? String == "initials:" } })
    }

    /// A policy that throws in one step: the store stays as it was.
    final class FailingPolicy: EntityMigrationPolicy {
        let step: String
        init(step: String) {
            self.step = step
            super.init()
        }
        required init() { step = "" }
        override func createRelationships(forDestination dInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            if step == "createRelationships" { throw QuireError(.validationMissingMandatoryProperty, "No relationships today.") }
            try super.createRelationships(forDestination: dInstance, in: mapping, manager: manager)
        }
        override func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
            if step == "performCustomValidation" { throw QuireError(.validationMissingMandatoryProperty, "Invalid today.") }
        }
        override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
            if step == "cancel" { manager.cancelMigration(with: QuireError(.migration, "The user changed their mind.")) }
        }
    }

    @Test(arguments: ["createRelationships", "performCustomValidation", "cancel"])
    func aPolicyThatFailsOrCancelsLeavesTheStoreAsItWas(step: String) throws {
        let url = try writeVersion1()
        let before = try Data(contentsOf: url)
        let registry = Self.registry(["Tests.Failing": { FailingPolicy(step: step) }])
        let error = expectError(step == "cancel" ? .migrationCancelled : .entityMigrationPolicy) {
            try migrate(url, mapping: try Self.mapping(bookPolicy: "Tests.Failing"), registry: registry)
        }
        switch step {
        case "createRelationships":
            #expect(error?.message.contains("The policy Tests.Failing of the entity mapping 'BookToBook' failed in createRelationships for x-coredata://") == true,
                "\(error?.message ?? "")")
            #expect(error?.context.object != nil)
        case "performCustomValidation":
            #expect(error?.message.contains("failed in performCustomValidation: Invalid today.") == true, "\(error?.message ?? "")")
        default:
            #expect(error?.message.contains("The user changed their mind.") == true, "\(error?.message ?? "")")
            #expect((error?.underlying as? QuireError)?.message == "The user changed their mind.")
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains(".migration-") }.isEmpty)
    }

    @Test func aFunctionThePolicyDoesNotAnswerFailsNamingIt() throws {
        let url = try writeVersion1()
        let registry = EntityMigrationPolicyRegistry()
        registry.register(EntityMigrationPolicy.self, as: "Tests.WriterPolicy")
        let error = expectError(.entityMigrationPolicy) { try migrate(url, mapping: try Self.mapping(), registry: registry) }
        #expect(error?.message.contains("does not answer the function 'initials:'") == true, "\(error?.message ?? "")")
    }

    @Test func expressionsThatCannotBeEvaluatedAreRefusedBeforeAnythingIsWritten() throws {
        let url = try writeVersion1()
        let before = try Data(contentsOf: url)
        var mapping = try Self.mapping()
        // An attribute given objects, a relationship given a mapping the model does not have.
        mapping.entityMappings[1].attributeMappings.append(PropertyMapping(
            name: "subtitle", valueExpression: try MappingExpression(format:
                "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"TagToTag\", $source.tags)")))
        var error = expectError(.migration) { try migrate(url, mapping: mapping) }
        #expect(error?.message.contains("the entity mapping 'BookToBook' maps 'subtitle'") == true && error?.message.contains("gives objects") == true,
            "\(error?.message ?? "")")
        mapping = try Self.mapping()
        mapping.entityMappings[0].relationshipMappings[0].valueExpression = try MappingExpression(format:
            "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"NovelToNovel\", $source.books)")
        error = expectError(.migration) { try migrate(url, mapping: mapping) }
        #expect(error?.message.contains("no entity mapping of the mapping model is named 'NovelToNovel'") == true, "\(error?.message ?? "")")
        #expect(try Data(contentsOf: url) == before)
    }

    /// The Journal's inferred mapping run on managed objects (a policy class on every mapping): the same store as
    /// the row-by-row migration makes, the photos in external data files carried over as the same files, unread.
    @Test(arguments: migratableStoreTypes)
    func managedObjectsMigrateWhatRowsMigrate(type: StoreType) throws {
        let journal = try JournalFixture(in: folder, type: type, name: "Journal.\(type.rawValue.lowercased())")
        var mapping = try MappingModel.inferredMappingModel(forSourceModel: journal.versions[0], destinationModel: journal.versions[1])
        for index in mapping.entityMappings.indices where [.copy, .transform].contains(mapping.entityMappings[index].mappingType) {
            mapping.entityMappings[index].entityMigrationPolicyClassName = "Tests.Plain"
        }
        let registry = EntityMigrationPolicyRegistry()
        registry.register(EntityMigrationPolicy.self, as: "Tests.Plain")
        let manager = MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1])
        manager.policyRegistry = registry
        try manager.migrateStore(at: journal.url, type: type, mapping: mapping)
        let (coordinator, context) = try journal.open(version: 1)
        defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
        try context.performAndWait { try journal.expectVersion2(context) }
        try journal.expectExternalDataIntact()
        try journal.expectNoLeftovers()
    }

    /// v2 makes tag labels unique while the store has two "red" tags: the migration does not merge them into one
    /// (losing an object); it fails, naming the conflict, and the store stays as it was.
    @Test func aMigrationThatWouldLoseObjectsIsRefused() throws {
        let url = try writeVersion1(duplicateTag: true)
        let before = try Data(contentsOf: url)
        #expect(throws: QuireError.self) { try migrate(url, mapping: try Self.mapping(), model: Self.version2(uniqueLabels: true)) }
        #expect(try Data(contentsOf: url) == before)
    }
}
