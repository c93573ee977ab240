import Foundation
import Testing

import Quire

/// Keys made at run time rather than written as literals: short (held in the string's own words) and long (held in
/// a buffer the string owns, which ends with it).
enum RuntimeKeys {
    static let short = ["sh", "ort"].joined()
    static let long = ["aRatherLongAttribute", "NameMadeAtRunTime"].joined()
}

/// A class whose `@Managed` keys are strings made at run time, not literals.
final class RuntimeKeyed: ManagedObject {
    @Managed(RuntimeKeys.short) var short: Int64
    @Managed(RuntimeKeys.long) var long: String?
    @Managed(String(repeating: "x", count: 1) + "Literal") var literalPart: Double

    /// The keys the wrappers report.
    var keys: [String] { [_short.key, _long.key, _literalPart.key] }
}

/// `@Managed` keeps its key without owning it (a literal as it is, another string interned once): these check that
/// keys given as strings made at run time read, write and report the same as literal ones, after the strings the
/// wrappers were given are gone.
@Suite struct ManagedKeyTests {
    static func model() -> ManagedObjectModel {
        let entity = EntityDescription(name: "Keyed", properties: [
            AttributeDescription(name: "short", type: .integer64),
            AttributeDescription(name: "aRatherLongAttributeNameMadeAtRunTime", type: .string),
            AttributeDescription(name: "xLiteral", type: .double),
        ])
        entity.managedObjectClass = RuntimeKeyed.self
        return ManagedObjectModel(entities: [entity])
    }

    @Test func keysMadeAtRunTimeReadAndWriteTheirAttributes() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Keys.sqlite")
        do {
            let (_, context) = try Fixtures.stack(Self.model(), at: url)
            // Many objects, each with its own wrappers made from the same run-time strings.
            for number in 0..<50 {
                let object = try #require(EntityDescription.insertNewObject(forEntityName: "Keyed", into: context) as? RuntimeKeyed)
                object.short = Int64(number)
                object.long = "value \(number), long enough to live in a buffer of its own"
                object.literalPart = Double(number) / 4
                #expect(object.value(forKey: "aRatherLongAttributeNameMadeAtRunTime") as? String == object.long)
            }
            try context.save()
        }
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let request = FetchRequest<RuntimeKeyed>(entityName: "Keyed")
        request.returnsObjectsAsFaults = false
        request.sortDescriptors = [SortKey("short")]
        let objects = try context.fetch(request)
        #expect(objects.count == 50)
        for (number, object) in objects.enumerated() {
            #expect(object.short == Int64(number))
            #expect(object.long == "value \(number), long enough to live in a buffer of its own")
            #expect(object.literalPart == Double(number) / 4)
            #expect(object.keys == ["short", "aRatherLongAttributeNameMadeAtRunTime", "xLiteral"])
        }
    }

    @Test func aWrappersKeyOutlivesTheStringItWasGiven() {
        var wrappers: [Managed<Int64>] = []
        for number in 0..<20 {
            // Each key is a new string in a buffer of its own, released at the end of the iteration.
            let key = String(repeating: "k", count: 20) + String(number % 4)
            wrappers.append(Managed<Int64>(key))
        }
        #expect(wrappers.map(\.key) == (0..<20).map { String(repeating: "k", count: 20) + String($0 % 4) })
        // Reading the key many times neither frees nor leaks the interned copy: each read's string is retained
        // and released in balance (an unbalanced release would free the copy within the loop).
        var length = 0
        for _ in 0..<100_000 { length &+= wrappers[0].key.utf8.count }
        #expect(length == 2_100_000)
        #expect(wrappers[0].key == String(repeating: "k", count: 20) + "0")
        let literal = Managed<Int64>("a literal key longer than fifteen bytes")
        #expect(literal.key == "a literal key longer than fifteen bytes")
        #expect(Managed<Int64>("i1").key == "i1")
        #expect(Managed<Int64>("").key == "")
    }
}
