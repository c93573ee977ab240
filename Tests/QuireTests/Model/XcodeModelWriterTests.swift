import Foundation
import Quire
import QuireTestSupport
import Testing

/// ``XcodeModelWriter``: a model written as an Xcode model reads back as the same model (the same entity version
/// hashes, the same canonical form and the same printed description), on every Xcode model of the fixtures, the
/// models the sample documents embed and a model that uses every setting the reader reads; what an Xcode model
/// cannot hold is refused, named, and nothing is written.
@Suite struct XcodeModelWriterTests {
    /// Every `.xcdatamodel` folder of the fixtures (the corpus's, Xcode 3 binary ones included, and the project's
    /// own), by path under `Fixtures/`; the deliberately malformed ones are left out.
    static func modelFolders() -> [String] {
        guard let root = try? FixtureFiles.url("") else { return [] }
        var found: [String] = []
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension == "xcdatamodel" else { continue }
            walker?.skipDescendants()
            let path = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            if !path.contains("/Malformed/") { found.append(path) }
        }
        return found.sorted()
    }

    /// Reads `model` back from the Xcode model `writeXcodeModel(to:)` wrote, and checks it is the same model.
    @discardableResult
    static func roundTrip(_ model: ManagedObjectModel, _ name: String) throws -> ManagedObjectModel {
        let folder = try TemporaryFolder()
        let url = folder.file("Written.xcdatamodel")
        try model.writeXcodeModel(to: url)
        let back = try ManagedObjectModel(contentsOf: url)
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName, "\(name)")
        let original = String(decoding: try model.serializedRepresentation(), as: UTF8.self)
        let read = String(decoding: try back.serializedRepresentation(), as: UTF8.self)
        #expect(read == original, "\(name)")
        #expect(back.description == model.description, "\(name)")
        #expect(back.unsupportedFeatures == model.unsupportedFeatures, "\(name)")
        // Writing what was read gives the same file: the form is stable.
        let again = folder.file("Again.xcdatamodel")
        try back.writeXcodeModel(to: again)
        #expect(
            try Data(contentsOf: again.appendingPathComponent("contents"))
                == Data(contentsOf: url.appendingPathComponent("contents")), "\(name)")
        return back
    }

    @Test func theFixturesHoldManyModels() {
        // The corpus's 53 versions and the project's own: the parameterized test below is not vacuous.
        #expect(Self.modelFolders().count >= 70)
    }

    @Test(arguments: modelFolders())
    func everyXcodeModelOfTheFixturesReadsBackTheSame(path: String) throws {
        let model = try ManagedObjectModel(contentsOf: try FixtureFiles.url(path))
        try Self.roundTrip(model, path)
    }

    @Test(arguments: ["Library", "Runs"])
    func theSampleDocumentsModelsReadBackTheSame(name: String) throws {
        let store = CLIHarness.samples.appendingPathComponent("\(name)-sqlite.quiredoc/StoreContent/persistentStore")
        try Self.roundTrip(try ManagedObjectModel.embedded(inStoreAt: store, type: .sqlite), name)
    }

    /// A model with every setting the Xcode model reader reads, as Xcode writes it.
    static let everything = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" \
        sourceLanguage="Swift" userDefinedModelVersionIdentifier="v7">
            <entity name="Shelf" representedClassName="Shelf" isAbstract="YES" elementID="Rack" versionHashModifier="2" syncable="YES">
                <attribute name="label" attributeType="String" minValueString="1" maxValueString="40" \
        regularExpressionString="[A-Z].*" defaultValueString="Line one&#10;&quot;two&quot; &lt;&amp;&gt;" indexed="YES" \
        spotlightIndexingEnabled="YES" storedInTruthFile="YES" elementID="title" versionHashModifier="m">
                    <userInfo>
                        <entry key="note" value="kept"/>
                    </userInfo>
                </attribute>
                <relationship name="books" optional="YES" toMany="YES" minCount="1" maxCount="50" ordered="YES" \
        deletionRule="Cascade" destinationEntity="Book" inverseName="shelf" inverseEntity="Book" spotlightIndexingEnabled="YES" \
        storedInTruthFile="YES">
                    <userInfo>
                        <entry key="sync" value="no"/>
                    </userInfo>
                </relationship>
                <userInfo>
                    <entry key="owner" value="library"/>
                </userInfo>
            </entity>
            <entity name="WallShelf" representedClassName="WallShelf" parentEntity="Shelf" syncable="YES">
                <attribute name="height" optional="YES" attributeType="Double" minValueString="0.5" maxValueString="2.75" defaultValueString="1.25"/>
            </entity>
            <entity name="Book" representedClassName="Book" syncable="YES">
                <attribute name="title" attributeType="String"/>
                <attribute name="isbn" optional="YES" attributeType="String"/>
                <attribute name="pages" optional="YES" attributeType="Integer 32" minValueString="1" maxValueString="5000" defaultValueString="100"/>
                <attribute name="small" optional="YES" attributeType="Integer 16" defaultValueString="-3"/>
                <attribute name="big" optional="YES" attributeType="Integer 64" defaultValueString="9000000000"/>
                <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="12.34"/>
                <attribute name="weight" optional="YES" attributeType="Float" defaultValueString="0.1"/>
                <attribute name="read" optional="YES" attributeType="Boolean" defaultValueString="YES"/>
                <attribute name="published" optional="YES" attributeType="Date" defaultDateTimeInterval="-1036800000" \
        minDateTimeInterval="-3000000000" maxDateTimeInterval="900000000.5"/>
                <attribute name="identifier" optional="YES" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F"/>
                <attribute name="link" optional="YES" attributeType="URI" defaultValueString="https://example.org/a?b=c&amp;d"/>
                <attribute name="cover" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" maxValueString="1000000"/>
                <attribute name="colour" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="String"/>
                <attribute name="anything" optional="YES" transient="YES"/>
                <attribute name="keep" optional="YES" attributeType="String" preserveAfterDeletion="YES"/>
                <attribute name="titleLength" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="title.length"/>
                <attribute name="place" optional="YES" attributeType="Composite" composite="Place" elementID="where">
                    <userInfo>
                        <entry key="kind" value="address"/>
                    </userInfo>
                </attribute>
                <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="books" inverseEntity="Shelf"/>
                <relationship name="authors" toMany="YES" minCount="1" deletionRule="Deny" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
                <relationship name="related" optional="YES" toMany="YES" deletionRule="No Action" destinationEntity="Book"/>
                <fetchedProperty name="longer" optional="YES">
                    <userInfo>
                        <entry key="why" value="browsing"/>
                    </userInfo>
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="pages &gt; $FETCH_SOURCE.pages"/>
                </fetchedProperty>
                <fetchedProperty name="everyBook">
                    <fetchRequest entity="Book"/>
                </fetchedProperty>
                <fetchIndex name="byTitle">
                    <fetchIndexElement property="title" type="Binary" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="byPagesAndTitle" partialIndexPredicate="pages &gt; 10">
                    <fetchIndexElement property="pages" type="Binary" order="descending"/>
                    <fetchIndexElement property="title" type="Binary" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="spatial">
                    <fetchIndexElement property="big" type="RTree" order="ascending"/>
                </fetchIndex>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="isbn"/>
                    </uniquenessConstraint>
                    <uniquenessConstraint>
                        <constraint value="title"/>
                        <constraint value="published"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            <entity name="Author" syncable="YES">
                <attribute name="name" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="authors" inverseEntity="Book"/>
            </entity>
            <compositeAttribute name="Place">
                <attribute name="city" optional="YES" attributeType="String"/>
                <attribute name="postcode" attributeType="String" defaultValueString="00000"/>
                <attribute name="geo" optional="YES" attributeType="Composite" composite="Geo"/>
            </compositeAttribute>
            <compositeAttribute name="Geo">
                <attribute name="latitude" optional="YES" attributeType="Double"/>
                <attribute name="longitude" optional="YES" attributeType="Double"/>
            </compositeAttribute>
            <fetchRequest name="longBooks" entity="Book" predicateString="pages &gt;= $MIN AND title BEGINSWITH[cd] &quot;A&quot;" \
        fetchLimit="25" fetchOffset="5" fetchBatchSize="10" returnObjectsAsFaults="NO" returnDistinctResults="YES" \
        includesPendingChanges="NO"/>
            <fetchRequest name="bookIDs" entity="Book" resultType="1" includeSubentities="NO"/>
            <fetchRequest name="asDictionaries" entity="Book" resultType="2"/>
            <fetchRequest name="count" entity="Shelf" resultType="4"/>
            <configuration name="Cloud">
                <memberEntity name="Book"/>
                <memberEntity name="Author"/>
            </configuration>
            <configuration name="Local">
                <memberEntity name="Shelf"/>
                <memberEntity name="WallShelf"/>
            </configuration>
        </model>
        """

    @Test func everySettingTheReaderReadsIsWritten() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("Everything.xcdatamodel")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: false)
        try Data(Self.everything.utf8).write(to: source.appendingPathComponent("contents"))
        let model = try ManagedObjectModel(contentsOf: source)
        // The reader took everything in: the round trip below would not notice a setting it dropped on both sides.
        let book = try #require(model.entitiesByName["Book"])
        #expect(book.uniquenessConstraints == [["isbn"], ["title", "published"]])
        #expect(book.fetchIndexes.map(\.name) == ["byTitle", "byPagesAndTitle", "spatial"])
        #expect(book.fetchedProperties.map(\.name) == ["longer", "everyBook"])
        #expect(book.compositeAttributesByName["place"]?.userInfo["kind"] == "address")
        #expect(model.fetchRequestTemplatesByName.keys.sorted() == ["asDictionaries", "bookIDs", "count", "longBooks"])
        #expect(model.configurations["Cloud"] == ["Book", "Author"])
        #expect(model.versionIdentifiers == ["v7"])
        let label = try #require(model.entitiesByName["Shelf"]?.attributesByName["label"])
        #expect(label.defaultValue as? String == "Line one\n\"two\" <&>")
        #expect(label.renamingIdentifier == "title" && label.versionHashModifier == "m" && label.isStoredInExternalRecord)
        #expect(model.entitiesByName["Shelf"]?.relationshipsByName["books"]?.isStoredInExternalRecord == true)
        model.localizationDictionary = ["Entity/Book": "Livre", "Property/title/Entity/Book": "Titre \"long\"\n"]
        let back = try Self.roundTrip(model, "everything")
        #expect(back.localizationDictionary == model.localizationDictionary)
        #expect(FileManager.default.fileExists(atPath: folder.file("WrittenModel.strings").path) == false)
    }

    @Test func whatAnXcodeModelCannotHoldIsRefusedNamedAndNothingIsWritten() throws {
        let book = EntityDescription(name: "Book")
        let cover = AttributeDescription(name: "cover", type: .binaryData)
        cover.defaultAttributeValue = .data(Data([1, 2, 3]))
        let title = AttributeDescription(name: "title", type: .string)
        title.setValidationPredicates([try QueryPredicate(format: "SELF CONTAINS 'x'")], withValidationWarnings: ["no x"])
        let flag = AttributeDescription(name: "flag", type: .boolean)
        flag.minimumValue = .integer(0)
        book.properties = [cover, title, flag]
        var sorted = FetchedPropertyDescription(name: "similar", destinationEntityName: "Book")
        sorted.sortKeys = [.init(keyPath: "title")]
        book.fetchedProperties = [sorted]
        let model = ManagedObjectModel(entities: [book])
        var template = FetchRequestTemplate(entityName: "Book")
        template.sortDescriptors = [SortKey("title")]
        model.setFetchRequestTemplate(template, forName: "byTitle")
        model.versionIdentifiers = ["1", "2"]
        let folder = try TemporaryFolder()
        let url = folder.file("Book.xcdatamodel")
        do {
            try model.writeXcodeModel(to: url)
            Issue.record("A model an Xcode model cannot hold was written.")
        } catch let error as QuireError {
            #expect(error.code == .invalidArgument)
            for part in [
                "2 version identifiers (1, 2)", "'Book.cover' has a default value of type binaryData",
                "'Book.title' has validation predicates (SELF CONTAINS \"x\")", "'Book.flag' has a minimum on a boolean attribute",
"the fetched property 'Book.similar' is sorted (by title)",
                "the fetch request template 'byTitle' has sort descriptors",
            ] {
                #expect(error.message.contains(part), "\(part): \(error.message)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test func anExistingFolderIsNotReplaced() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Library.xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: url.appendingPathComponent("contents"))
        let model = try ManagedObjectModel(contentsOf: try FixtureFiles.url("XcodeModels/Library.xcdatamodel"))
        #expect(throws: QuireError.self) { try model.writeXcodeModel(to: url) }
        #expect(try Data(contentsOf: url.appendingPathComponent("contents")) == Data("mine".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["Library.xcdatamodel"])
    }
}
