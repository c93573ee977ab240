import Foundation
import Testing

import Quire
import QuirePostgres
import QuireStores
import QuireTestSupport

/// Rows of a PostgreSQL store changed behind the store's back are refused as SQLite's are (the one row reader):
/// a typed error naming the table, the row and the column, never a value made up from them.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresDamagedRowTests {
    /// A store with Ada (an employee of Research) and Dee (a manager), then `damage` run on it by another
    /// session; returns the error of fetching the employees filled.
    private func fetchError(after damage: (String) -> String) throws -> QuireError {
        let url = try #require(PostgresTestServer.storeURL())
        let schema = try PostgresURL(url).schema
        try PostgresCompanyStore.save(at: url)
        let admin = try PostgresConnection(url: PostgresURL(try #require(PostgresTestServer.storeURL(schema: "public"))))
        _ = try admin.execute(damage("\"\(schema)\".zemployee"))
        let (_, context) = try PostgresCompanyStore.stack(url)
        let request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.returnsObjectsAsFaults = false
        return try #require(throws: QuireError.self) { _ = try context.fetch(request) }
    }

    @Test func aForeignKeyThatIsNoKeyIsRefused() throws {
        let error = try fetchError { "UPDATE \($0) SET zdepartment = 0 WHERE zname = 'Ada'" }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("of table zemployee in the PostgreSQL store"), "\(error)")
        #expect(error.message.contains("column zdepartment holds the integer 0, not the key of a row"), "\(error)")
        #expect(error.message.contains("Row z_pk "), "\(error)")
    }

    @Test func anIntegerOutsideItsTypesRangeIsRefused() throws {
        let error = try fetchError { "UPDATE \($0) SET zlevel = 40000 WHERE zname = 'Dee'" }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("column zlevel (Manager.level) holds the integer 40000, outside the range of integer16"), "\(error)")
        #expect(error.context.key == "level")
    }

    @Test func aRowNumberedAsAnEntityOfAnotherTableIsRefused() throws {
        let error = try fetchError { table in
            let numbers = table.replacingOccurrences(of: "zemployee", with: "z_primarykey")
            return "UPDATE \(table) SET z_ent = (SELECT z_ent FROM \(numbers) WHERE z_name = 'Department') WHERE zname = 'Ada'"
        }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("read as Employee"), "\(error)")
        #expect(error.message.contains("(Department), which is not Employee or one of its sub-entities"), "\(error)")
    }
}
