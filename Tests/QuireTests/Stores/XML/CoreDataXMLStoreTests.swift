import Foundation
import QuireTestSupport
import Testing

import Quire
import QuireCore
import QuireStores

/// Real XML stores written by Core Data (Xcode's mapping models, `.xcmappingmodel/xcmapping.xml`; see
/// Fixtures/CoreData/XML/SOURCES.md), opened with a model derived from the files themselves
/// (`XcodeMapping.xcdatamodel`): every object read as its entity, every relationship resolved, and the graph
/// unchanged through SQLite, binary and back to XML.
@Suite struct CoreDataXMLStoreTests {
    static let files = [
        "BookMigration-Model1_to_Model2.xml", "BookMigration-Model2_to_Model3.xml", "BookMigration-Model2_to_Model3_User.xml",
        "CoreStore-V1.FromV2.xml", "CoreStore-V2.FromV1.xml", "Moody-2-3.xml", "Moody-3-4.xml", "Moody-4-5.xml", "Moody-5-6.xml",
    ]

    /// The entities whose stored version hash the derived model reproduces byte for byte.
    static let reproducedHashes = ["XDDevAttributeMapping", "XDDevMappingModel", "XDDevPropertyMapping", "XDDevRelationshipMapping"]

    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: try FixtureFiles.url("CoreData/XML/XcodeMapping.xcdatamodel"))
    }

    static func text(_ file: String) throws -> String {
        try String(contentsOf: try FixtureFiles.url("CoreData/XML/" + file), encoding: .utf8)
    }

    /// The file as Core Data wrote it, but for the stored hash of `XDDevEntityMapping`, replaced by the derived
    /// model's: that entity has a property no file shows (its hash is the one the model cannot reproduce).
    func copy(_ file: String, model: ManagedObjectModel) throws -> URL {
        var text = try Self.text(file)
        let stored = "qeN1Ym3TkWN1G6dU9RfX6Kd2ccEvcDVWHpd3LpLgboI="
        let derived = try #require(model.entitiesByName["XDDevEntityMapping"]).versionHash.base64EncodedString()
        #expect(text.contains(stored))
        text = text.replacingOccurrences(of: stored, with: derived)
        let url = folder.file(file)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Occurrences of `needle` in `text`.
    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// The object ids every `idrefs` lists, in all.
    static func idrefCount(in text: String) -> Int {
        text.components(separatedBy: "idrefs=\"").dropFirst().reduce(0) { total, part in
            total + (part.split(separator: "\"", maxSplits: 1).first?.split(separator: " ").count ?? 0)
        }
    }

    @Test func theDerivedModelReproducesCoreDatasVersionHashes() throws {
        let model = try Self.model()
        try model.freeze()
        for file in Self.files {
            let metadata = try XMLStore.readMetadata(at: try FixtureFiles.url("CoreData/XML/" + file))
            let stored = try #require(metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue)
            #expect(Set(stored.keys) == Set(model.entitiesByName.keys), "\(file)")
            for name in Self.reproducedHashes {
                #expect(stored[name]?.dataValue == model.entitiesByName[name]?.versionHash, "\(file): \(name)")
            }
            // Core Data's files have no NSStoreType; Quire reads them as what they are.
            #expect(metadata[StoreMetadataKey.storeType] == .string("XML"))
        }
    }

    @Test(arguments: files) func opensAndReadsEveryObject(_ file: String) throws {
        let model = try Self.model()
        let text = try Self.text(file)
        let url = try copy(file, model: model)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .xml, at: url)
        let uuid = try #require(text.components(separatedBy: "<UUID>").dropFirst().first?.components(separatedBy: "</UUID>").first)
        #expect(store.identifier == uuid)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        var members = 0
        for entity in model.entities {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            request.includesSubentities = false
            let objects = try context.fetch(request)
            #expect(objects.count == Self.count("<object type=\"\(entity.name.uppercased())\"", in: text), "\(file): \(entity.name)")
            for object in objects {
                for relationship in entity.allRelationships {
                    let value = object.value(forKey: relationship.name)
                    let related = (value as? Set<ManagedObject>).map(Array.init) ?? (value as? ManagedObject).map { [$0] } ?? []
                    members += related.count
                    for member in related {
                        let back = member.value(forKey: relationship.resolvedInverse?.name ?? "")
                        let backs = (back as? Set<ManagedObject>).map(Array.init) ?? (back as? ManagedObject).map { [$0] } ?? []
                        #expect(backs.contains { $0 === object }, "\(file): \(entity.name).\(relationship.name) inverse")
                    }
                }
            }
        }
        #expect(members == Self.idrefCount(in: text), "\(file)")
        #expect(members > 0)
    }

    @Test(arguments: files) func convertsToSQLiteAndBinaryAndBackUnchanged(_ file: String) throws {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        let cli = try CLIHarness(executable: executable)
        let model = try Self.model()
        let url = try copy(file, model: model)
        try FileManager.default.copyItem(at: url, to: cli.folder.file("store.xml"))
        let modelPath = try FixtureFiles.url("CoreData/XML/XcodeMapping.xcdatamodel").path
        for (from, to) in [("store.xml", "store.sqlite"), ("store.sqlite", "store.binary"), ("store.binary", "back.xml")] {
            let result = try cli.run("convert", from, to, "--model", modelPath)
            #expect(result.status == 0, "\(file): \(from) to \(to): \(result)")
        }
        for output in ["store.sqlite", "store.binary", "back.xml"] {
            let diff = try cli.run("diff", "store.xml", output, "--model", modelPath)
            #expect(diff.status == 0, "\(file): \(output): \(diff)")
            #expect(diff.stdout.contains("hold the same object graph"), "\(file): \(output): \(diff)")
        }
        // Written as Core Data writes it: entity names upper-cased, property names lower-cased.
        let back = try String(contentsOf: cli.folder.file("back.xml"), encoding: .utf8)
        #expect(back.contains("<object type=\"XDDEVMAPPINGMODEL\""))
        #expect(back.contains("<attribute name=\"sourcemodelpath\" type=\"string\">"))
        #expect(back.contains("<relationship name=\"entitymappings\" type=\"0/0\" destination=\"XDDEVENTITYMAPPING\""))
        #expect(!back.contains("name=\"sourceModelPath\""))
    }

    @Test func opensAStoreWithoutDatabaseInfoOrMetadata() throws {
        let model = try Self.model()
        let text = try Self.text("Moody-2-3.xml")
        let start = try #require(text.range(of: "<databaseInfo>"))
        let end = try #require(text.range(of: "</databaseInfo>"))
        // The oldest Core Data stores: no <databaseInfo> at all; and one with an empty <metadata>.
        let variants = [
            "none.xml": text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: ""),
            "empty.xml": text.replacingCharacters(
                in: start.lowerBound..<end.upperBound,
                with: "<databaseInfo><version>134481920</version><nextObjectID>200</nextObjectID><metadata></metadata></databaseInfo>"),
        ]
        for (name, variant) in variants {
            let url = folder.file(name)
            try Data(variant.utf8).write(to: url)
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            var options = StoreOptions()
            options.isReadOnly = true
            let store = try coordinator.addPersistentStore(type: .xml, at: url, options: options)
            // No UUID in the file: one made up for as long as the store is open.
            #expect(UUID(uuidString: store.identifier) != nil, "\(name)")
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            let request = FetchRequest<ManagedObject>(entityName: "XDDevAttributeMapping")
            #expect(try context.count(for: request) == Self.count("<object type=\"XDDEVATTRIBUTEMAPPING\"", in: text), "\(name)")
        }
    }

    /// A model with two properties that differ only in case cannot use an XML store: Core Data writes both
    /// lower-cased, so a file of it cannot tell them apart. Reading such a file and writing one are refused
    /// alike, naming both.
    @Test func refusesAModelWithTwoPropertiesThatDifferOnlyInCase() throws {
        let entity = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "title", type: .string), AttributeDescription(name: "Title", type: .string),
        ])
        let model = ManagedObjectModel(entities: [entity])
        let url = folder.file("clash.xml")
        let xml = """
            <?xml version="1.0" standalone="no"?>
            <database>
                <databaseInfo><version>134481920</version><UUID>E7248607-A19C-432D-BA56-9629746E4B54</UUID><nextObjectID>2</nextObjectID><metadata></metadata></databaseInfo>
                <object type="ITEM" id="z1"><attribute name="title" type="string">x</attribute></object>
            </database>
            """
        try Data(xml.utf8).write(to: url)
        for target in [url, folder.file("new.xml")] {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: .xml, at: target) }
            let cause = (error.underlying as? QuireError) ?? error
            #expect(cause.code == .persistentStoreIncompatibleSchema)
            #expect(
                cause.message.contains("the attributes 'Title' and 'title' of entity 'Item' would both be written as 'title'"),
                "\(cause.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("new.xml").path))
    }
}
