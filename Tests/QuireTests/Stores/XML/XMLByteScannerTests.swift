import Foundation
import Testing

import Quire

/// The XML store's own scanner: references, Core Data's formatting variations, and every hostile or truncated
/// input refused with a typed error naming the file and the line, never a crash.
@Suite struct XMLByteScannerTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    private static let info = """
        <databaseInfo><version>134481920</version><UUID>5B1D7B5E-0000-4000-8000-000000000001</UUID>
        <nextObjectID>10</nextObjectID><metadata><plist version="1.0"><dict>
        <key>NSStoreType</key><string>XML</string>
        <key>NSStoreUUID</key><string>5B1D7B5E-0000-4000-8000-000000000001</string>
        </dict></plist></metadata></databaseInfo>
        """

    private func write(_ bytes: Data) throws -> URL {
        let url = folder.file("Store-\(UUID().uuidString).xml")
        try bytes.write(to: url)
        return url
    }

    private func open(_ url: URL) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        try coordinator.addPersistentStore(type: .xml, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The names of the departments of a store given as text.
    private func departmentNames(_ xml: String) throws -> [String] {
        try departmentNames(Data(xml.utf8))
    }

    private func departmentNames(_ bytes: Data) throws -> [String] {
        let context = try open(try write(bytes))
        return try context.fetch(FetchRequest<ManagedObject>(entityName: "Department"))
            .compactMap { $0.value(forKey: "name") as? String }.sorted()
    }

    private func openError(_ bytes: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> QuireError {
        let url = try write(bytes)
        let error = try #require(throws: QuireError.self, sourceLocation: sourceLocation) { _ = try open(url) }
        #expect(error.code == .fileReadCorruptFile, sourceLocation: sourceLocation)
        #expect(error.context.file?.path == url.path, sourceLocation: sourceLocation)
        #expect(error.message.contains(url.path), sourceLocation: sourceLocation)
        return error
    }

    private func openError(_ xml: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> QuireError {
        try openError(Data(xml.utf8), sourceLocation: sourceLocation)
    }

    private func store(_ objects: String) -> String {
        "<?xml version=\"1.0\"?>\n<database>\n\(Self.info)\n\(objects)\n</database>\n"
    }

    // MARK: References

    @Test func entitiesAndCharacterReferencesAreDecodedInTextAndAttributes() throws {
        let names = try departmentNames(store("""
            <object type="DEP&#65;RTM&#x45;NT" id="z1">
            <attribute name="n&#97;me" type="string">A &amp; B &lt;&gt; &quot;q&quot; &apos;s&apos; &#65;&#x42;&#x1F600; &#13;</attribute>
            </object>
            """))
        #expect(names == ["A & B <> \"q\" 's' AB😀 \r"])
    }

    @Test func unknownOrMalformedReferencesAreRefused() throws {
        for reference in ["&foo;", "&#0;", "&#x1;", "&#xD800;", "&#x110000;", "&#;", "&#xG;", "& B", "&amp", "&#99999999999999;"] {
            let error = try openError(store("<object type=\"DEPARTMENT\" id=\"z1\"><attribute name=\"name\" type=\"string\">A\(reference)</attribute></object>"))
            #expect(error.message.contains("line"), "\(reference)")
            #expect(error.message.contains("not well-formed"), "\(reference)")
        }
        // In an attribute value the reader never uses, too.
        let ignored = try openError(store("<object type=\"DEPARTMENT\" id=\"z1\" note=\"&bad;\"></object>"))
        #expect(ignored.message.contains("&bad;"))
    }

    // MARK: Core Data's formatting variations

    @Test func coreDataFormattingVariationsAreRead() throws {
        let xml = "\u{FEFF}" + """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <!-- written by Core Data -->
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
            <?some-instruction data?>
            <database>
            \(Self.info)
              <!-- objects follow -->
              <object id = 'z1'
                      type = 'DEPARTMENT' >
                <attribute type="string" name="name"><![CDATA[R&D <lab>]]></attribute>
                <relationship idrefs="z2 z3" destination="EMPLOYEE" type="0/0" name="employees"/>
              </object>
              <object type="DEPARTMENT" id="z4"><attribute name="name" type="string"/></object>
              <object type="DEPARTMENT" id="z5"><attribute name="name" type="string">one<!-- cut -->two</attribute></object>
              <object type="EMPLOYEE" id="z2"><attribute name="salary" type="int64"> 7 </attribute></object>
              <object type="EMPLOYEE" id="z3">
                <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z1"></relationship>
              </object>
            </database>
            <!-- trailing comment -->

            """
        let crlf = xml.replacingOccurrences(of: "\n", with: "\r\n")
        for text in [xml, crlf] {
            let context = try open(try write(Data(text.utf8)))
            let departments = try context.fetch(FetchRequest<ManagedObject>(entityName: "Department"))
            #expect(Set(departments.compactMap { $0.value(forKey: "name") as? String }) == ["R&D <lab>", "", "onetwo"])
            let lab = try #require(departments.first { $0.value(forKey: "name") as? String == "R&D <lab>" })
            #expect((lab.value(forKey: "employees") as? Set<ManagedObject>)?.count == 2)
            let employees = try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
            #expect(employees.contains { $0.value(forKey: "salary") as? Int64 == 7 })
        }
    }

    @Test func lineEndsInTextAreNormalizedAsXMLSays() throws {
        let names = try departmentNames(store("<object type=\"DEPARTMENT\" id=\"z1\"><attribute name=\"name\" type=\"string\">a\r\nb\rc\n</attribute></object>"))
        #expect(names == ["a\nb\nc\n"])
    }

    @Test func headOnlyReadsAcceptTheSameVariations() throws {
        let url = try write(Data("""
            <?xml version='1.0'?><!DOCTYPE database>
            <database><!-- c --><databaseInfo><version>1</version><UUID> ABC </UUID><nextObjectID>3</nextObjectID>
            <metadata><plist version="1.0"><dict><key>k&amp;</key><string>v&#x20;w</string><key>NSStoreType</key><string>XML</string></dict></plist></metadata>
            </databaseInfo><object type="NOT-AN-ENTITY" id="junk"/></database>
            """.utf8))
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .xml, at: url)
        #expect(metadata["k&"]?.stringValue == "v w")
        #expect(metadata[StoreMetadataKey.storeUUID]?.stringValue == "ABC")
    }

    // MARK: Hostile and broken input

    @Test func everyTruncationIsRefused() throws {
        let xml = Data(store("""
            <object type="DEPARTMENT" id="z1"><attribute name="name" type="string">R&amp;D</attribute>
            <relationship name="employees" type="0/0" destination="EMPLOYEE" idrefs="z2"/></object>
            <object type="EMPLOYEE" id="z2"><relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z1"></relationship></object>
            """).utf8)
        #expect(try departmentNames(xml) == ["R&D"])
        let end = try #require(xml.range(of: Data("</database>".utf8))?.upperBound)
        // An empty file is a new store (the atomic store's rule, not the reader's); every other prefix is refused.
        for length in stride(from: 1, to: end, by: 1) {
            let url = try write(xml.prefix(length))
            #expect(throws: QuireError.self, "length \(length)") { _ = try open(url) }
        }
    }

    @Test func mismatchedAndUnclosedTagsAreRefused() throws {
        let mismatched = try openError(store("<object type=\"DEPARTMENT\" id=\"z1\"><attribute name=\"name\" type=\"string\">x</object></attribute>"))
        #expect(mismatched.message.contains("</object> does not close <attribute>"))
        let unclosed = try openError("<?xml version=\"1.0\"?><database>\(Self.info)<object type=\"DEPARTMENT\" id=\"z1\">")
        #expect(unclosed.message.contains("ends before </object>"))
        let stray = try openError(store("</object>"))
        #expect(stray.message.contains("does not close <database>"))
        for broken in ["<object type=\"DEPARTMENT\" id=\"z1\"", "<object type=\"DEPARTMENT\" id=\"z1\" id=\"z2\"/>", "<object type=DEPARTMENT/>",
            "<object type=\"a<b\"/>", "<object type=\"DEPARTMENT\"id=\"z1\"/>", "<1object/>", "<object/ >", "text ]]> here", "<!ELEMENT x ANY>"]
        {
            let error = try openError(store(broken))
            #expect(error.message.contains("line"), "\(broken)")
        }
    }

    @Test func onlyCoreDatasDocumentTypeIsAccepted() throws {
        #expect(try departmentNames("<!DOCTYPE database SYSTEM \"x.dtd\"><database>\(Self.info)</database>") == [])
        for prolog in ["<!DOCTYPE other>", "<!DOCTYPE database [ ]>", "<!DOCTYPE database SYSTEM \"a\" [<!ENTITY e \"x\">]>",
            "<!DOCTYPE database><!DOCTYPE database>", "<!ENTITY e \"x\">", "<!DOCTYPE databases>"]
        {
            let error = try openError("<?xml version=\"1.0\"?>\(prolog)<database>\(Self.info)</database>")
            #expect(error.message.contains("document type"), "\(prolog)")
        }
        let late = try openError("<database>\(Self.info)<!DOCTYPE database></database>")
        #expect(late.message.contains("document type"))
    }

    @Test func garbageAroundTheRootIsRefused() throws {
        let after = try openError(store("") + "junk")
        #expect(after.message.contains("after the root element"))
        let second = try openError(store("") + "<database/>")
        #expect(second.message.contains("after the root element"))
        let before = try openError("junk<database>\(Self.info)</database>")
        #expect(before.message.contains("before the root element"))
        let empty = try openError("<?xml version=\"1.0\"?>")
        #expect(empty.message.contains("no root element") || empty.message.contains("databaseInfo"))
        let otherRoot = try openError("<?xml version=\"1.0\"?><store>\(Self.info)</store>")
        #expect(otherRoot.code == .fileReadCorruptFile)
    }

    @Test func deepNestingAnywhereIsRefused() throws {
        let deep = String(repeating: "<x>", count: 100) + String(repeating: "</x>", count: 100)
        let error = try openError(store("<object type=\"DEPARTMENT\" id=\"z1\"><relationship name=\"employees\">\(deep)</relationship></object>"))
        #expect(error.message.contains("deeper than 64"))
        #expect(error.message.contains("is invalid at line"))
    }

    @Test func invalidUTF8AndControlCharactersInValuesAreRefused() throws {
        var bytes = Data(store("<object type=\"DEPARTMENT\" id=\"z1\"><attribute name=\"name\" type=\"string\">ab#</attribute></object>").utf8)
        let mark = try #require(bytes.firstIndex(of: UInt8(ascii: "#")))
        for invalid: UInt8 in [0xFF, 0xC3, 0x80] {
            bytes[mark] = invalid
            let error = try openError(bytes)
            #expect(error.message.contains("in <attribute>"))
            #expect(error.message.contains("not a valid string value") || error.message.contains("UTF-8"))
        }
        bytes[mark] = 0x01
        let control = try openError(bytes)
        #expect(control.message.contains("control character"))
        #expect(try departmentNames(store("<object type=\"DEPARTMENT\" id=\"z1\"><attribute name=\"name\" type=\"string\">é – 😀</attribute></object>")) == ["é – 😀"])
    }
}
