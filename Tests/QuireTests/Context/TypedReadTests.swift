import Foundation
import Testing

import Quire

/// A record with an attribute of every type `@Managed` reads without boxing, read through properties of their own
/// types, of optional types, and of other integer widths.
final class TypedReading: ManagedObject {
    @Managed("count") var count: Int64
    @Managed("count") var countAsInt: Int
    @Managed("count") var countAsInt32: Int32
    @Managed("count") var countAsInt16: Int16
    @Managed("count") var optionalCount: Int64?
    @Managed("score") var score: Double
    @Managed("score") var optionalScore: Double?
    @Managed("ratio") var ratio: Float
    @Managed("title") var title: String
    @Managed("title") var optionalTitle: String?
    @Managed("done") var done: Bool
    @Managed("done") var optionalDone: Bool?
    @Managed("due") var due: Date
    @Managed("due") var optionalDue: Date?
    @Managed("bytes") var bytes: Data
    @Managed("bytes") var optionalBytes: Data?
    @Managed("small") var small: Int16
    @Managed("small") var smallAsInt64: Int64
    @Managed("code") var code: UUID?
    @ManagedProperty var note: String?
    @ManagedProperty("count") var countByMacro: Int64
}

/// A sub-entity's record: the inherited attributes come first, its own after them.
final class TypedSpecialReading: ManagedObject {
    @Managed("count") var count: Int64
    @Managed("title") var title: String?
    @Managed("extra") var extra: Int64
    @Managed("extraTitle") var extraTitle: String?
}

/// `@Managed` and `@ManagedProperty` properties read the stored values straight from the object (the row a fetch
/// left packed, or the values once unpacked by a change), through readers specialized for each property's type:
/// these check that every read gives what `value(forKey:)` gives, in each state an object's values can be in.
@Suite struct TypedReadTests {
    static let due = Date(timeIntervalSinceReferenceDate: 812_345_678.25)
    static let bytes = Data([0, 1, 2, 250])
    static let longTitle = String(repeating: "a long title, kept out of line; ", count: 12)

    static func model(withUUID: Bool = false) -> ManagedObjectModel {
        var properties: [PropertyDescription] = [
            AttributeDescription(name: "count", type: .integer64),
            AttributeDescription(name: "score", type: .double),
            AttributeDescription(name: "ratio", type: .float),
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "done", type: .boolean),
            AttributeDescription(name: "due", type: .date),
            AttributeDescription(name: "bytes", type: .binaryData),
            AttributeDescription(name: "small", type: .integer16),
            AttributeDescription(name: "note", type: .string),
        ]
        // A UUID value is one the packed form does not cover: such a row is kept as arrays.
        if withUUID { properties.append(AttributeDescription(name: "code", type: .uuid)) }
        let reading = EntityDescription(name: "Reading", properties: properties)
        let special = EntityDescription(name: "Special", properties: [
            AttributeDescription(name: "extra", type: .integer64),
            AttributeDescription(name: "extraTitle", type: .string),
        ])
        reading.subentities = [special]
        reading.managedObjectClass = TypedReading.self
        special.managedObjectClass = TypedSpecialReading.self
        return ManagedObjectModel(entities: [reading, special])
    }

    static func fill(_ reading: ManagedObject, count: Int64, title: String?) {
        reading.setValue(count, forKey: "count")
        reading.setValue(-0.125, forKey: "score")
        reading.setValue(Float(1.5), forKey: "ratio")
        reading.setValue(title, forKey: "title")
        reading.setValue(true, forKey: "done")
        reading.setValue(due, forKey: "due")
        reading.setValue(bytes, forKey: "bytes")
        reading.setValue(Int16(-300), forKey: "small")
    }

    /// Every property of a filled reading against the values `fill` stored.
    static func expectFilled(_ reading: TypedReading, count: Int64, title: String) {
        #expect(reading.count == count)
        #expect(reading.countAsInt == Int(count))
        #expect(reading.countAsInt32 == Int32(clamping: count))
        #expect(reading.countAsInt16 == Int16(clamping: count))
        #expect(reading.optionalCount == count)
        #expect(reading.countByMacro == count)
        #expect(reading.score == -0.125)
        #expect(reading.optionalScore == -0.125)
        #expect(reading.ratio == 1.5)
        #expect(reading.title == title)
        #expect(reading.optionalTitle == title)
        #expect(reading.done == true)
        #expect(reading.optionalDone == true)
        #expect(reading.due == due)
        #expect(reading.optionalDue == due)
        #expect(reading.bytes == bytes)
        #expect(reading.optionalBytes == bytes)
        #expect(reading.small == -300)
        #expect(reading.smallAsInt64 == -300)
        #expect(reading.note == nil)
    }

    /// A store with two filled readings (a count that fits every width, one that fits none but 64 bits), an empty
    /// one, and a special one.
    func savedStore(withUUID: Bool = false) throws -> (TemporaryFolder, URL) {
        let folder = try TemporaryFolder()
        let url = folder.file("Typed.sqlite")
        let (coordinator, context) = try Fixtures.stack(Self.model(withUUID: withUUID), at: url)
        let small = EntityDescription.insertNewObject(forEntityName: "Reading", into: context)
        Self.fill(small, count: 42, title: "short")
        let large = EntityDescription.insertNewObject(forEntityName: "Reading", into: context)
        Self.fill(large, count: 5_000_000_000, title: Self.longTitle)
        if withUUID {
            small.setValue(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), forKey: "code")
        }
        _ = EntityDescription.insertNewObject(forEntityName: "Reading", into: context)
        let special = EntityDescription.insertNewObject(forEntityName: "Special", into: context)
        special.setValue(Int64(7), forKey: "count")
        special.setValue("inherited", forKey: "title")
        special.setValue(Int64(-9), forKey: "extra")
        special.setValue("its own", forKey: "extraTitle")
        try context.save()
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return (folder, url)
    }

    /// The three readings of `savedStore`, fetched by `count` (nil, 42, 5,000,000,000).
    func fetchReadings(_ context: ManagedObjectContext, asFaults: Bool) throws -> [TypedReading] {
        let request = FetchRequest<TypedReading>(entityName: "Reading")
        request.includesSubentities = false
        request.returnsObjectsAsFaults = asFaults
        request.sortDescriptors = [SortKey("count")]
        return try context.fetch(request)
    }

    @Test(arguments: [false, true])
    func fetchedObjectsReadEveryTypeAsValueForKeyDoes(asFaults: Bool) throws {
        let (folder, url) = try savedStore()
        defer { _ = folder }
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let readings = try fetchReadings(context, asFaults: asFaults)
        try #require(readings.count == 3)
        let (empty, small, large) = (readings[0], readings[1], readings[2])
        Self.expectFilled(small, count: 42, title: "short")
        Self.expectFilled(large, count: 5_000_000_000, title: Self.longTitle)
        // A count too large for the narrower widths reads clamped, as the general path converts.
        #expect(large.countAsInt32 == Int32.max)
        #expect(large.countAsInt16 == Int16.max)
        // Nil values: optionals read nil, the others zero, empty or the reference date.
        #expect(empty.optionalCount == nil)
        #expect(empty.count == 0)
        #expect(empty.optionalScore == nil)
        #expect(empty.score == 0)
        #expect(empty.optionalTitle == nil)
        #expect(empty.title == "")
        #expect(empty.optionalDone == nil)
        #expect(empty.done == false)
        #expect(empty.optionalDue == nil)
        #expect(empty.due == Date(timeIntervalSinceReferenceDate: 0))
        #expect(empty.optionalBytes == nil)
        #expect(empty.bytes == Data())
        // Read out of order (the key hint guessing wrong), and twice.
        #expect(small.bytes == Self.bytes)
        #expect(small.count == 42)
        #expect(small.title == "short")
        #expect(small.title == "short")
        #expect(small.value(forKey: "title") as? String == "short")
    }

    @Test func aChangedObjectReadsItsNewValuesAndRollbackTheOldOnes() throws {
        let (folder, url) = try savedStore()
        defer { _ = folder }
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let small = try fetchReadings(context, asFaults: false)[1]
        small.count = 43
        small.title = "changed"
        small.setValue(nil, forKey: "bytes")
        #expect(small.count == 43)
        #expect(small.countAsInt16 == 43)
        #expect(small.title == "changed")
        #expect(small.optionalBytes == nil)
        #expect(small.score == -0.125)
        #expect(small.due == Self.due)
        context.rollback()
        Self.expectFilled(small, count: 42, title: "short")
    }

    @Test func aRefreshedObjectReadsTheStoresValues() throws {
        let (folder, url) = try savedStore()
        defer { _ = folder }
        let (coordinator, context) = try Fixtures.stack(Self.model(), at: url)
        let small = try fetchReadings(context, asFaults: false)[1]
        // Another context changes the record and saves.
        let other = ManagedObjectContext()
        other.persistentStoreCoordinator = coordinator
        let theirs = try fetchReadings(other, asFaults: false)[1]
        theirs.title = "saved elsewhere"
        theirs.count = 44
        try other.save()
        #expect(small.title == "short")
        context.refresh(small, mergeChanges: false)
        #expect(small.isFault)
        #expect(small.title == "saved elsewhere")
        #expect(small.count == 44)
        #expect(small.countByMacro == 44)
    }

    @Test func aSubEntitysObjectReadsItsInheritedAndItsOwnAttributes() throws {
        let (folder, url) = try savedStore()
        defer { _ = folder }
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let request = FetchRequest<TypedSpecialReading>(entityName: "Special")
        let specials = try context.fetch(request)
        try #require(specials.count == 1)
        #expect(specials[0].count == 7)
        #expect(specials[0].title == "inherited")
        #expect(specials[0].extra == -9)
        #expect(specials[0].extraTitle == "its own")
        // Read through the parent's request: the same object.
        let all = FetchRequest<ManagedObject>(entityName: "Reading")
        let special = try #require(try context.fetch(all).first { $0 is TypedSpecialReading } as? TypedSpecialReading)
        #expect(special === specials[0])
        #expect(special.extra == -9)
    }

    @Test func aRowKeptAsArraysReadsTheSameValues() throws {
        let (folder, url) = try savedStore(withUUID: true)
        defer { _ = folder }
        let (_, context) = try Fixtures.stack(Self.model(withUUID: true), at: url)
        for asFaults in [false, true] {
            context.reset()
            let readings = try fetchReadings(context, asFaults: asFaults)
            try #require(readings.count == 3)
            Self.expectFilled(readings[1], count: 42, title: "short")
            #expect(readings[1].code == UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
            #expect(readings[0].optionalCount == nil)
            #expect(readings[0].code == nil)
        }
    }

    @Test func anInsertedObjectReadsItsValues() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Self.model(), at: folder.file("Inserted.sqlite"))
        let reading = try #require(EntityDescription.insertNewObject(forEntityName: "Reading", into: context) as? TypedReading)
        #expect(reading.optionalCount == nil)
        Self.fill(reading, count: -5, title: "new")
        Self.expectFilled(reading, count: -5, title: "new")
        reading.note = "noted"
        #expect(reading.note == "noted")
    }

    @Test func aFaultWhoseContextIsGoneReadsItsRow() throws {
        let (folder, url) = try savedStore()
        defer { _ = folder }
        var readings: [TypedReading] = []
        do {
            let (_, context) = try Fixtures.stack(Self.model(), at: url)
            readings = try fetchReadings(context, asFaults: true)
        }
        try #require(readings.count == 3)
        #expect(readings[1].count == 42)
        #expect(readings[1].title == "short")
        #expect(readings[2].count == 5_000_000_000)
    }
}
