import Foundation
import OrderedCollections
import Testing

import Quire
import QuireCore
import QuireStores

/// Every SQLite store of the Core Data corpus (Fixtures/CoreData, see SOURCES.md there), opened with its app's
/// model and with the model Core Data cached in it: every entity counted and every relationship followed as
/// `sqlite3` reads the file, converted to XML, binary and a package (and zip and tar) and back without a
/// difference, each conversion opening alone, and a save into a copy (an edit, an insert into a leaf
/// sub-entity, a delete, a many-to-many link added and one removed, an ordered relationship reordered where the
/// model has one) that reopens as saved and leaves the schema as Core Data made it.
@Suite struct CoreDataCorpusTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    func open(_ corpus: CorpusStore, _ url: URL, readOnly: Bool = true) throws -> (PersistentStoreCoordinator, ManagedObjectContext, ManagedObjectModel) {
        let model = try corpus.model(for: url)
        var options = StoreOptions()
        options.isReadOnly = readOnly
        let (coordinator, context) = try Fixtures.stack(model, at: url, options: options)
        return (coordinator, context, model)
    }

    /// The entity version hashes Quire computes for the model a store opens with (its app's model file, or the
    /// model Core Data cached in it) are the ones Core Data stored in its metadata, entity for entity.
    @Test(arguments: CorpusStore.all) func versionHashesAreThoseCoreDataStored(_ corpus: CorpusStore) throws {
        let url = try corpus.copy(into: folder)
        let model = try corpus.model(for: url)
        let metadata = try SQLiteStore.readMetadata(at: url)
        let stored = try #require(metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue).compactMapValues(\.dataValue)
        let computed = model.entityVersionHashesByName
        #expect(Set(computed.keys) == Set(stored.keys))
        for (name, hash) in stored.sorted(by: { $0.key < $1.key }) {
            #expect(computed[name] == hash, "\(name): \(computed[name]?.base64EncodedString() ?? "none") != \(hash.base64EncodedString())")
        }
    }

    @Test(arguments: CorpusStore.all) func countsAndTraversesAsSQLiteReadsIt(_ corpus: CorpusStore) throws {
        let url = try corpus.copy(into: folder)
        let (_, context, model) = try open(corpus, url)
        let edges = try QuireEdges(context, model: model)

        // Objects per entity, as Z_ENT counts them (a renamed entity keeps its old Z_NAME).
        let stored = try CorpusSQL.rowCounts(url)
        for entity in model.entities where !entity.isAbstract {
            let expected = stored[entity.name] ?? entity.renamingIdentifier.flatMap { stored[$0] } ?? 0
            #expect(edges.counts[entity.name] == expected, "\(entity.name)")
        }
        #expect(edges.counts.values.reduce(0, +) == stored.values.reduce(0, +))

        let tables = try CorpusSQL.tables(url)
        let numbers = try CorpusSQL.entities(url)
        let entitiesByNumber = numbers.compactMapValues { name in
            model.entitiesByName[name] ?? model.entities.first { $0.renamingIdentifier == name }
        }
        var checked: Set<String> = []

        // To-one relationships: every key column of a hierarchy's table (`Z<REL>`, or `Z<REL><n>` where two
        // entities of the hierarchy have a relationship of that name), as one set of (row, key) pairs.
        for (table, columns) in tables where CorpusSQL.isEntityTable(table) {
            let hierarchy = model.entities.filter { "Z" + $0.rootEntity.name.uppercased() == table || "Z" + ($0.rootEntity.renamingIdentifier ?? "").uppercased() == table }
            let toOne = hierarchy.flatMap { entity in
                entity.properties.compactMap { $0 as? RelationshipDescription }.filter { !$0.isToMany && !$0.isTransient }
            }
            var expected: Set<[Int64]> = []
            for base in Set(toOne.map { "Z" + $0.name.uppercased() }) {
                for column in columns where CorpusSQL.matches(column, base) {
                    expected.formUnion(try CorpusSQL.pairs(url, table: table, "Z_PK", column))
                }
            }
            var read: Set<[Int64]> = []
            for relationship in toOne {
                let key = "\(relationship.entity?.name ?? "").\(relationship.name)"
                read.formUnion(edges.pairs[key] ?? [])
                checked.insert(key)
            }
            #expect(read == expected, "to-one keys of \(table)")

            // Hidden keys of to-many relationships without an inverse: `Z<n><REL>` holds the owner's key.
            // (`Z<n>_<REL>` is a to-one's entity column.)
            for column in columns where column.count > 1 && column.dropFirst().first?.isNumber == true {
                let digits = column.dropFirst().prefix { $0.isNumber }
                let name = String(column.dropFirst(1 + digits.count))
                if name.hasPrefix("_") { continue }
                let owner = Int(digits).flatMap { entitiesByNumber[$0] }
                let relationship = owner?.properties.compactMap { $0 as? RelationshipDescription }
                    .first { $0.isToMany && $0.resolvedInverse == nil && $0.name.uppercased() == name }
                let found = try #require(relationship, "hidden column \(table).\(column) belongs to no relationship")
                let key = "\(found.entity?.name ?? "").\(found.name)"
                #expect((edges.pairs[key] ?? []) == Set(try CorpusSQL.pairs(url, table: table, column, "Z_PK")), "\(key)")
                checked.insert(key)
            }
        }

        // Join tables: `Z_<n><REL>`, its two key columns as the file names them (suffixes, REFLEXIVE).
        for (table, columns) in tables where table.hasPrefix("Z_") && table.dropFirst(2).first?.isNumber == true {
            let digits = table.dropFirst(2).prefix { $0.isNumber }
            let name = String(table.dropFirst(2 + digits.count))
            let owner = try #require(Int(digits).flatMap { entitiesByNumber[$0] }, "join table \(table)")
            let relationship = try #require(
                owner.properties.compactMap { $0 as? RelationshipDescription }.first { $0.isToMany && $0.name.uppercased() == name },
                "join table \(table) belongs to no relationship of \(owner.name)")
            let keys = columns.filter { !$0.hasPrefix("Z_FOK_") }
            #expect(keys.count == 2, "\(table): \(columns)")
            guard keys.count == 2 else { continue }
            let inverse = relationship.resolvedInverse
            let key = "\(owner.name).\(relationship.name)"
            var expected: Set<[Int64]>
            if keys.contains("REFLEXIVE") {
                let other = try #require(keys.first { $0 != "REFLEXIVE" })
                let rows = try CorpusSQL.pairs(url, table: table, other, "REFLEXIVE")
                expected = rows.union(rows.map { [$0[1], $0[0]] })
            } else {
                let inverseName = "Z_\(digits)" + (inverse?.name.uppercased() ?? owner.name.uppercased())
                let ownerColumn = try #require(keys.first { CorpusSQL.matches($0, inverseName) }, "\(table): \(keys)")
                let memberColumn = try #require(keys.first { $0 != ownerColumn })
                expected = try CorpusSQL.pairs(url, table: table, ownerColumn, memberColumn)
            }
            #expect((edges.pairs[key] ?? []) == expected, "\(key) from \(table)")
            checked.insert(key)
            if let inverse, inverse !== relationship, let inverseOwner = inverse.entity {
                let inverseKey = "\(inverseOwner.name).\(inverse.name)"
                #expect((edges.pairs[inverseKey] ?? []) == Set(expected.map { [$0[1], $0[0]] }), "\(inverseKey) from \(table)")
                checked.insert(inverseKey)
            }
        }

        // To-many relationships with a to-one inverse: the inverse's keys, the other way round.
        for entity in model.entities {
            for case let relationship as RelationshipDescription in entity.properties
            where relationship.isToMany && !relationship.isTransient {
                guard let inverse = relationship.resolvedInverse, !inverse.isToMany, let inverseOwner = inverse.entity else { continue }
                let key = "\(entity.name).\(relationship.name)"
                let reversed = Set((edges.pairs["\(inverseOwner.name).\(inverse.name)"] ?? []).map { [$0[1], $0[0]] })
                #expect((edges.pairs[key] ?? []) == reversed, "\(key)")
                checked.insert(key)
            }
        }
        // Every persistent relationship was compared with the file.
        for entity in model.entities {
            for case let relationship as RelationshipDescription in entity.properties where !relationship.isTransient {
                #expect(checked.contains("\(entity.name).\(relationship.name)"), "\(entity.name).\(relationship.name) not checked")
            }
        }
    }

    /// The object graph of a document, opened with the model it embeds (or `modelFile`).
    func dump(_ url: URL, modelFile: URL? = nil) throws -> ObjectGraphDump {
        let contents = try DocumentContents(contentsOf: url)
        defer { contents.close() }
        return try ObjectGraphDump(storeAt: contents.storeURL, type: contents.storeType, modelFile: modelFile)
    }

    /// Conversions, once per store (with its model file where it has one: a copy must then carry that model).
    @Test(arguments: CorpusStore.oncePerStore) func convertsToEveryKindAndBackWithoutADifference(_ corpus: CorpusStore) throws {
        let url = try corpus.copy(into: folder)
        let modelFile = try corpus.modelFileURL()
        let original = try dump(url, modelFile: modelFile)
        // Each conversion opens alone, with the model it embeds, and holds the same graph; XML and binary come
        // back into SQLite stores that hold it too.
        for (name, container, type, back) in [
            ("out.xml", DocumentContents.Container.storeFile, StoreType.xml, true), ("out.binary", .storeFile, .binary, true),
            ("out.quiredoc", .package, .sqlite, false),
        ] {
            let output = folder.file(name)
            do {
                let source = try DocumentContents(contentsOf: url)
                defer { source.close() }
                try source.convert(to: output, container: container, storeType: type, modelFile: modelFile)
            }
            #expect(try dump(output).differences(from: original).isEmpty, "\(name)")
            guard back else { continue }
            let copy = folder.file("back-" + name + ".sqlite")
            do {
                let source = try DocumentContents(contentsOf: output)
                defer { source.close() }
                try source.convert(to: copy, container: .storeFile, storeType: .sqlite)
            }
            #expect(try dump(copy).differences(from: original).isEmpty, "back from \(name)")
        }
        // Archives too carry the model: each opens alone with every object.
        let counts = original.counts
        for (name, container) in [("out.zip", DocumentContents.Container.zipArchive), ("out.tar", .tarArchive)] {
            let output = folder.file(name)
            do {
                let source = try DocumentContents(contentsOf: url)
                defer { source.close() }
                try source.convert(to: output, container: container, storeType: .sqlite, modelFile: modelFile)
            }
            let converted = try DocumentContents(contentsOf: output)
            defer { converted.close() }
            let (model, found) = try ManagedObjectModel.forStore(at: converted.storeURL, type: .sqlite)
            #expect(found == .embedded, "\(name)")
            var options = StoreOptions()
            options.isReadOnly = true
            let (_, context) = try Fixtures.stack(model, at: converted.storeURL, options: options)
            for (entity, count) in counts {
                let request = FetchRequest<ManagedObject>(entityName: entity)
                request.includesSubentities = false
                #expect(try context.count(for: request) == count, "\(name): \(entity)")
            }
        }
    }

    /// The DDL of a store as `sqlite_master` has it.
    func schema(_ url: URL) throws -> String {
        try sqlite3(url, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
    }

    @Test(arguments: CorpusStore.all) func takesASaveIntoACopyThatReopensAsSaved(_ corpus: CorpusStore) throws {
        // MagicalRecord's Recipes app registers a transformer for its thumbnails (UIImage to PNG data); a stand-in
        // keeps the data as it is, which is what a copy of an existing value needs.
        ValueTransformerRegistry.register(CorpusPassThroughTransformer(), forName: "ImageToDataTransformer")
        let url = try corpus.copy(into: folder)
        let schemaBefore = try schema(url)
        var expected = try CorpusSQL.rowCounts(url)
        let plan: CorpusSavePlan
        do {
            let (_, context, model) = try open(corpus, url, readOnly: false)
            plan = try CorpusSavePlan(context, model: model)
            // Where the model has them and the store objects for them: an insert into a sub-entity, a
            // many-to-many link, a member of a to-many without an inverse (every store of the corpus has objects
            // but XCServerCoreData_2.0.0_empty, which still takes the insert).
            let stored = try CorpusSQL.rowCounts(url).values.reduce(0, +)
            if model.entities.contains(where: { $0.superentity != nil && $0.subentities.isEmpty && !$0.isAbstract }) {
                #expect(plan.inserted.flatMap { model.entitiesByName[$0.1]?.superentity } != nil, "\(plan.summary)")
            }
            if stored > 0 {
                #expect(plan.edited != nil && plan.deleted != nil || plan.hiddenLink != nil, "\(plan.summary)")
                let manyToMany = model.entities.contains { $0.allRelationships.contains { $0.isToMany && $0.resolvedInverse?.isToMany == true } }
                if manyToMany { #expect(plan.link?.removed != nil, "\(plan.summary)") }
                if model.entities.contains(where: { $0.allRelationships.contains { $0.isToMany && $0.resolvedInverse == nil } }) {
                    #expect(plan.hiddenLink != nil, "\(plan.summary)")
                }
            }
            try context.save()
            // Counts after the save: one more of the inserted entity, fewer of what the delete took with it.
            for (entity, count) in plan.countChanges {
                let stored = model.entitiesByName[entity]?.renamingIdentifier.flatMap { expected[$0] != nil ? $0 : nil } ?? entity
                expected[stored, default: 0] += count
            }
        }
        #expect(plan.inserted != nil, "nothing inserted: \(plan.summary)")
        // The schema is Core Data's as it was: no table, column, index or trigger added, renamed or dropped.
        #expect(try schema(url) == schemaBefore)
        #expect(try CorpusSQL.rowCounts(url).filter { $0.value != 0 } == expected.filter { $0.value != 0 })

        let (coordinator, context, _) = try open(corpus, url)
        if let (uri, attribute) = plan.edited {
            let object = try context.existingObject(with: try #require(coordinator.managedObjectID(forURIRepresentation: uri)))
            #expect(object.value(forKey: attribute) as? String == "Changed by Quire")
        }
        if let (uri, entity) = plan.inserted {
            let object = try context.existingObject(with: try #require(coordinator.managedObjectID(forURIRepresentation: uri)))
            #expect(object.entity.name == entity)
        }
        if let uri = plan.deleted {
            let id = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
            #expect(throws: QuireError.self) { try context.existingObject(with: id) }
        }
        if let link = plan.link {
            let owner = try context.existingObject(with: try #require(coordinator.managedObjectID(forURIRepresentation: link.owner)))
            let members = Set(QuireEdges.members(owner, link.relationship).map { $0.objectID.uriRepresentation() })
            #expect(members.contains(link.added), "\(link.relationship.name): added member")
            if let removed = link.removed { #expect(!members.contains(removed), "\(link.relationship.name): removed member") }
        }
        if let link = plan.hiddenLink {
            let owner = try context.existingObject(with: try #require(coordinator.managedObjectID(forURIRepresentation: link.owner)))
            #expect(QuireEdges.members(owner, link.relationship).contains { $0.objectID.uriRepresentation() == link.added }, "\(link.relationship.name)")
        }
        if let reorder = plan.reordered {
            let owner = try context.existingObject(with: try #require(coordinator.managedObjectID(forURIRepresentation: reorder.owner)))
            #expect(QuireEdges.members(owner, reorder.relationship).map { $0.objectID.uriRepresentation() } == reorder.order)
        }
        let report = try StoreVerification.report(inStoreAt: url, type: .sqlite, modelFile: try corpus.modelFileURL())
        #expect(report.problems.isEmpty, "\(report.problems.prefix(3))")
    }
}

/// A transformer that stores data as it is (a stand-in for an app's image transformer).
private struct CorpusPassThroughTransformer: AttributeValueTransformer {
    func transformedValue(_ value: Any) throws -> Data {
        guard let data = value as? Data else { throw QuireError(.invalidArgument, "Not data: \(value)") }
        return data
    }
    func reverseTransformedValue(_ data: Data) throws -> Any { data }
}
