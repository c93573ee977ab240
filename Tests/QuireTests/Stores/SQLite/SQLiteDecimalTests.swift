import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// Decimals in SQLite stores come back exactly: what Quire writes, and the REALs Core Data writes into its
/// `DECIMAL` columns (issue 14, item 3).
@Suite struct SQLiteDecimalTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    static let values = [
        "12345.6789", "-12345.6789", "0.1", "-0.1", "0", "0.0000001", "0.00000000000000000001", "1.0000000000000000001",
        "3.1415926535897932384626433832795028", "-98765432109876543210.123456789", "123456789012345678901234567890.12",
        "9223372036854775807", "-9223372036854775808", "99999999999999999999", "1000000000000000000000000",
        "123456789.12345679", "0.3333333333333333333333333333333333", "-7.25e-30",
    ].map { try! #require(Decimal(string: $0)) }

    private func decimals(_ stack: ConformanceStack) throws -> [String: Decimal] {
        var result: [String: Decimal] = [:]
        for sample in try stack.fetch("Sample") {
            let name = try #require(sample.value(forKey: "vString") as? String)
            result[name] = sample.value(forKey: "vDecimal") as? Decimal
        }
        return result
    }

    @Test func whatQuireWritesComesBackExactly() throws {
        let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder)
        for (index, value) in Self.values.enumerated() {
            _ = try stack.insert("Sample", ["vString": "v\(index)", "vDecimal": value])
        }
        try stack.context.save()
        let again = try stack.reopened()
        let read = try decimals(again)
        for (index, value) in Self.values.enumerated() {
            #expect(read["v\(index)"] == value, "\(value) came back as \(String(describing: read["v\(index)"]))")
        }
        // Comparisons and sorts see the numbers, whatever their storage class.
        let big = try again.fetch("Sample", "vDecimal > %@", Decimal(1_000_000) as NSDecimalNumber)
        let expected = Self.values.filter { $0 > 1_000_000 }.count
        #expect(big.count == expected)
        let sorted = try again.fetch("Sample", sort: [SortKey("vDecimal")])
        let order = sorted.compactMap { $0.value(forKey: "vDecimal") as? Decimal }
        let approximate = order.map { Double("\($0)") ?? 0 }
        #expect(approximate == approximate.sorted())
        #expect(order.count == Self.values.count)

        // What a Mac would read: the ones a double holds exactly are REALs (or INTEGERs), as Core Data writes.
        let db = try SQLiteConnection(url: try #require(stack.url), readOnly: true, create: false)
        defer { db.close() }
        let row = try db.prepare("SELECT typeof(ZVDECIMAL) FROM ZSAMPLE WHERE ZVSTRING = 'v0'")
        defer { row.finalize() }
        #expect(try row.step())
        #expect(row.string(at: 0) == "real")
    }

    @Test func realsWrittenByCoreDataReadAsTheirShortestText() throws {
        let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder)
        let reals = ["12345.6789", "0.1", "-2.5e-07", "1e+22", "123456789.12345679", "42.0", "-0.3"]
        for (index, _) in reals.enumerated() { _ = try stack.insert("Sample", ["vString": "r\(index)"]) }
        try stack.context.save()
        let url = try #require(stack.url)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        // As Core Data writes them: REAL values in the DECIMAL column.
        let db = try SQLiteConnection(url: url, readOnly: false, create: false)
        for (index, literal) in reals.enumerated() {
            try db.execute("UPDATE ZSAMPLE SET ZVDECIMAL = CAST('\(literal)' AS REAL) WHERE ZVSTRING = 'r\(index)'")
        }
        // (NUMERIC affinity keeps 42.0 as the INTEGER 42, on a Mac too.)
        let check = try db.prepare("SELECT count(*) FROM ZSAMPLE WHERE typeof(ZVDECIMAL) IN ('real', 'integer')")
        #expect(try check.step())
        #expect(check.int64(at: 0) == Int64(reals.count))
        check.finalize()
        db.close()

        let again = try stack.reopened()
        let read = try decimals(again)
        let expected = ["12345.6789", "0.1", "-0.00000025", "10000000000000000000000", "123456789.12345679", "42", "-0.3"]
        for (index, text) in expected.enumerated() {
            #expect(read["r\(index)"] == Decimal(string: text), "r\(index): \(String(describing: read["r\(index)"]))")
        }
    }
}
