import Foundation
import QuireTestSupport
import Testing

import Quire

/// Xcode's `.xcmappingmodel` files, as the apps that shipped them have them (Fixtures/CoreData/XML): read into
/// mapping models whose entity mappings, expressions, policies and version hashes are what Xcode compiles.
@Suite struct XcodeMappingModelTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// Each entity mapping as `name type policy`, and each property mapping as `name = expression`.
    static func summary(_ mapping: MappingModel) -> [String] {
        mapping.entityMappings.flatMap { entity in
            ["\(entity.name) \(entity.mappingType.rawValue)\(entity.entityMigrationPolicyClassName.map { " " + $0 } ?? "")"]
                + (entity.attributeMappings + entity.relationshipMappings).map { "  \($0.name) = \($0.valueExpression?.description ?? "nil")" }
        }
    }

    @Test func moodysMappingModelsReadAsXcodeCompilesThem() throws {
        let twoToThree = try MappingModel(contentsOf: try MappingModelFixtures.file("Moody 2-Moody 3"))
        #expect(twoToThree.sourceModelPath == "Migrations/Moody.xcdatamodeld/Moody 2.xcdatamodel")
        #expect(twoToThree.destinationModelPath == "Migrations/Moody.xcdatamodeld/Moody 3.xcdatamodel")
        let summary = Self.summary(twoToThree)
        #expect(summary.first == "MoodToMood copy")
        // The relationships the author gave a key path: the mapping and the key path as Xcode compiles them.
        #expect(summary.contains(
            "  continent = FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"ContinentToContinent\", $source.country.continent)"))
        #expect(summary.contains(
            "  moods = FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"MoodToMood\", $source.countries.@distinctUnionOfSets.moods)"))
        // The rest is generated: attributes from the source attribute of the same name, relationships through the
        // mapping that makes their destination.
        #expect(summary.contains("  remoteID = $source.remoteID"))
        #expect(summary.contains(
            "  country = FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"CountryToCountry\", $source.country)"))

        let fourToFive = try MappingModel(contentsOf: try MappingModelFixtures.file("Moody 4-Moody 5"))
        #expect(fourToFive.entityMappings.map(\.name) == ["MoodToMood", "CountryToCountry"])
        let country = try #require(fourToFive.entityMappingsByName["CountryToCountry"])
        #expect(country.attributeMappings.first { $0.name == "isoContinent" }?.valueExpression?.description == "$source.continent.numericISO3166Code")

        let fiveToSix = try MappingModel(contentsOf: try MappingModelFixtures.file("Moody 5-Moody 6"))
        #expect(fiveToSix.entityMappings.map(\.name) == ["Continent", "CountryToCountry", "MoodToMood"])
        #expect(fiveToSix.entityMappingsByName["Continent"]?.mappingType == .add)
        #expect(fiveToSix.entityMappingsByName["CountryToCountry"]?.entityMigrationPolicyClassName == "Migrations.Country5ToCountry6Policy")
        #expect(fiveToSix.entityMappingsByName["CountryToCountry"]?.mappingType == .custom)
        // Country 5 has no continent: Xcode generates nothing for it, the policy sets it.
        #expect(fiveToSix.entityMappingsByName["CountryToCountry"]?.relationshipMappings.first { $0.name == "continent" }?.valueExpression == nil)
    }

    @Test func bookMigrationsMappingModelsKeepTheirPoliciesAndUserInfo() throws {
        let first = try MappingModel(contentsOf: try MappingModelFixtures.file("Model1_to_Model2"))
        #expect(first.entityMappings.map(\.name) == ["UserToUser", "Author", "BookToBook"])
        let book = try #require(first.entityMappingsByName["BookToBook"])
        #expect(book.entityMigrationPolicyClassName == "MHWBookToBookPolicy")
        #expect(book.userInfo == ["modelVersion": "2"])
        // User.books keeps its books through the mapping that makes books.
        #expect(first.entityMappingsByName["UserToUser"]?.relationshipMappings.first?.valueExpression?.description
            == "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"BookToBook\", $source.books)")
        // Objects Xcode left behind, outside any mapping model, are not part of it: the User mapping with a policy
        // in Model2_to_Model3 belongs to none.
        let second = try MappingModel(contentsOf: try MappingModelFixtures.file("Model2_to_Model3"))
        #expect(second.entityMappings.map(\.name) == ["File", "BookToBook", "AuthorToAuthor"])
        #expect(second.entityMappingsByName["BookToBook"]?.userInfo == ["modelVersion": "3"])
        let users = try MappingModel(contentsOf: try MappingModelFixtures.file("Model2_to_Model3_User"))
        #expect(users.entityMappings.map(\.name) == ["UserToUser"])
    }

    /// CoreDataPlus commits both its `V2toV3.xcmappingmodel` and the `V2toV3.cdm` Xcode compiled from it: the
    /// mapping model read from the source is what the compiled one holds (names, types, policies, and each
    /// expression, written here as decoded from the `.cdm`).
    @Test func coreDataPlussMappingModelReadsAsXcodeCompiledIt() throws {
        let mapping = try MappingModel(contentsOf: try FixtureFiles.url("CoreData/CoreDataPlus/MappingModels/V2toV3.xcmappingmodel"))
        let function = "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", "
        let byRelationship = "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", "
        let car = { (name: String, extra: [String]) -> [String] in
            ["\(name)To\(name) custom REPLACE_AT_RUNTIME.V2to3MakerPolicy"] + extra
                + ["  markedForDeletionAsOf = $source.markedForDeletionAsOf", "  model = $source.model", "  numberPlate = $source.numberPlate",
                   "  createdBy = nil", "  owner = \(function)\"PersonToPerson\", $source.owner)",
                   "  previousOwners = \(function)\"PersonToPerson\", $source.owner)"]
        }
        let expected =
            car("Car", [])
            + car("LuxuryCar", ["  isLimitedEdition = $source.isLimitedEdition"])
            + ["PersonToPerson copy", "  firstName = $source.firstName", "  lastName = $source.lastName", "  updatedAt = $source.updatedAt",
               "  cars = \(byRelationship)\"cars\", $source.cars)", "  previousCars = \(byRelationship)\"cars\", $source.cars)"]
            + car("SportCar", [])
            + ["Maker add", "  name = nil", "  cars = nil"]
        #expect(Self.summary(mapping) == expected)
    }

    @Test func coreStoresArchivedExpressionsAreAConstantAndAKeyPath() throws {
        let mapping = try MappingModel(contentsOf: try MappingModelFixtures.file("Advanced.EvolutionDemo.V2.FromV1"))
        let creature = try #require(mapping.entityMappingsByName["CreatureToCreature"])
        #expect(creature.entityMigrationPolicyClassName == "Advanced_EvolutionDemo_V2_FromV1MigrationPolicy")
        let expressions = Dictionary(uniqueKeysWithValues: creature.attributeMappings.map { ($0.name, $0.valueExpression?.description) })
        #expect(expressions["hasHead"] == "YES")
        #expect(expressions["numberOfFlippers"] == "$source.numberOfFlagella")
    }

    /// The hashes come from the copies of the models inside each file: they are the hashes of the app's own model
    /// versions, which is how a mapping model is matched to a migration.
    @Test(arguments: MappingModelFixtures.files.map(\.name))
    func theVersionHashesAreThoseOfTheAppsModelVersions(_ name: String) throws {
        let mapping = try MappingModel(contentsOf: try MappingModelFixtures.file(name))
        var versions: [ManagedObjectModel] = []
        for bundle in [try MappingModelFixtures.moodyBundle, try MappingModelFixtures.bookBundle] + (try MappingModelFixtures.evolutionBundles) {
            // One model per set of hashes: CoreStore's demo keeps the same versions in several bundles.
            for model in try ModelBundle(contentsOf: bundle).models
            where !versions.contains(where: { $0.entityVersionHashesByName == model.entityVersionHashesByName }) {
                versions.append(model)
            }
        }
        let sources = versions.filter { model in
            mapping.entityMappings.allSatisfy { entity in
                guard let name = entity.sourceEntityName else { return true }
                return model.entitiesByName[name]?.versionHash == entity.sourceEntityVersionHash
            }
        }
        let destinations = versions.filter { model in
            mapping.entityMappings.allSatisfy { entity in
                guard let name = entity.destinationEntityName else { return true }
                return model.entitiesByName[name]?.versionHash == entity.destinationEntityVersionHash
            }
        }
        #expect(sources.count == 1, "\(name): \(sources.count) source versions")
        #expect(destinations.count == 1, "\(name): \(destinations.count) destination versions")
        if let source = sources.first, let destination = destinations.first {
            #expect(mapping.isMapping(from: source, to: destination))
        }
    }

    @Test func aFolderAndItsFileReadAlike() throws {
        let package = try MappingModelFixtures.install(["Moody 3-Moody 4"], in: folder.url)[0]
        let fromFolder = try MappingModel(contentsOf: package)
        let fromFile = try MappingModel(contentsOf: package.appendingPathComponent("xcmapping.xml"))
        #expect(Self.summary(fromFolder) == Self.summary(fromFile))
        #expect(fromFolder.entityMappings.map(\.sourceEntityVersionHash) == fromFile.entityMappings.map(\.sourceEntityVersionHash))
    }

    @Test func whatIsNotAMappingModelIsRefusedNamingTheFile() throws {
        let missing = folder.file("None.xcmappingmodel")
        #expect(expectError(.fileReadNoSuchFile) { _ = try MappingModel(contentsOf: missing) }?.context.file != nil)
        let notXML = folder.file("Broken.xcmappingmodel")
        try FileManager.default.createDirectory(at: notXML, withIntermediateDirectories: true)
        try Data("not xml".utf8).write(to: notXML.appendingPathComponent("xcmapping.xml"))
        let error = expectError(.fileReadCorruptFile) { _ = try MappingModel(contentsOf: notXML) }
        #expect(error?.message.contains("Broken.xcmappingmodel/xcmapping.xml") == true)
        // A store of other entities is not a mapping model.
        let journal = try JournalFixture(in: folder, type: .xml, name: "Journal.xml")
        #expect(expectError(.fileReadCorruptFile) { _ = try MappingModel(contentsOf: journal.url) } != nil)
    }

    @Test func anExpressionQuireCannotEvaluateIsRefusedNamingTheMappingAndTheExpression() throws {
        // The author's expression for isoContinent, made to read the migration manager's key path instead of the
        // source object's (`$manager.continent.numericISO3166Code`).
        var text = try String(contentsOf: try MappingModelFixtures.file("Moody 4-Moody 5"), encoding: .utf8)
        let archive = try #require(text.components(separatedBy: "<attribute name=\"valueexpressiondata\" type=\"binary\">").dropFirst().first?
            .components(separatedBy: "</attribute>").first)
        let forged = try Self.renaming(
            ["source": "manager"],
            inArchive: try #require(Data(base64Encoded: archive, options: .ignoreUnknownCharacters)))
        text = text.replacingOccurrences(of: archive, with: forged.base64EncodedString())
        let url = folder.file("Forged.xml")
        try Data(text.utf8).write(to: url)
        let error = expectError(.migration) { _ = try MappingModel(contentsOf: url) }
        #expect(error?.message.contains("the entity mapping 'CountryToCountry' maps 'isoContinent'") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("'$manager.continent.numericISO3166Code'") == true, "\(error?.message ?? "")")
        #expect(error?.context.key == "isoContinent")
    }

    /// A keyed archive with some of its strings replaced (an archived expression made to call another method on
    /// another variable).
    static func renaming(_ replacements: [String: String], inArchive data: Data) throws -> Data {
        var format = PropertyListSerialization.PropertyListFormat.binary
        guard var root = try PropertyListSerialization.propertyList(from: data, options: [], format: &format) as? [String: Any],
            var objects = root["$objects"] as? [Any]
        else { throw QuireError(.invalidArchive, "Not a keyed archive.") }
        for index in objects.indices {
            if let text = objects[index] as? String, let replacement = replacements[text] { objects[index] = replacement }
        }
        root["$objects"] = objects
        return try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
    }
}

