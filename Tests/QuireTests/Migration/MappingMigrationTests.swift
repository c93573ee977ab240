import Foundation
import OrderedCollections
import Synchronization
import Testing

import Quire

/// Migrations with explicit mapping models, and graphs with every kind of relationship.
@Suite struct MappingMigrationTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// Upper-cases tag names and counts the tags it saw.
    final class Counter: Sendable {
        let value = Mutex(0)
    }

    struct ShoutingTags: MigrationPolicy {
        let seen: Counter
        func begin(_ mapping: EntityMapping, manager: MigrationManager) throws {
            #expect(manager.currentEntityMapping?.name == mapping.name)
        }
        func createDestinationValues(
            forSource source: MigrationSourceObject, proposedValues: [String: AttributeValue], mapping: EntityMapping,
            manager: MigrationManager
        ) throws -> [String: AttributeValue]? {
            seen.value.withLock { $0 += 1 }
            guard case .string(let name)? = source["name"] else { return proposedValues }
            var values = proposedValues
            values["name"] = .string(name.uppercased())
            return values
        }
    }

    @Test(arguments: migratableStoreTypes)
    func anExplicitMappingComputesValuesFiltersObjectsAndRunsPolicies(type: StoreType) async throws {
        let journal = try JournalFixture(in: folder, type: type, name: "Journal.\(type.rawValue.lowercased())")
        let (v1, v2) = (journal.versions[0], journal.versions[1])
        let policy = ShoutingTags(seen: Counter())
        let entries = EntityMapping(
            mappingType: .transform, sourceEntityName: "Entry", destinationEntityName: "Entry",
            attributeMappings: [
                PropertyMapping(name: "title", valueExpression: .expression(try QueryExpression(format: "$source.title"))),
                PropertyMapping(name: "text", valueExpression: .custom { source in
                    guard case .string(let body)? = source["body"] else { return .null }
                    return .string("[\(body)]")
                }),
                PropertyMapping(name: "wordCount", valueExpression: .custom { source in
                    guard case .string(let body)? = source["body"] else { return .integer(0) }
                    return .integer(Int64(body.split(separator: " ").count))
                }),
                .copy("created"), .copy("photo"),
                PropertyMapping(name: "mood", valueExpression: .expression(try QueryExpression(format: "mood"))),
            ],
            relationshipMappings: [.copy("notebook"), .copy("tags")],
            sourceFilter: try QueryPredicate(format: "$source.mood >= 0"))
        let notebooks = EntityMapping(mappingType: .copy, sourceEntityName: "Notebook", destinationEntityName: "Notebook")
        let tags = EntityMapping(
            mappingType: .custom, sourceEntityName: "Tag", destinationEntityName: "Tag",
            attributeMappings: [.copy("name"), PropertyMapping(name: "color", valueExpression: .constant(.string("blue")))],
            relationshipMappings: [.copy("entries")], migrationPolicy: policy)
        let places = EntityMapping(mappingType: .add, sourceEntityName: nil, destinationEntityName: "Place")
        let mapping = MappingModel(entityMappings: [tags, notebooks, entries, places])

        let manager = MigrationManager(sourceModel: v1, destinationModel: v2)
        manager.batchSize = 7
        let updates = manager.progressUpdates()
        try manager.migrateStore(at: journal.url, type: type, mapping: mapping)
        var reports: [MigrationProgress] = []
        for await progress in updates { reports.append(progress) }
        #expect(reports.last?.phase == .finished && reports.last?.fractionCompleted == 1)
        #expect(reports.contains { $0.entityMappingName == "EntryToEntry" && $0.phase == .copyingObjects })
        #expect(policy.seen.value.withLock { $0 } == 3)
        #expect(manager.currentEntityMapping == nil)

        let (_, context) = try journal.open(version: 1)
        let kept = (0..<JournalFixture.entryCount).filter { JournalFixture.mood($0) >= 0 }
        let migrated = try JournalFixture.objects("Entry", by: "title", in: context)
        #expect(migrated.keys.sorted() == kept.map { "Entry \($0)" }.sorted())
        for i in kept {
            let entry = try #require(migrated["Entry \(i)"])
            #expect(entry.value(forKey: "text") as? String == JournalFixture.body(i).map { "[\($0)]" })
            #expect(entry.value(forKey: "wordCount") as? Int32 == Int32(JournalFixture.body(i)?.split(separator: " ").count ?? 0))
            #expect(entry.value(forKey: "mood") as? Int32 == Int32(JournalFixture.mood(i)))
            #expect(entry.value(forKey: "photo") as? Data == JournalFixture.photo(i))
            let names = (entry.value(forKey: "tags") as? Set<ManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }
            #expect(Set(names ?? []) == Set(JournalFixture.tags(i).map { $0.uppercased() }))
        }
        let books = try JournalFixture.objects("Notebook", by: "name", in: context)
        let work = (books["Work"]?.value(forKey: "entries") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String ?? "" }
        #expect(work == JournalFixture.notebookOrder(named: "Work").filter { migrated[$0] != nil })
        #expect(books["Untitled"] != nil)
        let tagObjects = try JournalFixture.objects("Tag", by: "name", in: context)
        #expect(Set(tagObjects.keys) == ["RED", "GREEN", "BLUE"])
        #expect(tagObjects.values.allSatisfy { $0.value(forKey: "color") as? String == "blue" })
    }

    @Test func anExplicitMappingThatNamesMissingPropertiesIsRefusedBeforeAnythingIsWritten() throws {
        let journal = try JournalFixture(in: folder)
        let bad = EntityMapping(
            mappingType: .transform, sourceEntityName: "Entry", destinationEntityName: "Entry",
            attributeMappings: [.copy("title", from: "headline")])
        let manager = MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1])
        let error = expectError(.migration) { try manager.migrateStore(at: journal.url, type: .sqlite, mapping: MappingModel(entityMappings: [bad])) }
        #expect(error?.message.contains("reads 'headline', which is not a stored attribute of 'Entry'") == true)
        try journal.expectVersion1Intact()
    }

    @Test func aRequiredAttributeLeftEmptyFailsNamingTheObjectAndProperty() throws {
        let journal = try JournalFixture(in: folder)
        // Titles are required in v2; a mapping that does not fill them has no default to fall back on.
        let entries = EntityMapping(
            mappingType: .transform, sourceEntityName: "Entry", destinationEntityName: "Entry", attributeMappings: [.copy("created")])
        let manager = MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1])
        let error = expectError(.migration) {
            try manager.migrateStore(at: journal.url, type: .sqlite, mapping: MappingModel(entityMappings: [entries]))
        }
        #expect(error?.context.entity == "Entry" && error?.context.key == "title")
        #expect(error?.context.object != nil)
        try journal.expectVersion1Intact()
    }

    @Test func subEntitiesOneToOneManyToManyAndOrderedRelationshipsSurvive() throws {
        let url = folder.file("Company.sqlite")
        let v1 = Fixtures.companyModel()
        do {
            let (coordinator, context) = try Fixtures.stack(v1, at: url)
            let model = coordinator.managedObjectModel
            func make(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
                let object = ManagedObject(entity: try #require(model.entitiesByName[entity]), insertInto: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let sales = try make("Department", ["name": "Sales"])
            let lab = try make("Department", ["name": "Lab"])
            var people: [ManagedObject] = []
            for i in 0..<5 {
                let person = try make(i == 0 ? "Manager" : "Employee", ["name": "P\(i)", "salary": Int64(1000 * i), "department": i < 3 ? sales : lab])
                if i == 0 { person.setValue(Int16(3), forKey: "level") }
                if i < 3 { _ = try make("Badge", ["code": "B\(i)", "owner": person]) }
                people.append(person)
            }
            for p in 0..<2 {
                let project = try make("Project", ["title": "Project \(p)"])
                for person in people where Int(person.value(forKey: "salary") as? Int64 ?? 0) / 1000 % 2 == p {
                    project.addObject(person, toRelationship: "members")
                }
                for t in (0..<4).reversed() { project.addObject(try make("Task", ["title": "T\(p).\(t)"]), toRelationship: "tasks") }
            }
            try context.save()
        }
        // v2: Department renamed Division, Employee gains an optional email.
        let v2 = try ManagedObjectModel(serializedRepresentation: v1.serializedRepresentation())
        let division = try #require(v2.entitiesByName["Department"])
        division.name = "Division"
        division.renamingIdentifier = "Department"
        for entity in v2.entities {
            for case let relationship as RelationshipDescription in entity.properties where relationship.destinationEntityName == "Department" {
                relationship.destinationEntityName = "Division"
            }
        }
        v2.entitiesByName["Employee"]?.properties.append(AttributeDescription(name: "email", type: .string))
        var options = StoreOptions()
        options.migratesAutomatically = true
        options.infersMappingModel = true
        let (_, context) = try Fixtures.stack(v2, at: url, options: options)

        let employees = try JournalFixture.objects("Employee", by: "name", in: context)
        #expect(employees.count == 5)
        let manager = try #require(employees["P0"])
        #expect(manager.entity.name == "Manager" && manager.value(forKey: "level") as? Int16 == 3)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Manager")) == 1)
        for i in 0..<5 {
            let person = try #require(employees["P\(i)"])
            #expect(person.value(forKey: "salary") as? Int64 == Int64(1000 * i))
            let department = person.value(forKey: "department") as? ManagedObject
            #expect(department?.entity.name == "Division")
            #expect(department?.value(forKey: "name") as? String == (i < 3 ? "Sales" : "Lab"))
            let badge = person.value(forKey: "badge") as? ManagedObject
            #expect(badge?.value(forKey: "code") as? String == (i < 3 ? "B\(i)" : nil))
            let projects = (person.value(forKey: "projects") as? Set<ManagedObject>)?.compactMap { $0.value(forKey: "title") as? String }
            #expect(projects == ["Project \(i % 2)"])
        }
        let projects = try JournalFixture.objects("Project", by: "title", in: context)
        for p in 0..<2 {
            let tasks = (projects["Project \(p)"]?.value(forKey: "tasks") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String ?? "" }
            #expect(tasks == (0..<4).reversed().map { "T\(p).\($0)" })
        }
        let divisions = try JournalFixture.objects("Division", by: "name", in: context)
        #expect((divisions["Sales"]?.value(forKey: "employees") as? Set<ManagedObject>)?.count == 3)
    }

    @Test func orderedManyToManyRelationshipsKeepBothOrders() throws {
        func model(extra: Bool) -> ManagedObjectModel {
            let playlist = EntityDescription(name: "Playlist", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "songs", destination: "Song", toMany: true, isOrdered: true, inverse: "playlists"),
            ])
            let song = EntityDescription(name: "Song", properties: [
                AttributeDescription(name: "title", type: .string),
                RelationshipDescription(name: "playlists", destination: "Playlist", toMany: true, isOrdered: true, inverse: "songs"),
            ])
            if extra { song.properties.append(AttributeDescription(name: "rating", type: .integer16, defaultValue: 3)) }
            return ManagedObjectModel(entities: [playlist, song])
        }
        let url = folder.file("Music.sqlite")
        do {
            let (coordinator, context) = try Fixtures.stack(model(extra: false), at: url)
            let entities = coordinator.managedObjectModel.entitiesByName
            let songs = try (0..<4).map { i -> ManagedObject in
                let song = ManagedObject(entity: try #require(entities["Song"]), insertInto: context)
                song.setValue("S\(i)", forKey: "title")
                return song
            }
            var playlists: [ManagedObject] = []
            for (name, order) in [("A", [3, 1, 0]), ("B", [0, 2, 3])] {
                let playlist = ManagedObject(entity: try #require(entities["Playlist"]), insertInto: context)
                playlist.setValue(name, forKey: "name")
                playlist.setValue(OrderedSet(order.map { songs[$0] }), forKey: "songs")
                playlists.append(playlist)
            }
            try context.save()
            // Against the order the playlists were made in, so no default order hides a lost one. (A separate
            // save: the SQLite store drops the inverse side's order of rows inserted in the same save.)
            songs[0].setValue(OrderedSet([playlists[1], playlists[0]]), forKey: "playlists")
            try context.save()
        }
        func orders(_ context: ManagedObjectContext) throws -> [String: [String]] {
            var result: [String: [String]] = [:]
            for playlist in try JournalFixture.objects("Playlist", by: "name", in: context).values {
                result[playlist.value(forKey: "name") as? String ?? ""] =
                    (playlist.value(forKey: "songs") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String ?? "" }
            }
            for song in try JournalFixture.objects("Song", by: "title", in: context).values {
                result[song.value(forKey: "title") as? String ?? ""] =
                    (song.value(forKey: "playlists") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "name") as? String ?? "" }
            }
            return result
        }
        let before: [String: [String]]
        do {
            let (coordinator, context) = try Fixtures.stack(model(extra: false), at: url)
            before = try orders(context)
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        // Songs first: the side whose order a store may write only once the other side's rows exist.
        let (v1, v2) = (model(extra: false), model(extra: true))
        var mapping = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        mapping.entityMappings.reverse()
        #expect(mapping.entityMappings.first?.name == "SongToSong")
        try MigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(at: url, type: .sqlite, mapping: mapping)
        let (_, context) = try Fixtures.stack(model(extra: true), at: url)
        #expect(try orders(context) == before)
        #expect(before["A"] == ["S3", "S1", "S0"] && before["S0"] == ["B", "A"])
        #expect(try context.fetch(FetchRequest<ManagedObject>(entityName: "Song")).allSatisfy { $0.value(forKey: "rating") as? Int16 == 3 })
    }
}
