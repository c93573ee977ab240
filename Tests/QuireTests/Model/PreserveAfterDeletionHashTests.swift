import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// `preserveAfterDeletion` (`preservesValueInHistoryOnDeletion`) is read from Xcode models and takes part in the
/// entity version hash, as Core Data's own hashes show: CoreDataPlus's `Person.id` carries the flag, and the hash
/// Core Data stored for `Person` in `SampleModel_V1.sqlite` is Quire's with the flag and not without it.
@Suite struct PreserveAfterDeletionHashTests {
    @Test func coreDatasStoredHashIncludesTheFlag() throws {
        let store = try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel_V1.sqlite")
        let metadata = try SQLiteStore.readMetadata(at: store)
        let stored = try #require(metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue?["Person"]?.dataValue)

        let bundleURL = try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel.xcdatamodeld")
        let model = try #require(try ModelBundle(contentsOf: bundleURL).model(named: "SampleModel"))
        let person = try #require(model.entitiesByName["Person"])
        #expect(person.attributesByName["id"]?.preservesValueInHistoryOnDeletion == true)
        #expect(person.attributesByName.values.filter(\.preservesValueInHistoryOnDeletion).map(\.name) == ["id"])
        #expect(person.versionHash == stored)

        // The same model with the flag taken out hashes differently from what Core Data stored.
        let folder = try TemporaryFolder()
        let copy = folder.file("SampleModel.xcdatamodeld")
        try FileManager.default.copyItem(at: bundleURL, to: copy)
        let contents = copy.appendingPathComponent("SampleModel.xcdatamodel/contents")
        let text = try String(contentsOf: contents, encoding: .utf8)
        #expect(text.contains(" preserveAfterDeletion=\"YES\""))
        try text.replacingOccurrences(of: " preserveAfterDeletion=\"YES\"", with: "").write(to: contents, atomically: true, encoding: .utf8)
        let unflagged = try #require(try ModelBundle(contentsOf: copy).model(named: "SampleModel"))
        let plainPerson = try #require(unflagged.entitiesByName["Person"])
        #expect(plainPerson.attributesByName["id"]?.preservesValueInHistoryOnDeletion == false)
        #expect(plainPerson.versionHash != stored)
    }
}
