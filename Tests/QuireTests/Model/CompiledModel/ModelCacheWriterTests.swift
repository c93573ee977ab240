import CSQLite
import Foundation
import Quire
// The encoder has no public face: stores write its output (Z_MODELCACHE).
import QuireCore
import QuireTestSupport
import Testing

/// Quire writes its models as Core Data compiles them (issue 27, item 6): a keyed archive of
/// `NSManagedObjectModel`, raw DEFLATE of it in every SQLite store's `Z_MODELCACHE`, that Quire's cache reader
/// and a plain keyed-archive decoder (Foundation's `NSKeyedUnarchiver`) read back as the same model.
@Suite("Model caches Quire writes")
struct ModelCacheWriterTests {
    /// The canonical form of a model, with what a compiled model does not keep: the order of an entity's
    /// properties (an archive lists them in a dictionary, which Quire's reader reads in name order), the class
    /// name Core Data writes for plain entities (`NSManagedObject`, read as none, as the Xcode reader reads an
    /// entity without `representedClassName`), and renaming identifiers equal to the name (Core Data's default).
    static func canonical(_ model: ManagedObjectModel) throws -> String {
        var document = ModelDocument(model: model)
        for index in document.entities.indices {
            if document.entities[index].className == "NSManagedObject" { document.entities[index].className = nil }
            document.entities[index].attributes.sort { $0.name < $1.name }
            document.entities[index].relationships.sort { $0.name < $1.name }
            // A renaming identifier equal to the name (Xcode's `elementID`) is Core Data's default one.
            for position in document.entities[index].attributes.indices
            where document.entities[index].attributes[position].renamingIdentifier == document.entities[index].attributes[position].name {
                document.entities[index].attributes[position].renamingIdentifier = nil
            }
            for position in document.entities[index].relationships.indices
            where document.entities[index].relationships[position].renamingIdentifier == document.entities[index].relationships[position].name {
                document.entities[index].relationships[position].renamingIdentifier = nil
            }
            if document.entities[index].renamingIdentifier == document.entities[index].name { document.entities[index].renamingIdentifier = nil }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }

    /// The first lines where two texts differ, for messages.
    static func firstDifference(_ a: String, _ b: String) -> String {
        let (left, right) = (a.split(separator: "\n"), b.split(separator: "\n"))
        guard let index = left.indices.first(where: { $0 >= right.count || left[$0] != right[$0] }) else { return "\(left.count) against \(right.count) lines" }
        let context = left[max(0, index - 3)..<index].joined(separator: " | ")
        return "after '\(context)': '\(left[index])' instead of '\(index < right.count ? right[index] : "")'"
    }

    /// Models of the corpus (Xcode models of real apps) and of the suite: every one the encoder writes.
    static func models() throws -> [(String, ManagedObjectModel)] {
        var models: [(String, ManagedObjectModel)] = [
            ("company", Fixtures.companyModel()), ("every type", Fixtures.everyTypeModel()),
            ("documents", ModelPerDocument.model()),
        ]
        let root = try FixtureFiles.url("CoreData")
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "xcdatamodel", let model = try? ManagedObjectModel(contentsOf: url) else { continue }
            models.append((url.path.replacingOccurrences(of: root.path + "/", with: ""), model))
        }
        return models.sorted { $0.0 < $1.0 }
    }

    @Test func quiresReaderReadsTheSameModelBack() throws {
        var written = 0
        var refused: [String] = []
        for (name, model) in try Self.models() {
            let archive: Data
            do {
                archive = try ModelCacheEncoder.archive(model)
            } catch let unsupported as ModelCacheEncoder.Unsupported {
                refused.append("\(name): \(unsupported)")
                continue
            }
            let blob = try RawDeflate.deflate(archive)
            let fromCache = try ManagedObjectModel(modelCache: blob)
            #expect(fromCache.unsupportedFeatures.isEmpty, "\(name): \(fromCache.unsupportedFeatures)")
            #expect(fromCache.entityVersionHashesByName == model.entityVersionHashesByName, "\(name): version hashes differ")
            let (read, original) = (try Self.canonical(fromCache), try Self.canonical(model))
            #expect(read == original, "\(name): the model read back differs: \(Self.firstDifference(read, original))")
            written += 1
        }
        // Most real models are written; those with what the encoder leaves out are refused, never written wrong.
        #expect(written >= 20, "only \(written) written; refused: \(refused)")
    }

    @Test func foundationsKeyedUnarchiverReadsTheArchive() throws {
        let model = Fixtures.companyModel()
        let archive = try ModelCacheEncoder.archive(model)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archive)
        unarchiver.requiresSecureCoding = false
        for type in [PlainModel.self, PlainEntity.self, PlainAttribute.self, PlainRelationship.self] as [PlainArchivedObject.Type] {
            unarchiver.setClass(type, forClassName: type.archivedClassName)
        }
        unarchiver.setClass(PlainKnownKeysDictionary.self, forClassName: "NSKnownKeysDictionary1")
        unarchiver.setClass(PlainKnownKeysMapping.self, forClassName: "NSKnownKeysMappingStrategy1")
        let root = try #require(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? PlainArchivedObject)
        unarchiver.finishDecoding()
        #expect(root.className == "NSManagedObjectModel")
        let entities = try #require(root.fields["NSEntities"] as? PlainKnownKeysDictionary)
        #expect(entities.keys == model.entities.map(\.name).sorted())
        for (name, value) in zip(entities.keys, entities.values) {
            let entity = try #require(value as? PlainArchivedObject)
            #expect(entity.fields["NSEntityName"] as? String == name)
            let expected = try #require(model.entitiesByName[name])
            let properties = try #require(entity.fields["NSProperties"] as? NSDictionary)
            let names = properties.allKeys.compactMap { $0 as? String }.sorted()
            #expect(names == expected.propertiesByName.keys.sorted(), "\(name)")
            var checked = 0
            for case let (key as String, property as PlainArchivedObject) in properties {
                #expect(property.fields["NSPropertyName"] as? String == key)
                if let attribute = expected.attributesByName[key] {
                    #expect(property.className == "NSAttributeDescription")
                    #expect((property.fields["NSAttributeType"] as? NSNumber)?.intValue == attribute.attributeType.coreDataCode)
                } else if let relationship = expected.relationshipsByName[key] {
                    #expect(property.className == "NSRelationshipDescription")
                    #expect(property.fields["_NSDestinationEntityName"] as? String == relationship.destinationEntityName)
                    #expect(property.fields["_NSInverseRelationshipName"] as? String == relationship.inverseRelationshipName)
                    #expect((property.fields["NSMaxCount"] as? NSNumber)?.intValue == (relationship.isToMany ? 0 : 1))
                }
                checked += 1
            }
            #expect(checked == names.count)
        }
    }

    @Test func aStoreQuireWritesCarriesItsModelInCoreDatasFormAndOpensWithItAlone() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Company.sqlite")
        do {
            let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
            let department = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Department"]), insertInto: context)
            department.setValue("Research", forKey: "name")
            try context.save()
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "SELECT Z_CONTENT FROM Z_MODELCACHE", -1, &statement, nil) == SQLITE_OK)
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        let blob = Data(bytes: sqlite3_column_blob(statement, 0), count: Int(sqlite3_column_bytes(statement, 0)))
        sqlite3_finalize(statement)
        let cached = try ManagedObjectModel(modelCache: blob)
        #expect(cached.entityVersionHashesByName == Fixtures.companyModel().entityVersionHashesByName)
        // Without Quire's own copy, the store opens with the cache, as a Core Data store does.
        #expect(sqlite3_exec(db, "DROP TABLE Z_QUIREMODEL", nil, nil, nil) == SQLITE_OK)
        let (model, source) = try ManagedObjectModel.forStore(at: url, type: .sqlite)
        #expect(source == .modelCache)
        #expect(try Self.canonical(model) == Self.canonical(Fixtures.companyModel()))
    }

    @Test func whatTheEncoderDoesNotWriteIsRefusedNotWrittenWrong() throws {
        let title = AttributeDescription(name: "title", type: .string)
        title.setValidationPredicates([try QueryPredicate(format: "length >= 3")], withValidationWarnings: ["too short"])
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Book", properties: [title])])
        #expect(throws: ModelCacheEncoder.Unsupported.self) { try ModelCacheEncoder.archive(model) }
        // Its stores carry no cache, and open as before.
        let folder = try TemporaryFolder()
        let url = folder.file("Books.sqlite")
        let (coordinator, _) = try Fixtures.stack(model, at: url)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        #expect(try ManagedObjectModel.forStore(at: url, type: .sqlite).source == .embedded)
    }
}

/// A stand-in for Core Data's archived classes: every field `NSKeyedUnarchiver` decodes for the keys Core Data
/// writes, by key; one subclass per class name the archive holds.
class PlainArchivedObject: NSObject, NSCoding {
    class var archivedClassName: String { "" }
    /// The keys read: not the back-pointers (`NSEntity`, `NSManagedObjectModel`, `NSSuperentity`,
    /// `NSDestinationEntity`, …), which lead back to an object still being decoded, and swift-corelibs-foundation's
    /// unarchiver (unlike Apple's) recurses into such a cycle without end.
    static let keys = [
        "NSEntities", "NSVersionIdentifiers", "NSEntityName", "NSClassNameForEntity", "NSProperties", "NSUserInfo",
        "NSPropertyName", "NSDefaultValue", "_NSDestinationEntityName", "_NSInverseRelationshipName", "NSRenamingIdentifier",
    ]
    static let integerKeys = ["NSAttributeType", "NSMaxCount", "NSMinCount", "NSDeleteRule", "_P"]
    var className: String { Self.archivedClassName }
    var fields: [String: Any] = [:]

    required init?(coder: NSCoder) {
        super.init()
        for key in Self.integerKeys where coder.containsValue(forKey: key) {
            fields[key] = NSNumber(value: coder.decodeInt64(forKey: key))
        }
        for key in Self.keys where coder.containsValue(forKey: key) {
            if let value = coder.decodeObject(forKey: key) { fields[key] = value }
        }
    }

    func encode(with coder: NSCoder) {}
}

final class PlainModel: PlainArchivedObject {
    override class var archivedClassName: String { "NSManagedObjectModel" }
}

final class PlainEntity: PlainArchivedObject {
    override class var archivedClassName: String { "NSEntityDescription" }
}

final class PlainAttribute: PlainArchivedObject {
    override class var archivedClassName: String { "NSAttributeDescription" }
}

final class PlainRelationship: PlainArchivedObject {
    override class var archivedClassName: String { "NSRelationshipDescription" }
}

/// A stand-in for `NSKnownKeysDictionary1`: its keys (from its mapping) and values.
final class PlainKnownKeysDictionary: NSObject, NSCoding {
    var keys: [String] = []
    var values: [Any] = []

    required init?(coder: NSCoder) {
        super.init()
        keys = (coder.decodeObject(forKey: "searchMapping") as? PlainKnownKeysMapping)?.keys ?? []
        values = (coder.decodeObject(forKey: "values") as? NSArray).map { Array($0) } ?? []
    }

    func encode(with coder: NSCoder) {}
}

/// A stand-in for `NSKnownKeysMappingStrategy1`.
final class PlainKnownKeysMapping: NSObject, NSCoding {
    var keys: [String] = []

    required init?(coder: NSCoder) {
        super.init()
        keys = (coder.decodeObject(forKey: "keys") as? NSArray)?.compactMap { $0 as? String } ?? []
    }

    func encode(with coder: NSCoder) {}
}
