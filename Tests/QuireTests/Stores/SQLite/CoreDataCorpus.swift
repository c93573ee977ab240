import Foundation
import OrderedCollections
import Testing

import Quire
import QuireCore
import QuireStores

/// Every SQLite store of the Core Data corpus copied into `Fixtures/CoreData` (sources and licences in the
/// SOURCES.md there), with where its model comes from.
struct CorpusStore: Sendable, CustomTestStringConvertible {
    /// Where the model a test opens the store with comes from.
    enum ModelSource: String, Sendable {
        /// The app's Xcode model (the version whose hashes are the store's).
        case modelFile = "model file"
        /// The compiled model Core Data cached in the store (`Z_MODELCACHE`).
        case modelCache = "model cache"
    }

    /// The store, under `Fixtures/CoreData/`.
    let store: String
    /// The app's Xcode model, under `Fixtures/CoreData/`; nil when only the cache has it (a model built in code,
    /// or an app whose model is not public).
    let modelFile: String?
    /// The version of `modelFile` to open it with, when the store's hashes do not pick it (a transcribed model).
    let version: String?
    let source: ModelSource

    var testDescription: String { "\((store as NSString).lastPathComponent) (\(source.rawValue))" }
    var name: String { ((store as NSString).lastPathComponent as NSString).deletingPathExtension }

    /// Every corpus store once per model source it has.
    static let all: [CorpusStore] = {
        let stores: [(String, String?, String?, Bool)] = [
            ("CoreDataPlus/SampleModel_V1.sqlite", "CoreDataPlus/SampleModel.xcdatamodeld", nil, true),
            ("CoreDataPlus/SampleModel_V2.sqlite", "CoreDataPlus/SampleModel.xcdatamodeld", nil, true),
            // SampleModel2's model is built in code: its stores' cache is the model (the transcription in
            // SampleModel2.xcdatamodeld changes types that do not change the tables; CoreDataStoreTests uses it).
            ("CoreDataPlus/SampleModel2_V1.sqlite", nil, nil, true),
            ("CoreDataPlus/SampleModel2_V2.sqlite", nil, nil, true),
            ("CoreDataPlus/SampleModel3_V1.sqlite", "CoreDataPlus/SampleModel3.xcdatamodeld", nil, true),
            ("BookMigration/Model1.sqlite", "BookMigration/Model.xcdatamodeld", nil, false),
            ("MagicalRecord/Recipes.sqlite", "MagicalRecord/Recipes.xcdatamodeld", nil, false),
            ("CartKit/CartStorage_v1.sqlite", "CartKit/CartStorage.xcdatamodeld", nil, true),
            ("AppleNotes/NoteStore-macOS-15-Seqoia.sqlite", nil, nil, true),
            ("XCServerCoreData/XCServerCoreData_1.2.0.sqlite", "XCServerCoreData/XCServerCoreData.xcdatamodeld", nil, true),
            ("XCServerCoreData/XCServerCoreData_2.0.0_empty.sqlite", "XCServerCoreData/XCServerCoreData.xcdatamodeld", nil, true),
            ("XCServerCoreData/XCServerCoreData_2.0.1.sqlite", "XCServerCoreData/XCServerCoreData.xcdatamodeld", nil, true),
            ("Moody/Moody.moody", "Models/objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld", nil, true),
            ("Moody/Moody 2.moody", "Models/objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld", nil, true),
            ("Moody/Moody 3.moody", "Models/objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld", nil, true),
        ]
        var result: [CorpusStore] = []
        for (store, modelFile, version, hasCache) in stores {
            if let modelFile { result.append(CorpusStore(store: store, modelFile: modelFile, version: version, source: .modelFile)) }
            if hasCache { result.append(CorpusStore(store: store, modelFile: modelFile, version: version, source: .modelCache)) }
        }
        return result
    }()

    /// Every corpus store once: with its model file where it has one, else with its model cache.
    static var oncePerStore: [CorpusStore] {
        var seen: Set<String> = []
        return all.filter { seen.insert($0.store).inserted }
    }

    /// The model file's URL, when the store is opened with it.
    func modelFileURL() throws -> URL? {
        guard source == .modelFile, let modelFile else { return nil }
        return try FixtureFiles.url("CoreData/" + modelFile)
    }

    /// Copies the store into `folder`, writable (the corpus's write-ahead logs are empty and left out).
    func copy(into folder: TemporaryFolder, as name: String? = nil) throws -> URL {
        let source = try FixtureFiles.url("CoreData/" + store)
        let url = folder.file(name ?? source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        return url
    }

    /// The model the store is opened with.
    func model(for url: URL) throws -> ManagedObjectModel {
        if let version, let modelFile = try modelFileURL() {
            return try #require(try ModelBundle(contentsOf: modelFile).model(named: version))
        }
        let (model, found) = try ManagedObjectModel.forStore(at: url, type: .sqlite, modelFile: try modelFileURL())
        switch source {
        case .modelCache: #expect(found == .modelCache, "\(found)")
        case .modelFile: #expect(found != .modelCache, "\(found)")
        }
        return model
    }
}

/// What `sqlite3` reads from a store, without Quire: rows per entity and the relationships' key pairs.
enum CorpusSQL {
    /// Entity numbers and names of `Z_PRIMARYKEY` (history entities left out).
    static func entities(_ url: URL) throws -> [Int: String] {
        var names: [Int: String] = [:]
        for line in try sqlite3(url, "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16000").split(separator: "\n") {
            let parts = line.split(separator: "|", maxSplits: 1).map(String.init)
            if parts.count == 2, let number = Int(parts[0]) { names[number] = parts[1] }
        }
        return names
    }

    /// The store's tables and their columns.
    static func tables(_ url: URL) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        let names = try sqlite3(url, "SELECT name FROM sqlite_master WHERE type = 'table'").split(separator: "\n").map(String.init)
        for table in names {
            result[table] = try sqlite3(url, "SELECT name FROM pragma_table_info('\(table)')").split(separator: "\n").map(String.init)
        }
        return result
    }

    /// Rows per entity name: `SELECT Z_ENT, COUNT(*)` of every entity table.
    static func rowCounts(_ url: URL) throws -> [String: Int] {
        let names = try entities(url)
        var counts: [String: Int] = [:]
        for table in try tables(url).keys where isEntityTable(table) {
            for line in try sqlite3(url, "SELECT Z_ENT, COUNT(*) FROM \(table) GROUP BY Z_ENT").split(separator: "\n") {
                let parts = line.split(separator: "|").map(String.init)
                guard parts.count == 2, let number = Int(parts[0]), let name = names[number], let count = Int(parts[1]) else { continue }
                counts[name, default: 0] += count
            }
        }
        return counts
    }

    static func isEntityTable(_ name: String) -> Bool { name.hasPrefix("Z") && !name.hasPrefix("Z_") }

    /// Key pairs `(a, b)` of two columns of a table, non-null.
    static func pairs(_ url: URL, table: String, _ a: String, _ b: String) throws -> Set<[Int64]> {
        var result: Set<[Int64]> = []
        for line in try sqlite3(url, "SELECT \(a), \(b) FROM \(table) WHERE \(a) IS NOT NULL AND \(b) IS NOT NULL").split(separator: "\n") {
            let parts = line.split(separator: "|").compactMap { Int64($0) }
            if parts.count == 2 { result.insert(parts) }
        }
        return result
    }

    /// A column name made of `base` and, when `suffixed`, a number after it (`ZACCOUNT3`, `Z_23USERS1`).
    static func matches(_ column: String, _ base: String) -> Bool {
        guard column.hasPrefix(base) else { return false }
        return column.dropFirst(base.count).allSatisfy(\.isNumber)
    }
}

/// The relationships of a store's objects as Quire reads them: per relationship (`Entity.name`), the set of
/// `(owner key, member key)` pairs.
struct QuireEdges {
    var pairs: [String: Set<[Int64]>] = [:]
    var counts: [String: Int] = [:]

    init(_ context: ManagedObjectContext, model: ManagedObjectModel) throws {
        for entity in model.entities where !entity.isAbstract {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            request.includesSubentities = false
            let objects = try context.fetch(request)
            counts[entity.name] = objects.count
            for object in objects {
                #expect(object.entity === entity)
                guard let owner = object.objectID.primaryKey else { continue }
                for relationship in entity.allRelationships where !relationship.isTransient {
                    let key = "\(relationship.entity?.name ?? "").\(relationship.name)"
                    for member in Self.members(object, relationship) {
                        if let destination = relationship.resolvedDestination {
                            #expect(member.entity.isKind(of: destination), "\(key)")
                        }
                        pairs[key, default: []].insert([owner, member.objectID.primaryKey ?? 0])
                    }
                }
            }
        }
    }

    static func members(_ object: ManagedObject, _ relationship: RelationshipDescription) -> [ManagedObject] {
        let value = object.value(forKey: relationship.name)
        if let single = value as? ManagedObject { return [single] }
        if let set = value as? Set<ManagedObject> { return Array(set) }
        guard let sequence = value as? any Sequence else { return [] }
        return sequence.compactMap { $0 as? ManagedObject }
    }
}

/// The changes a test saves into a copy of a corpus store, chosen from what the store holds: an edit of a string
/// attribute, an insert into a leaf sub-entity (a copy of one of its objects; a leaf without a superentity when
/// the model has no inheritance, defaults only in an empty store), a many-to-many link added and one removed, an
/// ordered relationship reversed, and a delete (the first other object whose deletion every rule allows).
final class CorpusSavePlan {
    private(set) var edited: (URL, String)?
    private var insertedObject: ManagedObject?
    private(set) var deleted: URL?
    private var linkObjects: (owner: ManagedObject, relationship: RelationshipDescription, added: ManagedObject, removed: ManagedObject?)?
    private(set) var reordered: (owner: URL, relationship: RelationshipDescription, order: [URL])?
    private var hiddenLinkObjects: (owner: ManagedObject, relationship: RelationshipDescription, added: ManagedObject)?
    /// A member added to a to-many relationship without an inverse.
    var hiddenLink: (owner: URL, relationship: RelationshipDescription, added: URL)? {
        hiddenLinkObjects.map { ($0.owner.objectID.uriRepresentation(), $0.relationship, $0.added.objectID.uriRepresentation()) }
    }

    /// What the plan does, for a test's report.
    var summary: String {
        [edited.map { "edit \($0.1)" }, inserted.map { "insert \($0.1)" }, link.map { "link \($0.relationship.name)" + ($0.removed != nil ? " and unlink" : "") },
         hiddenLink.map { "add to \($0.relationship.name)" }, reordered.map { "reorder \($0.relationship.name)" }, deleted.map { _ in "delete" }]
            .compactMap { $0 }.joined(separator: ", ")
    }
    /// Objects per entity name the save adds (positive) or removes (negative).
    private(set) var countChanges: [String: Int] = [:]

    /// The inserted object's permanent URI and entity, once saved.
    var inserted: (URL, String)? { insertedObject.map { ($0.objectID.uriRepresentation(), $0.entity.name) } }
    var link: (owner: URL, relationship: RelationshipDescription, added: URL, removed: URL?)? {
        linkObjects.map { ($0.owner.objectID.uriRepresentation(), $0.relationship, $0.added.objectID.uriRepresentation(), $0.removed?.objectID.uriRepresentation()) }
    }

    init(_ context: ManagedObjectContext, model: ManagedObjectModel) throws {
        let entities = model.entities.sorted { $0.name < $1.name }
        func objects(_ entity: EntityDescription, subentities: Bool = false) throws -> [ManagedObject] {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            request.includesSubentities = subentities
            return try context.fetch(request).filter { !$0.isDeleted }.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        }

        // Edit: a string attribute that no uniqueness constraint or derivation involves, to a value that passes
        // its validation.
        editing: for entity in entities where !entity.isAbstract {
            let constrained = Set(Self.lineage(entity).flatMap { $0.uniquenessConstraints.flatMap { $0 } })
            for attribute in entity.allAttributes
            where attribute.attributeType == .string && !attribute.isTransient && attribute.derivationExpression == nil
                && !constrained.contains(attribute.name)
            {
                guard let object = try objects(entity).first else { continue editing }
                let old = object.value(forKey: attribute.name)
                object.setValue("Changed by Quire", forKey: attribute.name)
                if (try? object.validateForUpdate()) != nil {
                    edited = (object.objectID.uriRepresentation(), attribute.name)
                    break editing
                }
                object.setValue(old, forKey: attribute.name)
            }
        }

        // Insert into a leaf sub-entity (or a leaf, without inheritance), copying an object of it.
        let leaves = entities.filter { !$0.isAbstract && $0.subentities.isEmpty }
        for entity in leaves.filter({ $0.superentity != nil }) + leaves.filter({ $0.superentity == nil }) {
            var made: [ManagedObject] = []
            // A template whose required to-many relationships have their members (the copy needs some too).
            let existing = try objects(entity)
            let template = existing.first { object in
                entity.allRelationships.allSatisfy { !$0.isToMany || QuireEdges.members(object, $0).count >= Self.required($0) }
            } ?? existing.first
            if let copy = try Self.copy(of: entity, template: template, in: context, made: &made, depth: 0),
                made.allSatisfy({ (try? $0.validateForInsert()) != nil })
            {
                insertedObject = copy
                for object in made { countChanges[object.entity.name, default: 0] += 1 }
                break
            }
            for object in made { context.delete(object) }
            context.processPendingChanges()
        }

        // A many-to-many link added, and one removed (of the same owner, or of another when it has none).
        linking: for entity in entities {
            for case let relationship as RelationshipDescription in entity.properties where relationship.isToMany && !relationship.isTransient {
                guard let inverse = relationship.resolvedInverse, inverse.isToMany, inverse !== relationship,
                    let destination = relationship.resolvedDestination
                else { continue }
                let owners = try objects(entity, subentities: true).filter { !$0.isInserted }
                let members = try objects(destination, subentities: true).filter { !$0.isInserted }
                for owner in owners {
                    var current = Set(QuireEdges.members(owner, relationship))
                    guard let added = members.first(where: { !current.contains($0) }) else { continue }
                    let removed = current.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }.first
                    if let removed { current.remove(removed) }
                    current.insert(added)
                    owner.setValue(current, forKey: relationship.name)
                    linkObjects = (owner, relationship, added, removed)
                    break linking
                }
            }
        }

        // A member added to a to-many relationship without an inverse (Core Data's hidden column of the members'
        // table): the inserted object when it fits, else another object of the destination.
        adding: for entity in entities {
            for case let relationship as RelationshipDescription in entity.properties
            where relationship.isToMany && !relationship.isTransient && relationship.resolvedInverse == nil {
                guard let destination = relationship.resolvedDestination, let owner = try objects(entity, subentities: true).first(where: { !$0.isInserted })
                else { continue }
                var current = QuireEdges.members(owner, relationship)
                let others = try objects(destination, subentities: true).filter { member in !current.contains { $0 === member } }
                var candidate = insertedObject.flatMap { $0.entity.isKind(of: destination) ? $0 : nil } ?? others.first
                if candidate == nil, !destination.isAbstract {
                    // None to add: a new one, its required values made up.
                    let made = ManagedObject(entity: destination, insertInto: context)
                    Self.fill(made)
                    if (try? made.validateForInsert()) != nil {
                        candidate = made
                        countChanges[destination.name, default: 0] += 1
                    } else {
                        context.delete(made)
                        context.processPendingChanges()
                    }
                }
                guard let member = candidate else { continue }
                current.append(member)
                if relationship.isOrdered {
                    owner.setValue(OrderedSet(current), forKey: relationship.name)
                } else {
                    owner.setValue(Set(current), forKey: relationship.name)
                }
                hiddenLinkObjects = (owner, relationship, member)
                break adding
            }
        }

        // An ordered relationship reversed.
        reordering: for entity in entities {
            for case let relationship as RelationshipDescription in entity.properties where relationship.isOrdered && !relationship.isTransient {
                for owner in try objects(entity, subentities: true) where !owner.isInserted {
                    let members = QuireEdges.members(owner, relationship)
                    guard members.count > 1 else { continue }
                    owner.setValue(OrderedSet(members.reversed()), forKey: relationship.name)
                    reordered = (owner.objectID.uriRepresentation(), relationship, members.reversed().map { $0.objectID.uriRepresentation() })
                    break reordering
                }
            }
        }
    
        // Delete: the first object not involved above whose deletion (with its cascades) leaves every object it
        // changes valid, tried in a scratch context first.
        let involved = Set([edited?.0, insertedObject?.objectID.uriRepresentation(), linkObjects?.owner.objectID.uriRepresentation(),
            hiddenLinkObjects?.owner.objectID.uriRepresentation(), hiddenLinkObjects?.added.objectID.uriRepresentation(),
            linkObjects?.added.objectID.uriRepresentation(), linkObjects?.removed?.objectID.uriRepresentation(), reordered?.owner].compactMap { $0 })
        deleting: for entity in entities where !entity.isAbstract {
            for object in try objects(entity).prefix(3) where !object.isInserted && !involved.contains(object.objectID.uriRepresentation()) {
                let scratch = ManagedObjectContext()
                scratch.persistentStoreCoordinator = context.persistentStoreCoordinator
                let trial = try scratch.existingObject(with: object.objectID)
                scratch.delete(trial)
                scratch.processPendingChanges()
                guard (try? trial.validateForDelete()) != nil,
                    scratch.updatedObjects.allSatisfy({ (try? $0.validateForUpdate()) != nil }),
                    !scratch.deletedObjects.contains(where: { involved.contains($0.objectID.uriRepresentation()) })
                else { continue }
                deleted = object.objectID.uriRepresentation()
                context.delete(object)
                context.processPendingChanges()
                for gone in context.deletedObjects { countChanges[gone.entity.name, default: 0] -= 1 }
                break deleting
            }
        }
    }

    /// A new object of `entity` copying `template` (strings and UUIDs made unique, integers of uniqueness
    /// constraints moved out of the way, to-one relationships shared except one-to-one ones), or with made-up
    /// required values when there is no template. A to-many relationship that must have members gets new copies
    /// of the template's (two levels deep), or shares them when its inverse is to-many. Every object made is
    /// appended to `made`.
    static func copy(
        of entity: EntityDescription, template: ManagedObject?, in context: ManagedObjectContext, made: inout [ManagedObject], depth: Int
    ) throws -> ManagedObject? {
        let copy = ManagedObject(entity: entity, insertInto: context)
        made.append(copy)
        guard let template else {
            fill(copy)
            return copy
        }
        let constrained = Set(lineage(entity).flatMap { $0.uniquenessConstraints.flatMap { $0 } })
        for attribute in entity.allAttributes where !attribute.isTransient && attribute.derivationExpression == nil {
            var value = template.value(forKey: attribute.name)
            if value is String { value = "Quire \(UUID().uuidString.prefix(8))" }
            if value is UUID { value = UUID() }
            if constrained.contains(attribute.name) {
                if let number = value as? Int64 { value = number &+ 10_000 }
                if let number = value as? Int32 { value = number &+ 10_000 }
                if let number = value as? Int16 { value = number &+ 10_000 }
            }
            // Through validation: a transformable read without its app's transformer is raw data.
            try? copy.setValidatedValue(value, forKey: attribute.name)
        }
        for relationship in entity.allRelationships where !relationship.isTransient {
            if !relationship.isToMany {
                if relationship.resolvedInverse.map({ !$0.isToMany }) == true { continue }
                copy.setValue(template.value(forKey: relationship.name), forKey: relationship.name)
                continue
            }
            let count = required(relationship)
            guard count > 0 else { continue }
            let members = QuireEdges.members(template, relationship)
            var taken: [ManagedObject] = []
            if relationship.resolvedInverse?.isToMany != false {
                taken = Array(members.prefix(count))
            } else if depth < 2 {
                for member in members.prefix(count) {
                    guard let memberCopy = try Self.copy(of: member.entity, template: member, in: context, made: &made, depth: depth + 1)
                    else { continue }
                    taken.append(memberCopy)
                }
            }
            copy.setValue(relationship.isOrdered ? OrderedSet(taken) as Any : Set(taken) as Any, forKey: relationship.name)
        }
        return copy
    }

    /// How many members a to-many relationship must have (a non-optional one at least one).
    static func required(_ relationship: RelationshipDescription) -> Int {
        max(relationship.minCount, relationship.isOptional ? 0 : 1)
    }

    /// Gives an object without values one of each required attribute that has no default.
    static func fill(_ object: ManagedObject) {
        for attribute in object.entity.allAttributes
        where !attribute.isTransient && !attribute.isOptional && attribute.derivationExpression == nil && object.value(forKey: attribute.name) == nil {
            let value: Any?
            switch attribute.attributeType {
            case .string, .uri: value = attribute.attributeType == .uri ? URL(string: "https://example.com/quire") : "Quire \(UUID().uuidString.prefix(8))"
            case .integer16: value = Int16(0)
            case .integer32: value = Int32(0)
            case .integer64: value = Int64(0)
            case .double: value = 0.0
            case .float: value = Float(0)
            case .decimal: value = Decimal(0)
            case .boolean: value = false
            case .date: value = Date(timeIntervalSinceReferenceDate: 0)
            case .uuid: value = UUID()
            case .binaryData: value = Data([1, 2, 3])
            default: value = nil
            }
            try? object.setValidatedValue(value, forKey: attribute.name)
        }
    }

    /// An entity and its ancestors.
    static func lineage(_ entity: EntityDescription) -> [EntityDescription] {
        var result: [EntityDescription] = []
        var current: EntityDescription? = entity
        while let next = current {
            result.append(next)
            current = next.superentity
        }
        return result
    }
}
