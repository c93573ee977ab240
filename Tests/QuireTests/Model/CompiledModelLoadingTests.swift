import Foundation
import Quire
// Only to make a `.mom` fixture from a model cache (inflating it); the behaviour tested is public.
import QuireCore
import QuireTestSupport
import Testing

/// Compiled models (Core Data's model caches, `.momd` folders, Xcode 3 `elements` models) read through the
/// public API into `ManagedObjectModel`s, checked against the real stores Core Data wrote with them.
@Suite("Compiled models as ManagedObjectModels")
struct CompiledModelLoadingTests {
    private static func fixture(_ path: String) throws -> URL {
        try FixtureFiles.url("CoreData/CompiledModels/\(path)")
    }

    @Test(arguments: ["SampleModel_V1", "SampleModel_V2", "SampleModel2_V1", "SampleModel2_V2", "SampleModel3_V1"])
    func aModelCacheGivesTheEntitiesAndColumnsOfItsStore(store: String) throws {
        let blob = try Data(contentsOf: try Self.fixture("ModelCache/\(store).modelcache"))
        let model = try ManagedObjectModel(modelCache: blob)
        let schema = try JSONDecoder().decode(
            StoreFacts.self, from: Data(contentsOf: try Self.fixture("Stores/\(store).schema.json")))
        // Every entity row of Z_PRIMARYKEY (history entities from 16001 aside) is an entity of the model, by its
        // name or, for an entity renamed since the store was made, by its renaming identifier.
        let names = Set(model.entities.flatMap { [$0.name] + [$0.renamingIdentifier].compactMap { $0 } })
        for row in schema.entities where row.ent < 16000 {
            #expect(names.contains(row.name), "\(store): \(row.name) of Z_PRIMARYKEY is not in the model")
        }
        #expect(model.entities.count == schema.entities.filter { $0.ent < 16000 }.count)
        // The model read from the cache hashes as Core Data hashed it (NSStoreModelVersionHashes of the store),
        // for the entities the store still names as the model does. Derived attributes and fetched properties are not
        // modelled yet (they are listed as unsupported), so entities with one cannot hash alike.
        for (name, hex) in schema.versionHashes {
            guard let entity = model.entitiesByName[name] else { continue }
            var lineage: [String] = []
            var current: EntityDescription? = entity
            while let next = current {
                lineage.append(next.name)
                current = next.superentity
            }
            let derived = model.unsupportedFeatures.contains { feature in
                (feature.contains("derived attribute") || feature.contains("fetched properties")) && lineage.contains { feature.hasPrefix("\($0).") }
            }
            if derived { continue }
            #expect(entity.versionHash.map { String(format: "%02x", $0) }.joined() == hex, "\(store): \(name)'s version hash")
        }
        // Every stored attribute has its column in its hierarchy's table.
        for entity in model.entities {
            var root = entity
            while let parent = root.superentity { root = parent }
            let table = "Z" + (schema.storedName(of: root) ?? root.name).uppercased()
            let columns = Set(schema.tables[table] ?? [])
            #expect(!columns.isEmpty, "\(store): no table \(table)")
            for attribute in entity.properties.compactMap({ $0 as? AttributeDescription }) where !attribute.isTransient {
                #expect(columns.contains("Z" + attribute.name.uppercased()), "\(store): \(table) has no column for \(entity.name).\(attribute.name)")
            }
        }
    }

    @Test func whatQuireCannotKeepYetIsListedNotDropped() throws {
        let model = try ManagedObjectModel(modelCache: Data(contentsOf: try Self.fixture("ModelCache/SampleModel2_V2.modelcache")))
        let unsupported = model.unsupportedFeatures.joined(separator: "\n")
        // Fetched properties are evaluated now (FetchedPropertyTests), so they are no longer listed.
        #expect(!unsupported.contains("fetched propert"), "\(unsupported)")
        // So are derived attributes of the forms Core Data allows (DerivedAttributeTests).
        #expect(!unsupported.contains("derived attribute"), "\(unsupported)")
        let plain = ManagedObjectModel()
        #expect(plain.unsupportedFeatures.isEmpty)
    }

    @Test func anXcode3ElementsModelOpensLikeAnXcodeModel() throws {
        let folder = try TemporaryFolder()
        let model = folder.url.appendingPathComponent("Recipes.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try Self.fixture("Elements/Recipes.elements"), to: model.appendingPathComponent("elements"))
        let loaded = try ManagedObjectModel(contentsOf: model)
        #expect(loaded.entities.map(\.name).sorted() == ["Image", "Ingredient", "Recipe", "RecipeType"])
        let recipe = try #require(loaded.entitiesByName["Recipe"])
        #expect(recipe.relationshipsByName["ingredients"]?.isToMany == true)
    }

    @Test func aMomdFolderOpensItsCurrentVersion() throws {
        let folder = try TemporaryFolder()
        let momd = folder.url.appendingPathComponent("SampleModel3.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: try Self.fixture("VersionInfo/SampleModel3.VersionInfo.plist"), to: momd.appendingPathComponent("VersionInfo.plist"))
        // The current version's .mom is the keyed archive the store's model cache deflates.
        let cache = try Data(contentsOf: try Self.fixture("ModelCache/SampleModel3_V1.modelcache"))
        let version = try Self.currentVersionName(momd)
        try Self.inflate(cache).write(to: momd.appendingPathComponent(version + ".mom"))
        let model = try ManagedObjectModel(contentsOf: momd)
        #expect(model.entities.map(\.name) == ["User"])
    }

    @Test func damagedCompiledModelsThrowNamingTheFile() throws {
        let folder = try TemporaryFolder()
        let cache = try Data(contentsOf: try Self.fixture("ModelCache/SampleModel_V1.modelcache"))
        let error = try #require(throws: QuireError.self) { try ManagedObjectModel(modelCache: cache.prefix(cache.count / 2), file: folder.url) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.context.file == folder.url)
        let mom = folder.file("Broken.mom")
        try Data("bplist00 not really".utf8).write(to: mom)
        #expect(throws: QuireError.self) { try ManagedObjectModel(contentsOf: mom) }
    }

    @Test func aStoreIsOpenedWithItsEmbeddedModelThenTheModelFileThenItsModelCache() throws {
        let folder = try TemporaryFolder()
        // Core Data's store with a model cache: the cache is used.
        let cached = folder.file("SampleModel3_V1.sqlite")
        try FileManager.default.copyItem(at: try Self.fixture("StoreFiles/SampleModel3_V1.sqlite"), to: cached)
        let (fromCache, cacheSource) = try ManagedObjectModel.forStore(at: cached, type: .sqlite)
        #expect(cacheSource == .modelCache)
        #expect(fromCache.entities.map(\.name) == ["User"])
        // Core Data's store without one: refused without a model file, read with it.
        let old = folder.file("Model1.sqlite")
        try FileManager.default.copyItem(at: try Self.fixture("StoreFiles/Model1.sqlite"), to: old)
        let refusal = try #require(throws: QuireError.self) { _ = try ManagedObjectModel.forStore(at: old, type: .sqlite) }
        #expect(refusal.code == .persistentStoreIncompatibleSchema)
        let bundle = try Self.fixture("StoreFiles/Model.xcdatamodeld")
        let (_, fileSource) = try ManagedObjectModel.forStore(at: old, type: .sqlite, modelFile: bundle)
        #expect(fileSource == .file(bundle))
        // A store Quire wrote: its embedded model, whatever file is named.
        let quire = folder.file("Quire.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: bundle))
        try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: quire))
        let (_, embeddedSource) = try ManagedObjectModel.forStore(at: quire, type: .sqlite, modelFile: bundle)
        #expect(embeddedSource == .embedded)
    }

    // MARK: Helpers

    private static func currentVersionName(_ momd: URL) throws -> String {
        let data = try Data(contentsOf: momd.appendingPathComponent("VersionInfo.plist"))
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        return try #require(plist["NSManagedObjectModel_CurrentVersionName"] as? String)
    }

    /// The keyed archive a model cache deflates: what a `.mom` file holds.
    private static func inflate(_ blob: Data) throws -> Data { try RawInflate.inflate(blob) }
}

/// Facts read from a real store with sqlite3 (see `Fixtures/CoreData/CompiledModels/SOURCES.md`).
private struct StoreFacts: Decodable {
    struct Entity: Decodable {
        var ent: Int
        var name: String
    }
    var entities: [Entity]
    var tables: [String: [String]]
    /// `NSStoreModelVersionHashes` of `Z_METADATA`, hex.
    var versionHashes: [String: String]

    /// The name the store's `Z_PRIMARYKEY` gives an entity (it keeps the old name of a renamed one).
    func storedName(of entity: EntityDescription) -> String? {
        let names = Set(entities.map(\.name))
        if names.contains(entity.name) { return entity.name }
        return entity.renamingIdentifier.flatMap { names.contains($0) ? $0 : nil }
    }
}
