import Foundation
import Quire
import QuireTestSupport
import Testing

/// Every real Xcode model of the corpus (`Fixtures/CoreData/Models`, see its `SOURCES.md`) opens as Xcode opens it,
/// and what a model says is kept, never dropped silently.
@Suite("Real Xcode models")
struct XcodeModelCorpusTests {
    private static let root = "CoreData/Models"

    /// The `.xcdatamodeld` bundles and the standalone `.xcdatamodel` folders under the corpus, by relative path.
    private static func corpus() throws -> (bundles: [URL], models: [URL]) {
        let base = try FixtureFiles.url(root)
        var bundles: [URL] = []
        var models: [URL] = []
        let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isDirectoryKey], options: [])
        while let url = walker?.nextObject() as? URL {
            switch url.pathExtension {
            case "xcdatamodeld":
                bundles.append(url)
                walker?.skipDescendants()
            case "xcdatamodel":
                models.append(url)
                walker?.skipDescendants()
            default: continue
            }
        }
        return (bundles.sorted { $0.path < $1.path }, models.sorted { $0.path < $1.path })
    }

    private static func model(_ path: String) throws -> URL { try FixtureFiles.url("\(root)/\(path)") }

    @Test func everyModelOfTheCorpusOpens() throws {
        let (bundles, models) = try Self.corpus()
        // 33 bundles holding 50 versions, and 3 standalone models: 53 models in all (the corpus's count).
        #expect(bundles.count == 33)
        #expect(models.count == 3)
        var versions = 0
        for url in bundles {
            do {
                let bundle = try ModelBundle(contentsOf: url)
                versions += bundle.models.count
                for (name, model) in zip(bundle.versionNames, bundle.models) {
                    #expect(!model.entities.isEmpty, "\(url.lastPathComponent)/\(name) has no entities")
                }
                let current = try ManagedObjectModel(contentsOf: url)
                #expect(current.entities.map(\.name) == bundle.currentModel.entities.map(\.name))
            } catch {
                Issue.record("\(url.path): \(error)")
            }
        }
        #expect(versions == 50)
        for url in models {
            do {
                #expect(!(try ManagedObjectModel(contentsOf: url)).entities.isEmpty)
            } catch {
                Issue.record("\(url.path): \(error)")
            }
        }
    }

    @Test func theCurrentVersionIsTheOneXccurrentversionNames() throws {
        let moody = try ModelBundle(contentsOf: try Self.model("objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld"))
        #expect(moody.versionNames == ["Moody", "Moody 2", "Moody 3", "Moody 4", "Moody 5", "Moody 6"])
        #expect(moody.currentVersionName == "Moody 6")
        let events = try ModelBundle(contentsOf: try Self.model("drewmccormack__ensembles/Framework/Resources/CDEEventStoreModel.xcdatamodeld"))
        #expect(events.currentVersionName == "CDEEventStoreModel_2")
        // CoreStore's bundle whose .xccurrentversion is an empty dictionary: the last version by name, as without the file.
        let evolution = try ModelBundle(
            contentsOf: try Self.model("JohnEstropia__CoreStore/Demo/Sources/Demos/Advanced/EvolutionDemo/Advanced.EvolutionDemo.xcdatamodeld"))
        #expect(evolution.versionNames == ["Advanced.EvolutionDemo", "Advanced.EvolutionDemo.V2"])
        #expect(evolution.currentVersionName == "Advanced.EvolutionDemo.V2")
    }

    @Test func valuesXcodeAcceptsAreReadAsXcodeReadsThem() throws {
        // iAPS: a Boolean default of "100" is YES.
        let iaps = try ManagedObjectModel(contentsOf: try Self.model("Artificial-Pancreas__iAPS/Core_Data.xcdatamodeld"))
        let enabled = try #require(iaps.entitiesByName["TempTargetsSlider"]?.attributesByName["enabled"])
        #expect(enabled.defaultAttributeValue == .boolean(true))
        for attribute in iaps.entities.flatMap({ $0.properties.compactMap { $0 as? AttributeDescription } }) {
            if case .integer = attribute.defaultAttributeValue, attribute.attributeType.isInteger == false {
                Issue.record("\(attribute.name): an integer default on a \(attribute.attributeType)")
            }
        }
    }

    @Test func fetchIndexesConstraintsAndFetchedPropertiesAreKept() throws {
        let bundle = try ModelBundle(contentsOf: try Self.model("alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld"))
        let v2 = try #require(bundle.model(named: "SampleModel2"))
        let car = try #require(v2.entitiesByName["Car"])
        #expect(car.uniquenessConstraints == [["numberPlate"]])
        let index = try #require(car.fetchIndexes.first { $0.name == "byMakerAndNumberPlate" })
        #expect(index.elements.map(\.propertyName) == ["maker", "numberPlate"])
        #expect(index.elements.allSatisfy { $0.isAscending && $0.collationType == .binary })
        // Stores create it (Z_Car_byMakerAndNumberPlate), so it is no longer listed as unsupported.
        #expect(!v2.unsupportedFeatures.contains { $0.contains("byMakerAndNumberPlate") })

        // objc.io's Moody: Xcode 8's <compoundIndexes> are fetch indexes.
        let moody = try ManagedObjectModel(contentsOf: try Self.model("objcio__core-data/Moody/MoodyModel/Moody.xcdatamodeld"))
        let compound = moody.entities.flatMap(\.fetchIndexes).filter { $0.elements.count > 1 }
        #expect(compound.contains { $0.elements.map(\.propertyName) == ["markedForRemoteDeletion", "markedForDeletionDate", "date"] })

        // CoreStore's ColorsDemo: the fetched property, with its request.
        let colors = try ManagedObjectModel(
            contentsOf: try Self.model("JohnEstropia__CoreStore/Demo/Sources/Demos/Classic/ColorsDemo/Classic.ColorsDemo.xcdatamodeld"))
        let palette = try #require(colors.entitiesByName["Palette"])
        let fetched = try #require(palette.fetchedProperties.first)
        #expect(fetched.name == "testFetchProperty")
        #expect(fetched.destinationEntityName == "Palette")
        #expect(fetched.fetchRequestName == "fetchedPropertyFetchRequest")
        #expect(palette.propertiesByName["testFetchProperty"] == nil)
        #expect(colors.unsupportedFeatures.isEmpty)

        // The canonical JSON form (what stores embed) keeps all of it.
        for model in [v2, moody, colors] {
            let copy = try ManagedObjectModel(serializedRepresentation: try model.serializedRepresentation())
            for entity in model.entities {
                let other = try #require(copy.entitiesByName[entity.name])
                #expect(other.fetchIndexes == entity.fetchIndexes)
                #expect(other.uniquenessConstraints == entity.uniquenessConstraints)
                #expect(other.fetchedProperties == entity.fetchedProperties)
            }
            #expect(copy.unsupportedFeatures == model.unsupportedFeatures)
        }
    }

    @Test func aDerivedAttributeKeepsItsExpression() throws {
        let folder = try TemporaryFolder()
        let model = folder.url.appendingPathComponent("Books.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        // As Xcode 11 and later write a derived attribute.
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="21754" \
            systemVersion="22F66" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Author" representedClassName="Author" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="booksCount" optional="YES" attributeType="Integer 64" derived="YES" \
            derivationExpression="books.@count" usesScalarValueType="YES"/>
                    <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
                </entity>
                <entity name="Book" representedClassName="Book" syncable="YES">
                    <attribute name="published" optional="YES" attributeType="Date" minValueString="12/4/2013" usesScalarValueType="NO"/>
                    <attribute name="count" optional="YES" attributeType="Integer 16" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <attribute name="flag" optional="YES" attributeType="Boolean" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
                </entity>
            </model>
            """.utf8).write(to: model.appendingPathComponent("contents"))
        let loaded = try ManagedObjectModel(contentsOf: model)
        let count = try #require(loaded.entitiesByName["Author"]?.attributesByName["booksCount"])
        #expect(count.derivationExpression == "books.@count")
        // Computed at save (DerivedAttributeTests), so no longer listed; hashed as Core Data hashes it, count:(books).
        #expect(loaded.unsupportedFeatures.isEmpty)
        let book = try #require(loaded.entitiesByName["Book"])
        #expect(book.attributesByName["count"]?.defaultAttributeValue == .integer(0))
        #expect(book.attributesByName["flag"]?.defaultAttributeValue == .boolean(false))
        // 12/4/2013 is December 4th (Xcode writes month first), midnight UTC.
        #expect(book.attributesByName["published"]?.minimumValue == .date(Date(timeIntervalSince1970: 1_386_115_200)))
        let copy = try ManagedObjectModel(serializedRepresentation: try loaded.serializedRepresentation())
        #expect(copy.entitiesByName["Author"]?.attributesByName["booksCount"]?.derivationExpression == "books.@count")
        #expect(copy.unsupportedFeatures == loaded.unsupportedFeatures)
    }
}
