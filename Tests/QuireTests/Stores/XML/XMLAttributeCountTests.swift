import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// Elements with many attributes (issue 14): the count is capped and duplicates are found in linear time, in
/// the XML store and in model files alike (one scanner).
@Suite struct XMLAttributeCountTests {
    /// Scans `text` to its end.
    private func scan(_ text: String) throws(XMLSyntaxError) {
        var bytes = Array(text.utf8)
        let outcome: XMLSyntaxError? = bytes.withUnsafeMutableBytes { raw -> XMLSyntaxError? in
            var scanner = XMLByteScanner(UnsafeRawBufferPointer(raw), maximumValueSize: 1 << 20)
            do {
                while true {
                    if case .endOfInput = try scanner.next() { return nil }
                }
            } catch { return error as? XMLSyntaxError }
        }
        if let outcome { throw outcome }
    }

    private func element(_ count: Int, names: (Int) -> String = { "a\($0)" }) -> String {
        var text = "<e"
        for index in 0..<count { text += " \(names(index))=\"v\"" }
        return text + "/>"
    }

    @Test func twoHundredThousandAttributesAreRefusedByTheCap() throws {
        let error = try #require(throws: XMLSyntaxError.self) { try scan(element(200_000)) }
        #expect(error.reason.contains("more than 1024 attributes"), "\(error.reason)")
        try scan(element(XMLByteScanner.maximumAttributes))
    }

    @Test func duplicatesAreStillFoundAmongManyAttributes() throws {
        for (count, duplicateOf, at) in [(2, 0, 1), (9, 0, 8), (20, 3, 17), (1024, 1000, 1023), (1024, 0, 1023), (600, 8, 9)] {
            let text = element(count) { $0 == at ? "a\(duplicateOf)" : "a\($0)" }
            let error = try #require(throws: XMLSyntaxError.self) { try scan(text) }
            #expect(error.reason.contains("two 'a\(duplicateOf)' attributes"), "\(count): \(error.reason)")
        }
        // The table is emptied between tags: the same names on the next element are no duplicates.
        try scan("<r>" + element(50) + element(50) + element(3) + element(900) + "</r>")
    }

    @Test func anXMLStoreWithTooManyAttributesIsRefused() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Crowded.xml")
        var text = """
            <?xml version="1.0"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
            <database>
            <databaseInfo><version>134481920</version><UUID>5B1D7B5E-0000-4000-8000-000000000001</UUID>
            <nextObjectID>10</nextObjectID><metadata><plist version="1.0"><dict>
            <key>NSStoreType</key><string>XML</string>
            <key>NSStoreUUID</key><string>5B1D7B5E-0000-4000-8000-000000000001</string>
            </dict></plist></metadata></databaseInfo>
            <object type="DEPARTMENT" id="z1"
            """
        for index in 0..<200_000 { text += " a\(index)=\"\"" }
        text += "></object></database>\n"
        try Data(text.utf8).write(to: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: .xml, at: url) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("more than 1024 attributes") && error.message.contains(url.path), "\(error.message)")
    }
}
