import Foundation
import Testing

import Quire

/// Xcode model files as they are on disk: `.xcdatamodel` folders, `.xcdatamodeld` bundles, and malformed ones.
@Suite struct XcodeModelTests {
    @Test func aModelFolderReadsEveryKindOfDeclaration() throws {
        let model = try ManagedObjectModel(contentsOf: FixtureFiles.url("XcodeModels/Library.xcdatamodel"))
        #expect(model.entities.map(\.name).sorted() == ["Author", "Book", "Chapter", "Publication", "Shelf"])
        #expect(model.versionIdentifiers == ["library-1"])
        let byName = model.entitiesByName
        let author = try #require(byName["Author"])
        let publication = try #require(byName["Publication"])
        let book = try #require(byName["Book"])

        // Entities: class names, abstractness, parents, user info, renaming identifiers, hash modifiers.
        #expect(author.managedObjectClassName == "Author")
        #expect(author.userInfo == ["table": "people", "audited": "YES"])
        #expect(publication.isAbstract && !book.isAbstract)
        #expect(book.superentity === publication)
        #expect(publication.renamingIdentifier == "Work" && publication.versionHashModifier == "2")

        // Attributes of every type, with their flags, defaults and bounds.
        let types = publication.attributesByName.mapValues(\.attributeType)
        #expect(types == [
            "identifier": .uuid, "price": .decimal, "published": .boolean, "rating": .float, "score": .double,
            "summary": .transformable, "title": .string, "volume": .integer16, "website": .uri, "wordCount": .integer64,
        ])
        let attributes = author.attributesByName
        let name = try #require(attributes["name"])
        #expect(!name.isOptional && name.defaultValue as? String == "Anonymous" && name.isIndexed)
        #expect(name.minimumValue == .integer(1) && name.maximumValue == .integer(120))
        #expect(name.renamingIdentifier == "fullName" && name.versionHashModifier == "trimmed")
        #expect(attributes["email"]?.regularExpression == "[^@ ]+@[^@ ]+")
        #expect(attributes["email"]?.isIndexedBySpotlight == true)
        #expect(attributes["portrait"]?.allowsExternalBinaryDataStorage == true)
        #expect(attributes["scratch"]?.isTransient == true)
        let birth = try #require(attributes["birthDate"])
        #expect(birth.minimumValue == .date(Date(timeIntervalSinceReferenceDate: -3_155_760_000)))
        #expect(birth.maximumValue == .date(Date(timeIntervalSinceReferenceDate: 788_918_400)))
        #expect(birth.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 0))
        let isbn = try #require(book.attributesByName["isbn"])
        #expect(isbn.isIndexed && isbn.isStoredInExternalRecord)
        let pages = try #require(book.attributesByName["pages"])
        #expect(pages.defaultValue as? Int32 == 100 && pages.minimumValue == .integer(1) && pages.maximumValue == .integer(100_000))
        let inherited = publication.attributesByName
        #expect(inherited["identifier"]?.defaultValue as? UUID == UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF"))
        #expect(inherited["price"]?.defaultValue as? Decimal == Decimal(string: "9.99"))
        #expect(inherited["published"]?.defaultValue as? Bool == false)
        #expect(inherited["rating"]?.defaultValue as? Float == 2.5 && inherited["rating"]?.maximumValue == .float(5))
        #expect(inherited["summary"]?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(inherited["volume"]?.defaultValue as? Int16 == 1)

        // Relationships: destinations, inverses, to-many, ordered, delete rules, counts.
        let authors = try #require(book.relationshipsByName["authors"])
        #expect(authors.isToMany && !authors.isOptional && authors.minCount == 1 && authors.maxCount == 12)
        #expect(authors.destinationEntityName == "Author" && authors.inverseRelationshipName == "books")
        let chapters = try #require(book.relationshipsByName["chapters"])
        #expect(chapters.isOrdered && chapters.deleteRule == .cascade && chapters.isIndexedBySpotlight)
        #expect(book.relationshipsByName["shelf"]?.deleteRule == .deny)
        #expect(book.relationshipsByName["shelf"]?.renamingIdentifier == "location")
        let favorite = try #require(author.relationshipsByName["favorite"])
        #expect(!favorite.isToMany && favorite.deleteRule == .noAction && favorite.inverseRelationshipName == nil)

        // Fetch request templates and configurations.
        let template = try #require(model.fetchRequestTemplatesByName["booksByTitle"])
        #expect(template.entityName == "Book" && template.fetchLimit == 25 && template.fetchBatchSize == 10)
        #expect(!template.returnsObjectsAsFaults)
        #expect(template.predicate == (try QueryPredicate(format: "title BEGINSWITH[cd] $PREFIX")))
        #expect(model.fetchRequestTemplatesByName["bookCount"]?.resultType == .count)
        #expect(model.entities(forConfigurationName: "Catalog").map(\.name) == ["Book", "Chapter", "Publication"])
        #expect(model.entities(forConfigurationName: "People").map(\.name) == ["Author"])

        // The model is consistent enough for a store.
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(model, at: folder.file("Library.sqlite"))
        let shelf = ManagedObject(entity: try #require(model.entitiesByName["Shelf"]), insertInto: context)
        shelf.setValue("Fiction", forKey: "label")
        try context.save()
    }

    @Test func theContentsFileItselfAlsoOpens() throws {
        let model = try ManagedObjectModel(contentsOf: FixtureFiles.url("XcodeModels/Library.xcdatamodel/contents"))
        #expect(model.entities.count == 5)
    }

    @Test func aBundleReadsEveryVersionInOrderAndKnowsTheCurrentOne() throws {
        let url = try FixtureFiles.url("XcodeModels/Journal.xcdatamodeld")
        let bundle = try ModelBundle(contentsOf: url)
        #expect(bundle.versionNames == ["Journal", "Journal 2", "Journal 3"])
        #expect(bundle.currentVersionName == "Journal 3")
        #expect(bundle.models.map(\.versionIdentifiers) == [["1"], ["2"], ["3"]])
        #expect(bundle.model(named: "Journal 2.xcdatamodel")?.entitiesByName["Place"] != nil)
        #expect(bundle.currentModel.entitiesByName["Journal"]?.renamingIdentifier == "Notebook")

        // ManagedObjectModel(contentsOf:) on a bundle reads the current version.
        let current = try ManagedObjectModel(contentsOf: url)
        #expect(current.versionIdentifiers == ["3"])
        #expect(current.entityVersionHashesByName == bundle.currentModel.entityVersionHashesByName)
    }

    @Test func theCurrentVersionFileDecidesWhichVersionIsCurrent() throws {
        let folder = try TemporaryFolder()
        let copy = folder.file("Journal.xcdatamodeld")
        try FileManager.default.copyItem(at: try FixtureFiles.url("XcodeModels/Journal.xcdatamodeld"), to: copy)
        let plist = try PropertyListValue.encode(["_XCCurrentVersionName": "Journal 2.xcdatamodel"], format: .xml)
        try plist.write(to: copy.appendingPathComponent(".xccurrentversion"))
        #expect(try ModelBundle(contentsOf: copy).currentVersionName == "Journal 2")
        #expect(try ManagedObjectModel(contentsOf: copy).versionIdentifiers == ["2"])
    }

    @Test func versionsSortWithNumbersComparedAsNumbers() throws {
        let folder = try TemporaryFolder()
        let bundle = folder.file("Model.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let source = try FixtureFiles.url("XcodeModels/Journal.xcdatamodeld/Journal.xcdatamodel")
        for name in ["Model 10", "Model 2", "Model", "Model 3"] {
            try FileManager.default.copyItem(at: source, to: bundle.appendingPathComponent(name + ".xcdatamodel"))
        }
        #expect(try ModelBundle(contentsOf: bundle).versionNames == ["Model", "Model 2", "Model 3", "Model 10"])
    }

    @Test func theCanonicalFormOfAnXcodeModelRoundTrips() throws {
        let model = try ManagedObjectModel(contentsOf: FixtureFiles.url("XcodeModels/Library.xcdatamodel"))
        let copy = try ManagedObjectModel(serializedRepresentation: model.serializedRepresentation())
        #expect(try copy.serializedRepresentation() == model.serializedRepresentation())
        #expect(copy.entityVersionHashesByName == model.entityVersionHashesByName)
    }

    @Test(arguments: [
        ("Doctype.xcdatamodel", "document type and entity declarations are not allowed", "line 2"),
        ("UnknownType.xcdatamodel", "<attribute name=\"reading\"> of entity 'Sensor' has the attribute type 'Integer 128'", "line 5"),
        ("MissingDestination.xcdatamodel", "<relationship name=\"customer\"> of entity 'Order' points at the entity 'Customer'", "line 5"),
        ("Truncated.xcdatamodel", "the XML cannot be read", "contents"),
        ("BadFlag.xcdatamodel", "<attribute name=\"number\"> has optional=\"maybe\"; it must be YES or NO", "line 4"),
        ("WrongCurrentVersion.xcdatamodeld", "names '../../Elsewhere.xcdatamodel', which is not a version in the bundle", ".xccurrentversion"),
    ])
    func malformedFilesThrowErrorsNamingTheElement(file: String, message: String, place: String) throws {
        let url = try FixtureFiles.url("XcodeModels/Malformed/" + file)
        let error = try #require(throws: QuireError.self) { try ManagedObjectModel(contentsOf: url) }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.message.contains(place), "\(error.message)")
        #expect(error.context.file != nil)
    }

    @Test func truncatedAndCorruptedFilesThrowAndNeverCrash() throws {
        let url = try FixtureFiles.url("XcodeModels/Library.xcdatamodel/contents")
        let whole = try Data(contentsOf: url)
        let folder = try TemporaryFolder()
        var outcomes = (models: 0, errors: 0)
        func decode(_ data: Data) {
            do {
                // Each sample as a model folder of its own, read as an application reads it.
                let model = folder.file("Sample-\(outcomes.models + outcomes.errors).xcdatamodel")
                try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
                try data.write(to: model.appendingPathComponent("contents"))
                _ = try ManagedObjectModel(contentsOf: model)
                outcomes.models += 1
            } catch is QuireError {
                outcomes.errors += 1
            } catch {
                Issue.record("an error that is not a QuireError: \(error)")
            }
        }
        for length in stride(from: 0, to: whole.count, by: 61) { decode(whole.prefix(length)) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var bytes = [UInt8](whole)
            for _ in 0..<3 { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 32...126, using: &generator) }
            decode(Data(bytes))
        }
        #expect(outcomes.errors > 0 && outcomes.models + outcomes.errors == 200 + (whole.count + 60) / 61)
    }

    @Test func aSymbolicLinkInsteadOfTheContentsFileIsRefused() throws {
        let folder = try TemporaryFolder()
        let model = folder.file("Linked.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: model.appendingPathComponent("contents"),
            withDestinationURL: try FixtureFiles.url("XcodeModels/Library.xcdatamodel/contents"))
        let error = try #require(throws: QuireError.self) { try ManagedObjectModel(contentsOf: model) }
        #expect(error.message.contains("not a regular file"))
    }
}
