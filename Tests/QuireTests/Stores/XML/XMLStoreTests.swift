import Foundation
import Testing

import Quire

/// The XML store's format, and hostile or broken XML refused with errors naming the element and line.
@Suite struct XMLStoreTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    private func open(_ url: URL, model: ManagedObjectModel = Fixtures.companyModel()) throws -> PersistentStoreCoordinator {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .xml, at: url)
        return coordinator
    }

    private func openError(_ xml: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> QuireError {
        let url = folder.file("Bad-\(UUID().uuidString).xml")
        try Data(xml.utf8).write(to: url)
        let error = try #require(throws: QuireError.self, sourceLocation: sourceLocation) { _ = try open(url) }
        #expect(error.context.file?.path == url.path)
        return error
    }

    private let info = """
        <databaseInfo><version>134481920</version><UUID>5B1D7B5E-0000-4000-8000-000000000001</UUID>
        <nextObjectID>10</nextObjectID><metadata><plist version="1.0"><dict>
        <key>NSStoreType</key><string>XML</string>
        <key>NSStoreUUID</key><string>5B1D7B5E-0000-4000-8000-000000000001</string>
        </dict></plist></metadata></databaseInfo>
        """

    @Test func writesCoreDataElements() throws {
        let url = folder.file("Company.xml")
        let coordinator = try open(url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let department = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Department"]), insertInto: context)
        department.setValue("R&D <1>", forKey: "name")
        let employee = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Employee"]), insertInto: context)
        employee.setValue("Ada", forKey: "name")
        employee.setValue(department, forKey: "department")
        try context.save()
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix("<?xml version=\"1.0\""))
        #expect(text.contains("<database>\n    <databaseInfo>\n        <version>134481920</version>"))
        #expect(text.contains("<key>NSStoreType</key>"))
        #expect(text.contains("<object type=\"DEPARTMENT\" id=\"z1\">"))
        #expect(text.contains("<attribute name=\"name\" type=\"string\">R&amp;D &lt;1&gt;</attribute>"))
        #expect(text.contains("<relationship name=\"department\" type=\"0/1\" destination=\"DEPARTMENT\" idrefs=\"z1\"></relationship>"))
        #expect(text.contains("<relationship name=\"employees\" type=\"0/0\" destination=\"EMPLOYEE\" idrefs=\"z2\"></relationship>"))
        #expect(text.contains("<nextObjectID>3</nextObjectID>"))
    }

    @Test func readsAStoreShapedLikeCoreDatas() throws {
        let url = folder.file("FromMac.xml")
        let xml = """
            <?xml version="1.0" standalone="yes"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

            <database>
            \(info)
                <object type="DEPARTMENT" id="z102">
                    <attribute name="name" type="string">Research</attribute>
                    <relationship name="employees" type="0/0" destination="EMPLOYEE" idrefs="z103"></relationship>
                </object>
                <object type="EMPLOYEE" id="z103">
                    <attribute name="name" type="string">Grace</attribute>
                    <attribute name="salary" type="int64">42</attribute>
                    <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z102"></relationship>
                </object>
            </database>
            """
        try Data(xml.utf8).write(to: url)
        let coordinator = try open(url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let employee = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee")).first)
        #expect(employee.value(forKey: "salary") as? Int64 == 42)
        #expect((employee.value(forKey: "department") as? ManagedObject)?.value(forKey: "name") as? String == "Research")
        #expect(coordinator.persistentStores.first?.identifier == "5B1D7B5E-0000-4000-8000-000000000001")
        #expect(employee.objectID.uriRepresentation().absoluteString.hasSuffix("/Employee/p103"))
    }

    @Test func entityExpansionIsRefused() throws {
        let error = try openError("""
            <?xml version="1.0"?>
            <!DOCTYPE database [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <database>\(info)<object type="DEPARTMENT" id="z1"><attribute name="name" type="string">&b;</attribute></object></database>
            """)
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("document type"))
        let padded = try openError("""
            <?xml version="1.0"?>
            <!-- \(String(repeating: "padding ", count: 1000)) -->
            <!DOCTYPE database [<!ENTITY a "aaaaaaaaaa">]>
            <database>\(info)<object type="DEPARTMENT" id="z1"><attribute name="name" type="string">&a;</attribute></object></database>
            """)
        #expect(padded.message.contains("document type"))
    }

    @Test func externalEntitiesAreRefused() throws {
        let error = try openError("""
            <?xml version="1.0"?>
            <!DOCTYPE database SYSTEM "file:///etc/passwd" [<!ENTITY x SYSTEM "file:///etc/hostname">]>
            <database>\(info)<object type="DEPARTMENT" id="z1"><attribute name="name" type="string">&x;</attribute></object></database>
            """)
        #expect(error.code == .fileReadCorruptFile)
        let undeclared = try openError("""
            <?xml version="1.0"?>
            <database>\(info)<object type="DEPARTMENT" id="z1"><attribute name="name" type="string">&x;</attribute></object></database>
            """)
        #expect(undeclared.code == .fileReadCorruptFile)
        #expect(undeclared.message.contains("line"))
    }

    @Test func deepNestingIsRefused() throws {
        let deep = String(repeating: "<array>", count: 100) + String(repeating: "</array>", count: 100)
        let error = try openError("""
            <?xml version="1.0"?>
            <database><databaseInfo><metadata><plist version="1.0"><dict><key>k</key>\(deep)</dict></plist></metadata></databaseInfo></database>
            """)
        #expect(error.message.contains("deeper than"))
    }

    @Test func badValuesNameTheElementAndLine() throws {
        let error = try openError("""
            <?xml version="1.0"?>
            <database>
            \(info)
            <object type="EMPLOYEE" id="z1">
            <attribute name="salary" type="int64">lots</attribute>
            </object>
            </database>
            """)
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("<attribute>"))
        #expect(error.message.contains("'lots'"))
        #expect(error.message.contains("line 9"))
        let dangling = try openError("""
            <?xml version="1.0"?>
            <database>\(info)<object type="EMPLOYEE" id="z1"><relationship name="department" idrefs="z99"></relationship></object></database>
            """)
        #expect(dangling.message.contains("z99"))
        let unknown = try openError("<?xml version=\"1.0\"?><database>\(info)<object type=\"ROBOT\" id=\"z1\"></object></database>")
        #expect(unknown.message.contains("ROBOT"))
        let broken = try openError("<?xml version=\"1.0\"?><database>\(info)<object type=\"EMPLOYEE\" id=\"z1\"></database>")
        #expect(broken.message.contains("not well-formed"))
    }

    @Test func stringsXMLCannotHoldRoundTrip() throws {
        let url = folder.file("Controls.xml")
        let text = "nul \u{0} bell \u{7} return \r\n end"
        do {
            let coordinator = try open(url)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            let department = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Department"]), insertInto: context)
            department.setValue(text, forKey: "name")
            try context.save()
        }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = try open(url)
        let department = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Department")).first)
        #expect(department.value(forKey: "name") as? String == text)
    }
}
