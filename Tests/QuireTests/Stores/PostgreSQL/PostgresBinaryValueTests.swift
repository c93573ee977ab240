import Foundation
import Testing

import Quire
import QuirePostgres
import QuireStores

/// Values sent to the server as binary parameters and read back from binary results: every attribute type at its
/// extremes round trips through a save, a predicate on the value finds its object (the value bound as a binary
/// parameter in the WHERE clause), and dictionary fetches answer the same values. Multi-row INSERTs write runs
/// of one entity beside single rows of others.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresBinaryValueTests {
    private func stack(_ url: URL, model: ManagedObjectModel = Fixtures.everyTypeModel()) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// One sample's values, by key, and how to compare what comes back.
    struct Sample: Sendable, CustomStringConvertible {
        let name: String
        let values: [String: any Sendable]
        var description: String { name }
    }

    static let bigString = String(repeating: "Grüße, 東京 🚀 e\u{301} ", count: 20_000)
    static let bigData = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
    static let uuid = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF") ?? UUID()

    static let samples: [Sample] = [
        Sample(name: "minimums", values: [
            "vString": "minimums", "vInteger16": Int16.min, "vInteger32": Int32.min, "vInteger64": Int64.min,
            "vDouble": -Double.greatestFiniteMagnitude, "vFloat": -Float.greatestFiniteMagnitude, "vBoolean": false,
            "vDate": Date(timeIntervalSinceReferenceDate: -31_000_000_000.25),  // about 1018 AD
            "vDecimal": Decimal(string: "-123456789012345678901234567890.123456789") ?? 0,
            "vUuid": UUID(uuidString: "00000000-0000-0000-0000-000000000000") ?? UUID(),
            "vUri": URL(string: "file:///tmp/a%20b/c") as any Sendable, "plainData": Data(),
        ]),
        Sample(name: "maximums", values: [
            "vString": "maximums", "vInteger16": Int16.max, "vInteger32": Int32.max, "vInteger64": Int64.max,
            "vDouble": Double.greatestFiniteMagnitude, "vFloat": Float.greatestFiniteMagnitude, "vBoolean": true,
            "vDate": Date(timeIntervalSinceReferenceDate: 8_000_000_000.5),
            "vDecimal": Decimal(string: "0.000000000000000000000000000000000001") ?? 0, "vUuid": uuid,
            "vUri": URL(string: "https://example.org/p%C3%A4th?q=%E6%9D%B1&r=1#frag") as any Sendable, "plainData": bigData,
        ]),
        Sample(name: "infinities", values: [
            "vString": "infinities " + bigString, "vInteger64": Int64(-1), "vDouble": -Double.infinity, "vFloat": Float.infinity,
            "vDate": Date(timeIntervalSinceReferenceDate: -0.001), "vDecimal": Decimal(0), "vBoolean": true,
            "plainData": Data([0, 0, 0]),
        ]),
        Sample(name: "tiny", values: [
            "vString": "tiny\u{1F600}\u{FEFF}\u{7F}", "vInteger64": Int64(0), "vDouble": Double.leastNonzeroMagnitude,
            "vFloat": -Float.leastNonzeroMagnitude, "vDate": Date(timeIntervalSinceReferenceDate: 0), "vInteger16": Int16(-1),
            "vDecimal": Decimal(string: "-0.5") ?? 0,
        ]),
    ]

    /// Whether a value read back equals the one saved (NaN equals NaN; -0.0 keeps its sign).
    static func same(_ read: Any?, _ saved: any Sendable) -> Bool {
        switch saved {
        case let v as Int16: return read as? Int16 == v
        case let v as Int32: return read as? Int32 == v
        case let v as Int64: return read as? Int64 == v
        case let v as Double:
            guard let r = read as? Double else { return false }
            return v.isNaN ? r.isNaN : r.bitPattern == v.bitPattern
        case let v as Float:
            guard let r = read as? Float else { return false }
            return v.isNaN ? r.isNaN : r.bitPattern == v.bitPattern
        case let v as Bool: return read as? Bool == v
        case let v as Date:
            return (read as? Date)?.timeIntervalSinceReferenceDate.bitPattern == v.timeIntervalSinceReferenceDate.bitPattern
        case let v as Decimal: return read as? Decimal == v
        case let v as String: return read as? String == v
        case let v as Data: return read as? Data == v
        case let v as UUID: return read as? UUID == v
        case let v as URL: return read as? URL == v
        default: return false
        }
    }

    @Test func everyAttributeTypeRoundTripsAtItsExtremes() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let (coordinator, context) = try stack(url)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Sample"])
        for sample in Self.samples {
            let object = ManagedObject(entity: entity, insertInto: context)
            for (key, value) in sample.values { object.setValue(value, forKey: key) }
        }
        // NaNs in a row of their own (no predicate can find NaN: it equals nothing).
        let nan = ManagedObject(entity: entity, insertInto: context)
        nan.setValue("nan", forKey: "vString")
        nan.setValue(Double.nan, forKey: "vDouble")
        nan.setValue(Float.nan, forKey: "vFloat")
        try context.save()

        let (_, again) = try stack(url)
        let all = try again.fetch(FetchRequest<ManagedObject>(entityName: "Sample"))
        #expect(all.count == Self.samples.count + 1)
        for sample in Self.samples {
            let name = try #require(sample.values["vString"] as? String)
            let found = all.first { $0.value(forKey: "vString") as? String == name }
            let object = try #require(found, "\(sample) was not read back")
            for (key, value) in sample.values {
                #expect(Self.same(object.value(forKey: key), value), "\(sample).\(key): \(String(describing: object.value(forKey: key)))")
            }
            for key in ["vInteger16", "vInteger32", "vInteger64", "vDouble", "vDate", "vUuid", "vUri", "vBoolean"] {
                if sample.values[key] == nil { #expect(object.value(forKey: key) == nil, "\(sample).\(key)") }
            }
        }
        let readNaN = try #require(all.first { $0.value(forKey: "vString") as? String == "nan" })
        #expect((readNaN.value(forKey: "vDouble") as? Double)?.isNaN == true)
        #expect((readNaN.value(forKey: "vFloat") as? Float)?.isNaN == true)

        // Each value bound as a parameter of a predicate finds its own object and no other.
        for sample in Self.samples {
            for key in ["vInteger16", "vInteger32", "vInteger64", "vDouble", "vDate", "vUuid", "vString"] {
                guard let value = sample.values[key] else { continue }
                let request = FetchRequest<ManagedObject>(entityName: "Sample")
                request.predicate = try QueryPredicate(format: "%K == %@", key, value)
                let found = try again.fetch(request).compactMap { $0.value(forKey: "vString") as? String }
                #expect(found == [sample.values["vString"] as? String ?? ""], "\(sample).\(key) == value found \(found)")
            }
        }

        // A dictionary fetch answers the same values.
        let dictionaries = FetchRequest<[String: Any]>(entityName: "Sample")
        let keys = ["vString", "vInteger64", "vDouble", "vDate", "vDecimal", "vUuid", "plainData"]
        dictionaries.propertiesToFetch = ["vString", "vInteger64", "vDouble", "vDate", "vDecimal", "vUuid", "plainData"]
        let rows = try again.fetch(dictionaries)
        for sample in Self.samples {
            let row = try #require(rows.first { $0["vString"] as? String == sample.values["vString"] as? String })
            for key in keys {
                guard let value = sample.values[key] else { continue }
                #expect(Self.same(row[key], value), "dictionary \(sample).\(key): \(String(describing: row[key]))")
            }
        }
    }

    /// A save inserting long runs of one entity (multi-row INSERTs of up to 1,000 rows, then 512, 256, … for the
    /// rest) between single objects of a sub-entity sharing its table reads back every object with its own values
    /// and key.
    @Test func runsOfOneEntityAreInsertedManyRowsAStatement() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let (coordinator, context) = try stack(url, model: Fixtures.companyModel())
        let employee = try #require(coordinator.managedObjectModel.entitiesByName["Employee"])
        let manager = try #require(coordinator.managedObjectModel.entitiesByName["Manager"])
        var expected: [String: (Int64, Bool)] = [:]
        for index in 0..<2_345 {
            let isManager = index == 1_500 || index == 2_000 || index == 2_001
            let object = ManagedObject(entity: isManager ? manager : employee, insertInto: context)
            object.setValue("e\(index)", forKey: "name")
            object.setValue(Int64(index) * 1_000_003 - 7, forKey: "salary")
            if isManager { object.setValue(Int16(index % 7), forKey: "level") }
            expected["e\(index)"] = (Int64(index) * 1_000_003 - 7, isManager)
        }
        try context.save()
        let (_, again) = try stack(url, model: Fixtures.companyModel())
        let objects = try again.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
        #expect(objects.count == 2_345)
        #expect(Set(objects.compactMap { $0.objectID.primaryKey }).count == 2_345)
        for object in objects {
            let name = try #require(object.value(forKey: "name") as? String)
            let (salary, isManager) = try #require(expected[name])
            #expect(object.value(forKey: "salary") as? Int64 == salary, "\(name)")
            #expect((object.entity.name == "Manager") == isManager, "\(name)")
        }
    }

    /// A run long enough to go as COPY refuses text holding U+0000 before the server sees it, naming the object;
    /// nothing of the save is written, and the corrected save writes every row.
    @Test func aCopiedRunRefusesTextHoldingANul() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let (coordinator, context) = try stack(url, model: Fixtures.companyModel())
        let employee = try #require(coordinator.managedObjectModel.entitiesByName["Employee"])
        var bad: ManagedObject?
        for index in 0..<800 {
            let object = ManagedObject(entity: employee, insertInto: context)
            object.setValue(index == 650 ? "bad\u{0}name" : "e\(index)", forKey: "name")
            if index == 650 { bad = object }
        }
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.message.contains("NUL character"), "\(error.message)")
        #expect(error.message.contains("inserting the Employee with z_pk"), "\(error.message)")
        let (_, other) = try stack(url, model: Fixtures.companyModel())
        #expect(try other.count(for: FetchRequest<ManagedObject>(entityName: "Employee")) == 0)
        bad?.setValue("good name", forKey: "name")
        try context.save()
        #expect(try other.count(for: FetchRequest<ManagedObject>(entityName: "Employee")) == 800)
    }

    /// A copied run whose values fill the COPY's buffer mid-row, and values longer than the whole buffer (sent to
    /// libpq on their own), reads back every value exactly, each with its object.
    @Test func aCopiedRunCarriesValuesLongerThanItsBuffer() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let (coordinator, context) = try stack(url, model: Fixtures.companyModel())
        let employee = try #require(coordinator.managedObjectModel.entitiesByName["Employee"])
        func name(_ index: Int) -> String {
            // Mostly 3,001–3,100 bytes, so that flushes fall at changing places within rows; every 97th 300,000 or more.
            let length = index.isMultiple(of: 97) ? 300_000 + index : 3_001 + index % 100
            return "e\(index)-" + String(repeating: Character(UnicodeScalar(UInt8(97 + index % 26))), count: length)
        }
        for index in 0..<800 {
            let object = ManagedObject(entity: employee, insertInto: context)
            object.setValue(name(index), forKey: "name")
            object.setValue(Int64(index), forKey: "salary")
        }
        try context.save()
        let (_, again) = try stack(url, model: Fixtures.companyModel())
        let objects = try again.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
        #expect(objects.count == 800)
        var seen = Set<Int64>()
        for object in objects {
            let salary = try #require(object.value(forKey: "salary") as? Int64)
            seen.insert(salary)
            #expect(object.value(forKey: "name") as? String == name(Int(salary)), "employee \(salary)")
        }
        #expect(seen.count == 800)
    }
}
