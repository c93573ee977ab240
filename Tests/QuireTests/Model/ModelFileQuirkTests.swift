import Foundation
import Quire
// `CompiledModel`'s compiler-version fields and the archive writer of the tests have no public face.
import QuireCore
import QuireTestSupport
import Testing

/// Model files that Xcode and momc accept and a strict reader would refuse (issue 27, item 2), each read
/// through the public API from the real file (`Fixtures/CoreData`, see SOURCES.md there) or, where the corpus
/// has none Quire may copy, from the smallest input that mirrors one (`Fixtures/CoreData/Constructed/README.md`).
@Suite("Model file quirks")
struct ModelFileQuirkTests {
    static func fixture(_ path: String) throws -> URL {
        try FixtureFiles.url("CoreData/\(path)")
    }

    // MARK: Integer defaults "NO" and "YES"

    @Test func integerAttributesWithBooleanDefaultTextsReadAsZeroAndOne() throws {
        let model = try ManagedObjectModel(contentsOf: try Self.fixture("Constructed/IntegerBooleanDefaults.xcdatamodel"))
        let conversation = try #require(model.entitiesByName["Conversation"])
        let muted = try #require(conversation.attributesByName["mutedStatus"])
        #expect(muted.attributeType == .integer32)
        // Wire's model caches hold this default as the integer 0.
        #expect(muted.defaultValue as? Int32 == 0)
        let pinned = try #require(conversation.attributesByName["pinnedRank"])
        #expect(pinned.attributeType == .integer16)
        #expect(pinned.defaultValue as? Int16 == 1)
        #expect(conversation.attributesByName["archived"]?.defaultValue as? Bool == false)
        #expect(model.unsupportedFeatures.isEmpty)
        // Other words stay invalid integers.
        let text = try String(contentsOf: try Self.fixture("Constructed/IntegerBooleanDefaults.xcdatamodel/contents"), encoding: .utf8)
        let folder = try TemporaryFolder()
        let bad = folder.file("Bad.xcdatamodel")
        try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: true)
        try text.replacingOccurrences(of: "defaultValueString=\"YES\"", with: "defaultValueString=\"MAYBE\"")
            .write(to: bad.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        #expect(throws: QuireError.self) { try ManagedObjectModel(contentsOf: bad) }
    }

    // MARK: Property proxies of 2016-era model caches

    @Test func aModelCacheListingInheritedPropertiesAsProxiesReadsAsItsEntities() throws {
        let folder = try TemporaryFolder()
        let mom = folder.file("Messages.mom")
        try PropertyProxyArchive.make().write(to: mom)
        let model = try ManagedObjectModel(compiledModelAt: mom)
        #expect(model.unsupportedFeatures.isEmpty, "\(model.unsupportedFeatures)")
        let message = try #require(model.entitiesByName["Message"])
        let text = try #require(model.entitiesByName["TextMessage"])
        #expect(text.superentity === message)
        // The proxy stands for the superentity's own property: inherited, not declared twice.
        #expect(text.properties.map(\.name) == ["text"])
        let expiration = try #require(text.attributesByName["expirationDate"])
        #expect(expiration.attributeType == .date)
        #expect(expiration.isOptional)
        #expect(expiration === message.attributesByName["expirationDate"])
        // The model opens a store and takes objects of both entities.
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("Messages.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let object = ManagedObject(entity: text, insertInto: context)
            object.setValue("hello", forKey: "text")
            object.setValue(Date(timeIntervalSinceReferenceDate: 1000), forKey: "expirationDate")
            try context.save()
        }
        try coordinator.remove(store)
    }

    @Test func aProxyWithoutAPropertyIsRefused() throws {
        let folder = try TemporaryFolder()
        let mom = folder.file("Broken.mom")
        try PropertyProxyArchive.make(underlying: .string("not a property")).write(to: mom)
        #expect(throws: QuireError.self) { try ManagedObjectModel(compiledModelAt: mom) }
    }

    // MARK: Compiler versions in newer .mom files

    @Test func compilerVersionKeysAreMetadataNotUnsupportedFeatures() throws {
        let momd = try Self.fixture("CartKit/CartStorage.momd")
        let model = try ManagedObjectModel(compiledModelAt: momd)
        #expect(!model.unsupportedFeatures.contains { $0.contains("CDMCompiler") }, "\(model.unsupportedFeatures)")
        let compiled = try CompiledModelDecoder.decode(contentsOf: momd.appendingPathComponent("CartStorage.mom"))
        #expect(compiled.compilerToolVersion == "24512")
        #expect(compiled.compilerXcodeVersion == "260200")
        #expect(compiled.warnings.isEmpty, "\(compiled.warnings)")
    }

    // MARK: .momd folders without a current version

    @Test func aMomdNamingNoCurrentVersionReadsItsOnlyVersion() throws {
        let momd = try Self.fixture("CartKit/CartStorage.momd")
        let model = try ManagedObjectModel(compiledModelAt: momd)
        #expect(Set(model.entitiesByName.keys) == ["CDCart", "CDCartItem", "CDCartItemModifier"])
        // The version CartKit's store was written with, by the store's own hashes.
        let folder = try TemporaryFolder()
        let store = folder.file("CartStorage_v1.sqlite")
        try FileManager.default.copyItem(at: try Self.fixture("CartKit/CartStorage_v1.sqlite"), to: store)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: store)
        #expect(model.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        let (chosen, source) = try ManagedObjectModel.forStore(at: store, type: .sqlite, modelFile: momd)
        #expect(source == .file(momd))
        #expect(chosen.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func aMomdNamingNoCurrentVersionReadsTheNewest() throws {
        let folder = try TemporaryFolder()
        let momd = folder.file("XCServerCoreData.momd")
        try FileManager.default.copyItem(at: try Self.fixture("XCServerCoreData/XCServerCoreData.momd"), to: momd)
        let infoURL = momd.appendingPathComponent("VersionInfo.plist")
        var info = try #require(
            try PropertyListSerialization.propertyList(from: Data(contentsOf: infoURL), format: nil) as? [String: Any])
        #expect(info.removeValue(forKey: "NSManagedObjectModel_CurrentVersionName") as? String == "XCServerCoreData2.0.2")
        try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0).write(to: infoURL)
        let newest = try ManagedObjectModel(compiledModelAt: momd)
        let current = try ManagedObjectModel(compiledModelAt: momd.appendingPathComponent("XCServerCoreData2.0.2.mom"))
        #expect(newest.entityVersionHashesByName == current.entityVersionHashesByName)
        #expect(newest.entityVersionHashesByName != (try ManagedObjectModel(
            compiledModelAt: momd.appendingPathComponent("XCServerCoreData2.0.1.mom"))).entityVersionHashesByName)
        // Versions order by their numbers, not their characters.
        #expect(ModelVersionInfo.versionOrder("Model1.9.0", "Model1.10.0"))
        #expect(!ModelVersionInfo.versionOrder("Model1.10.0", "Model1.9.0"))
        #expect(ModelVersionInfo.versionOrder("Model", "Model 2"))
        #expect(ModelVersionInfo.versionOrder("Model 2", "Model 10"))
        #expect(ModelVersionInfo.versionOrder("XCServerCoreData", "XCServerCoreData1.1.0"))
    }

    @Test func aMomdOpensAStoreWithTheVersionItsHashesName() throws {
        let folder = try TemporaryFolder()
        let store = folder.file("XCServerCoreData_2.0.0_empty.sqlite")
        try FileManager.default.copyItem(at: try Self.fixture("XCServerCoreData/XCServerCoreData_2.0.0_empty.sqlite"), to: store)
        let momd = try Self.fixture("XCServerCoreData/XCServerCoreData.momd")
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: store)
        // The current version (2.0.2) is not the store's; version 2.0.0 is.
        #expect(!(try ManagedObjectModel(compiledModelAt: momd)).isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        let (model, source) = try ManagedObjectModel.forStore(at: store, type: .sqlite, modelFile: momd)
        #expect(source == .file(momd))
        #expect(model.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        let version = try ManagedObjectModel(compiledModelAt: momd.appendingPathComponent("XCServerCoreData2.0.0.mom"))
        #expect(model.entityVersionHashesByName == version.entityVersionHashesByName)
    }
}

/// A keyed archive of `NSManagedObjectModel` shaped as the model caches Core Data wrote around 2016 (those of
/// Wire's test stores `store1-24` and `store2-3`, committed 2016-11-24): a sub-entity's `NSProperties`
/// dictionary holds, for each inherited property, a `_NSPropertyDescriptionProxy` with the keys
/// `NSReferenceID`, `NSUnderlyingProperty` (the superentity's own description) and `NSEntityDescription` (the
/// sub-entity), beside its own property descriptions; entities are listed in an `NSDictionary` by name.
enum PropertyProxyArchive {
    static func make(underlying: PropertyListNode? = nil) -> Data {
        var objects: [PropertyListNode] = [.string("$null")]
        func reserve() -> UInt64 {
            objects.append(.null)
            return UInt64(objects.count - 1)
        }
        func add(_ node: PropertyListNode) -> UInt64 {
            objects.append(node)
            return UInt64(objects.count - 1)
        }
        func object(_ classUID: UInt64, _ fields: [String: PropertyListNode]) -> PropertyListNode {
            .dictionary(fields.merging(["$class": .uid(classUID)]) { $1 })
        }
        let model = reserve()  // 1: the root
        let modelClass = add(TestPlistWriter.classEntry("NSManagedObjectModel"))
        let entityClass = add(TestPlistWriter.classEntry("NSEntityDescription"))
        let attributeClass = add(TestPlistWriter.classEntry("NSAttributeDescription", ["NSPropertyDescription", "NSObject"]))
        let proxyClass = add(TestPlistWriter.classEntry("_NSPropertyDescriptionProxy"))
        let dictionaryClass = add(TestPlistWriter.classEntry("NSDictionary"))
        let mutableDictionaryClass = add(TestPlistWriter.classEntry("NSMutableDictionary", ["NSDictionary", "NSObject"]))
        let setClass = add(TestPlistWriter.classEntry("NSMutableSet", ["NSSet", "NSObject"]))
        let message = reserve()
        let textMessage = reserve()
        let messageName = add(.string("Message"))
        let textMessageName = add(.string("TextMessage"))
        let expirationName = add(.string("expirationDate"))
        let textName = add(.string("text"))
        func attribute(_ name: UInt64, entity: UInt64, type: Int64, valueClass: String) -> UInt64 {
            add(object(attributeClass, [
                "NSPropertyName": .uid(name), "NSEntity": .uid(entity), "NSAttributeType": .integer(type),
                "NSAttributeValueClassName": .uid(add(.string(valueClass))), "NSIsOptional": .boolean(true),
                "_P": .integer(243), "NSFlagsKey": .integer(0), "NSDefaultValue": .uid(0),
                "NSValueTransformerName": .uid(0), "NSRenamingIdentifier": .uid(name),
            ]))
        }
        let expiration = attribute(expirationName, entity: message, type: 900, valueClass: "NSDate")
        let text = attribute(textName, entity: textMessage, type: 700, valueClass: "NSString")
        let proxy = add(object(proxyClass, [
            "NSReferenceID": .integer(0), "NSUnderlyingProperty": underlying ?? .uid(expiration),
            "NSEntityDescription": .uid(textMessage),
        ]))
        func dictionary(_ classUID: UInt64, _ entries: [(UInt64, UInt64)]) -> UInt64 {
            add(object(classUID, [
                "NS.keys": .array(entries.map { .uid($0.0) }), "NS.objects": .array(entries.map { .uid($0.1) }),
            ]))
        }
        objects[Int(message)] = object(entityClass, [
            "NSEntityName": .uid(messageName), "NSClassNameForEntity": .uid(add(.string("ZMMessage"))),
            "NSProperties": .uid(dictionary(mutableDictionaryClass, [(expirationName, expiration)])),
            "NSSubentities": .uid(dictionary(dictionaryClass, [(textMessageName, textMessage)])),
            "NSManagedObjectModel": .uid(model), "NSSuperentity": .uid(0), "NSRenamingIdentifier": .uid(messageName),
            "NSVersionHashModifier": .uid(0), "NSUserInfo": .uid(dictionary(dictionaryClass, [])),
        ])
        objects[Int(textMessage)] = object(entityClass, [
            "NSEntityName": .uid(textMessageName), "NSClassNameForEntity": .uid(add(.string("ZMTextMessage"))),
            "NSProperties": .uid(dictionary(mutableDictionaryClass, [(textName, text), (expirationName, proxy)])),
            "NSSubentities": .uid(0), "NSManagedObjectModel": .uid(model), "NSSuperentity": .uid(message),
            "NSRenamingIdentifier": .uid(textMessageName), "NSVersionHashModifier": .uid(0),
            "NSUserInfo": .uid(dictionary(dictionaryClass, [])),
        ])
        objects[Int(model)] = object(modelClass, [
            "NSEntities": .uid(dictionary(dictionaryClass, [(messageName, message), (textMessageName, textMessage)])),
            "NSVersionIdentifiers": .uid(add(object(setClass, ["NS.objects": .array([])]))),
            "NSFetchRequestTemplates": .uid(0),
        ])
        return TestPlistWriter.keyedArchive(objects)
    }
}
