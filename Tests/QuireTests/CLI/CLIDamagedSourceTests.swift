import Foundation
import Quire
import QuireCore
import QuireStores
import QuireTestSupport
import Testing

@testable import QuireStores
@testable import QuireSQLite

/// Damaged SQLite sources (rows no object graph can represent): `verify` names each, `convert` refuses them
/// (exit 3, nothing written), and the row reader refuses what it would otherwise coerce (issue 14, item 4).
@Suite(.serialized) struct CLIDamagedSourceTests {
    func harness() throws -> CLIHarness {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        return try CLIHarness(executable: executable)
    }

    /// A sound company store written by Quire at `url`.
    static func makeCompany(at url: URL) throws {
        let model = Fixtures.companyModel()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        func insert(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
            let object = ManagedObject(entity: try #require(model.entitiesByName[entity]), insertInto: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }
        let research = try insert("Department", ["name": "Research"])
        let ada = try insert("Employee", ["name": "Ada", "salary": 300])
        let dee = try insert("Manager", ["name": "Dee", "salary": 400, "level": 3])
        ada.setValue(research, forKey: "department")
        dee.setValue(research, forKey: "department")
        ada.setValue(try insert("Badge", ["code": "A-1"]), forKey: "badge")
        let engine = try insert("Project", ["title": "Engine"])
        engine.setValue(Set([ada, dee]), forKey: "members")
        try context.save()
        try coordinator.remove(store)
    }

    static func damage(_ url: URL, _ sql: String) throws {
        let db = try SQLiteConnection(url: url, readOnly: false, create: false)
        defer { db.close() }
        try db.execute(sql)
    }

    /// Each damage, and what `verify` and `convert` must say about it.
    static let damages: [(name: String, sql: String, message: String)] = [
        ("unknown-entity", "UPDATE ZEMPLOYEE SET Z_ENT = 99 WHERE ZNAME = 'Ada'", "column Z_ENT has the entity number 99"),
        ("dangling-to-one", "UPDATE ZEMPLOYEE SET ZDEPARTMENT = 999 WHERE ZNAME = 'Ada'",
         "column ZDEPARTMENT (Employee.department) refers to Z_PK 999 of Department, which does not exist"),
        ("zero-key", "UPDATE ZDEPARTMENT SET Z_PK = 0", "Table ZDEPARTMENT, row Z_PK 0, column Z_PK has the key 0"),
        ("text-in-integer", "UPDATE ZEMPLOYEE SET ZSALARY = 'lots' WHERE ZNAME = 'Ada'",
         "column ZSALARY (Employee.salary) holds the text lots where integer64 values are stored as integer"),
        ("blob-in-string", "UPDATE ZEMPLOYEE SET ZNAME = x'0102' WHERE ZNAME = 'Ada'",
         "column ZNAME (Employee.name) holds a blob where string values are stored as text"),
        ("out-of-range", "UPDATE ZEMPLOYEE SET ZLEVEL = 40000 WHERE ZNAME = 'Dee'",
         "column ZLEVEL (Manager.level) holds 40000, outside the range of integer16"),
        ("dangling-join", "DELETE FROM ZPROJECT", "Project, which does not exist"),
    ]

    @Test func verifyNamesAndConvertRefusesEachDamage() throws {
        let cli = try harness()
        let good = cli.folder.file("Good.sqlite")
        try Self.makeCompany(at: good)
        #expect(try cli.run("verify", "Good.sqlite").status == 0)
        for damage in Self.damages {
            let name = "\(damage.name).sqlite"
            try FileManager.default.copyItem(at: good, to: cli.folder.file(name))
            try Self.damage(cli.folder.file(name), damage.sql)

            let verify = try cli.run("verify", name)
            #expect(verify.status == 3, "\(damage.name): \(verify)")
            #expect(verify.stderr.contains(damage.message), "\(damage.name): \(verify)")

            for output in ["\(damage.name).xml", "\(damage.name).binary", "\(damage.name)-copy.sqlite", "\(damage.name).zip"] {
                let convert = try cli.run("convert", name, output)
                #expect(convert.status == 3, "\(damage.name) → \(output): \(convert)")
                #expect(convert.stderr.contains("cannot be converted faithfully"), "\(damage.name) → \(output): \(convert)")
                #expect(!FileManager.default.fileExists(atPath: cli.folder.file(output).path))
            }
        }
        #expect(try cli.listing().filter { $0.hasPrefix(".") } == [])
    }

    @Test func theRowReaderRefusesWhatItWouldCoerce() throws {
        let folder = try TemporaryFolder()
        let cases: [(sql: String, entity: String, column: String, key: String)] = [
            ("UPDATE ZEMPLOYEE SET ZSALARY = 'lots' WHERE ZNAME = 'Ada'", "Employee", "ZSALARY", "salary"),
            ("UPDATE ZEMPLOYEE SET ZNAME = x'0102' WHERE ZSALARY = 300", "Employee", "ZNAME", "name"),
            ("UPDATE ZEMPLOYEE SET ZLEVEL = 40000 WHERE ZNAME = 'Dee'", "Employee", "ZLEVEL", "level"),
            ("UPDATE ZEMPLOYEE SET ZSALARY = 2.5 WHERE ZNAME = 'Ada'", "Employee", "ZSALARY", "salary"),
        ]
        for (index, damage) in cases.enumerated() {
            let url = folder.file("Store\(index).sqlite")
            try Self.makeCompany(at: url)
            try Self.damage(url, damage.sql)
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            let request = FetchRequest<ManagedObject>(entityName: damage.entity)
            request.returnsObjectsAsFaults = false
            let error = try #require(throws: QuireError.self) { _ = try context.fetch(request) }
            #expect(error.code == .fileReadCorruptFile, "\(damage.sql): \(error)")
            #expect(error.message.contains("table Z\(damage.entity.uppercased())"), "\(damage.sql): \(error.message)")
            #expect(error.message.contains("column \(damage.column)"), "\(damage.sql): \(error.message)")
            #expect(error.message.contains("Row Z_PK "), "\(damage.sql): \(error.message)")
            #expect(error.context.key == damage.key)
        }
    }
}
