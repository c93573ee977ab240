import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// The schema of a store Quire creates for a model against the schema Core Data wrote for the same model
/// (`sqlite3 .schema`), statement by statement; Quire's own `Z_QUIREMODEL` and Core Data's `Z_MODELCACHE` aside.
@Suite struct CoreDataSchemaTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// The statements of `.schema`, one per element, without the model tables.
    func statements(_ url: URL) throws -> Set<String> {
        let text = try sqlite3(url, ".schema")
        return Set(
            text.components(separatedBy: ";\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ";\n ")) }
                .filter { !$0.isEmpty && !$0.contains("Z_QUIREMODEL") && !$0.contains("Z_MODELCACHE") })
    }

    /// Store, model, version, and what Core Data's schema has that Quire's has not (and the reverse).
    static let cases: [(store: String, model: String, version: String, onlyCoreData: Set<String>, onlyQuire: Set<String>)] = [
        // Inheritance three deep, a to-one into a hierarchy, a uniqueness constraint, a transient attribute.
        ("CoreDataPlus/SampleModel_V1.sqlite", "CoreDataPlus/SampleModel.xcdatamodeld", "SampleModel", [], []),
        (
            "CoreDataPlus/SampleModel_V2.sqlite", "CoreDataPlus/SampleModel.xcdatamodeld", "SampleModel2",
            // A fetch index over two properties (Z_Car_byMakerAndNumberPlate): created alike.
            [], []
        ),
        ("CoreDataPlus/SampleModel3_V1.sqlite", "CoreDataPlus/SampleModel3.xcdatamodeld", "SampleModel3", [], []),
        ("BookMigration/Model1.sqlite", "BookMigration/Model.xcdatamodeld", "Model1", [], []),
    ]

    @Test(arguments: cases)
    func newStoreHasCoreDatasSchema(
        _ testCase: (store: String, model: String, version: String, onlyCoreData: Set<String>, onlyQuire: Set<String>)
    ) throws {
        let bundle = try ModelBundle(contentsOf: try FixtureFiles.url("CoreData/" + testCase.model))
        let model = try #require(bundle.model(named: testCase.version))
        let url = folder.file("New.sqlite")
        do { _ = try Fixtures.stack(model, at: url) }
        let quire = try statements(url)
        let coreData = try statements(try FixtureFiles.url("CoreData/" + testCase.store))
        #expect(coreData.subtracting(quire) == testCase.onlyCoreData, "only in Core Data's store")
        #expect(quire.subtracting(coreData) == testCase.onlyQuire, "only in Quire's store")
        // Both number the entities alike (names aside: SampleModel_V2 keeps LuxuryCar's former name).
        let numbers = "SELECT Z_ENT, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT"
        #expect(try sqlite3(url, numbers) == (try sqlite3(try FixtureFiles.url("CoreData/" + testCase.store), numbers)))
    }
}
