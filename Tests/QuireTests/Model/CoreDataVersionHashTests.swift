import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// Quire's entity version hashes are Core Data's: the hashes real Core Data stores carry in their metadata
/// (`NSStoreModelVersionHashes`) equal those Quire computes for the Xcode model that wrote them.
@Suite struct CoreDataVersionHashTests {
    /// Store, model bundle and version; between them: inheritance three deep, uniqueness constraints, a renamed
    /// entity, preserve-after-deletion, transient attributes, transformable, UUID, URI and Decimal attributes,
    /// and a relationship whose minCount is set on an optional relationship (Core Data 419 to 1344).
    static let cases: [(store: String, model: String, version: String)] = [
        ("CoreDataPlus/SampleModel_V1.sqlite", "CoreDataPlus/SampleModel.xcdatamodeld", "SampleModel"),
        ("CoreDataPlus/SampleModel_V2.sqlite", "CoreDataPlus/SampleModel.xcdatamodeld", "SampleModel2"),
        ("CoreDataPlus/SampleModel3_V1.sqlite", "CoreDataPlus/SampleModel3.xcdatamodeld", "SampleModel3"),
        ("BookMigration/Model1.sqlite", "BookMigration/Model.xcdatamodeld", "Model1"),
    ]

    @Test(arguments: cases) func hashesEqualThoseCoreDataStored(_ testCase: (store: String, model: String, version: String)) throws {
        let metadata = try SQLiteStore.readMetadata(at: try FixtureFiles.url("CoreData/" + testCase.store))
        let dictionary = try #require(metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue)
        let stored = dictionary.compactMapValues(\.dataValue)
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/" + testCase.model))
        let model = try #require(bundle.model(named: testCase.version))
        let computed = model.entityVersionHashesByName
        #expect(Set(computed.keys) == Set(stored.keys))
        for (name, hash) in stored.sorted(by: { $0.key < $1.key }) {
            #expect(computed[name] == hash, "\(name): \(computed[name]?.base64EncodedString() ?? "none") != \(hash.base64EncodedString())")
        }
        #expect(model.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func sha512() {
        let abc = SHA512.hash(Data("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(abc == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        let long = SHA512.hash(Data(repeating: 0x61, count: 1000)).prefix(8).map { String(format: "%02x", $0) }.joined()
        #expect(long == "67ba5535a46e3f86")
    }

    /// A new store's metadata carries Core Data's digest and checksum of its hashes: for the models of the corpus,
    /// the very values Core Data wrote.
    @Test(arguments: [cases[0], cases[1], cases[2]])
    func newStoresCarryCoreDatasDigestAndChecksum(_ testCase: (store: String, model: String, version: String)) throws {
        let stored = try SQLiteStore.readMetadata(at: try FixtureFiles.url("CoreData/" + testCase.store))
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/" + testCase.model))
        let model = try #require(bundle.model(named: testCase.version))
        let folder = try TemporaryFolder()
        let url = folder.file("New.sqlite")
        do { _ = try Fixtures.stack(model, at: url) }
        let written = try SQLiteStore.readMetadata(at: url)
        let digest = StoreMetadataKey.modelVersionHashesDigest
        #expect(written[digest] != nil)
        #expect(written[digest] == stored[digest])
        if let checksum = stored[StoreMetadataKey.modelVersionChecksum] {
            #expect(written[StoreMetadataKey.modelVersionChecksum] == checksum)
        }
    }

    @Test func checksumIsCoreDatas() throws {
        let metadata = try SQLiteStore.readMetadata(at: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel3_V1.sqlite"))
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel3.xcdatamodeld"))
        let model = try #require(bundle.model(named: "SampleModel3"))
        let stored = try #require(metadata["NSStoreModelVersionChecksumKey"]?.stringValue)
        #expect(CoreDataVersionHash.checksum(model.entityVersionHashesByName) == stored)
    }

    /// Stores Quire wrote before it followed Core Data's algorithm carry its former hashes; they still open with
    /// their model, and other hashes are still refused.
    @Test func storesWithQuiresFormerHashesStillOpen() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Company.sqlite")
        func write(_ hashes: [String: Data]) throws {
            let (coordinator, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
            let store = try #require(coordinator.persistentStores.first)
            var metadata = coordinator.metadata(for: store)
            metadata[StoreMetadataKey.modelVersionHashes] = .dictionary(hashes.mapValues { .data($0) })
            coordinator.setMetadata(metadata, for: store)
            let department = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Department"]), insertInto: context)
            department.setValue("R&D", forKey: "name")
            try context.save()
        }
        let model = Fixtures.companyModel()
        try model.freeze()
        #expect(model.legacyEntityVersionHashesByName != model.entityVersionHashesByName)
        try write(model.legacyEntityVersionHashesByName)
        let (_, context) = try Fixtures.stack(Fixtures.companyModel(), at: url)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Department")) == 1)
        var other = model.entityVersionHashesByName
        other["Department"] = Data(repeating: 7, count: 32)
        try write(other)
        #expect(throws: QuireError.self) { try Fixtures.stack(Fixtures.companyModel(), at: url) }
    }
}
