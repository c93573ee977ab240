import QuireCore
import Foundation
import Testing

/// Checks individual decoded values of the corpus models that use each Core Data feature.
@Suite("Decoded details")
struct ModelDetailTests {
    @Test("Inheritance: sub-entities list only their own properties")
    func inheritance() throws {
        let model = try CompiledModelDecoder.decodeModelCache(try CompiledModelFixtures.modelCache("SampleModel_V1"))
        let car = try #require(model.entity(named: "Car"))
        let sport = try #require(model.entity(named: "SportCar"))
        let expensive = try #require(model.entity(named: "ExpensiveSportCar"))
        #expect(car.subentityNames == ["SportCar"])
        #expect(sport.subentityNames == ["ExpensiveSportCar"])
        #expect(sport.attributes.isEmpty && sport.relationships.isEmpty)
        #expect(sport.inheritedPropertyNames.contains("numberPlate"))
        #expect(expensive.attributes.map(\.name) == ["isLimitedEdition"])
        #expect(expensive.attribute(named: "isLimitedEdition")?.defaultValue == .boolean(false))
        #expect(model.warnings.isEmpty, "\(model.warnings)")
    }

    @Test("Attribute flags, transformers and defaults")
    func attributes() throws {
        let model = try CompiledModelDecoder.decodeModelCache(try CompiledModelFixtures.modelCache("SampleModel_V1"))
        let person = try #require(model.entity(named: "Person"))
        let id = try #require(person.attribute(named: "id"))
        #expect(id.kind == .uuid && id.attributeType == 1100)
        #expect(id.preservesValueInHistoryOnDeletion)
        #expect(id.flags == 16)
        #expect(!id.isOptional)
        let color = try #require(model.entity(named: "Car")?.attribute(named: "color"))
        #expect(color.kind == .transformable && color.valueTransformerName == "ColorTransformer")
        let speed = try #require(model.entity(named: "Car")?.attribute(named: "currentDrivingSpeed"))
        #expect(speed.isTransient && speed.defaultValue == .integer(0))
        #expect(model.entity(named: "Car")?.relationship(named: "owner")?.inverseEntityName == "Person")
    }

    @Test("Fetch indexes and renamed entities")
    func fetchIndexes() throws {
        let model = try CompiledModelDecoder.decodeModelCache(try CompiledModelFixtures.modelCache("SampleModel_V2"))
        let car = try #require(model.entity(named: "Car"))
        #expect(car.fetchIndexes == [CompiledFetchIndex(name: "byMakerAndNumberPlate", elements: [
            .init(propertyName: "maker", type: 0, ascending: true), .init(propertyName: "numberPlate", type: 0, ascending: true),
        ])])
        #expect(model.entity(named: "LuxuryCar")?.renamingIdentifier == "ExpensiveSportCar")
        // This cache stores NSClassNameForEntity as $null for every entity (the V1 cache names the classes).
        #expect(car.managedObjectClassName == nil)
    }

    @Test("Fetched properties, derived attributes, validation, configurations, custom defaults")
    func sampleModel2() throws {
        let model = try CompiledModelDecoder.decodeModelCache(try CompiledModelFixtures.modelCache("SampleModel2_V2"))
        #expect(model.warnings.isEmpty, "\(model.warnings)")
        #expect(model.configurations["SampleConfigurationV2Part2"] == ["Feedback"])
        #expect(model.configurations["SampleConfigurationV2Part1"] == ["Author", "Book", "Feedback", "Page", "Writer"])

        let writer = try #require(model.entity(named: "Writer"))
        #expect(writer.isAbstract && writer.subentityNames == ["Author"])
        #expect(writer.managedObjectClassName == "WriterV2")

        let author = try #require(model.entity(named: "Author"))
        #expect(author.uniquenessConstraints == [["alias"]])
        #expect(author.attributes.map(\.name) == ["alias"])  // age is Writer's
        let feedbacks = try #require(author.fetchedProperties.first { $0.name == "feedbacks" })
        #expect(feedbacks.fetchRequest.entityName == "Feedback")
        #expect(feedbacks.fetchRequest.predicate == "authorAlias == $FETCH_SOURCE.alias")
        #expect(feedbacks.fetchRequest.sortDescriptors == [CompiledSortDescriptor(key: "rating", ascending: true, selector: "compare:")])
        let favorites = try #require(author.fetchedProperties.first { $0.name == "favFeedbacks" })
        #expect(favorites.userInfo == ["search": .string("great")])
        #expect(favorites.fetchRequest.predicate == "authorAlias == $FETCH_SOURCE.alias AND comment CONTAINS[c] $FETCHED_PROPERTY.userInfo.search")
        let books = try #require(author.relationship(named: "books"))
        #expect(books.isToMany && books.deleteRuleKind == .cascade && books.maxCount == -1 && books.normalizedMaxCount == Int.max)

        let book = try #require(model.entity(named: "Book"))
        let pagesCount = try #require(book.attribute(named: "pagesCount"))
        #expect(pagesCount.isDerived && pagesCount.derivationExpression == "count:(pages)" && pagesCount.isReadOnly)
        let title = try #require(book.attribute(named: "title"))
        #expect(title.validationPredicates == ["length >= 3 AND length <= 50", "SELF CONTAINS \"title\""])
        #expect(title.validationWarnings == ["Title must have a length between 3 and 50 chars.", "Title must contain 'title'."])
        let cover = try #require(book.attribute(named: "frontCover"))
        #expect(cover.renamingIdentifier == "cover")
        #expect(cover.defaultValue == .archivedObject(className: "CoreDataPlus_Tests.Cover", fields: ["text": .string("default cover")]))
        #expect(book.attribute(named: "price")?.kind == .decimal)
        let pages = try #require(book.relationship(named: "pages"))
        #expect(pages.minCount == 1 && pages.maxCount == 10000 && pages.isToMany && !pages.isOptional)
    }
}
