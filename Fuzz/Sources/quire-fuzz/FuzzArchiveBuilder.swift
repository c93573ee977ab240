import Foundation

/// Turns a fuzz input into a keyed archive of a model whose objects share references: the input is read as a
/// program (one byte at a time, zeros past its end) that makes `$objects` entries of the classes Core Data
/// archives (entities, attributes, relationships, property proxies, predicates, expressions, fetch requests,
/// arrays, sets, dictionaries, strings, numbers, data), whose fields name other entries by number, earlier,
/// later or themselves, so that a few hundred bytes make the cycles, diamonds and wide fan-outs of shared
/// references that byte mutation of real archives rarely makes. Property-list objects are shared too: equal
/// strings and `CF$UID`s are written once, and "wide" arrays refer to one element up to 65,535 times.
///
/// The archive is written as a binary property list by ``FuzzPlistWriter`` (our own; the fuzz package reaches
/// Quire only through its public API).
struct FuzzArchiveBuilder {
    private var input: [UInt8]
    private var position = 0
    private var writer = FuzzPlistWriter()
    /// `$objects`, as property-list indexes.
    private var entries: [Int] = []
    private var classes: [String: UInt64] = [:]

    /// The largest number of `$objects` entries a program makes (besides class descriptions).
    static let maximumEntries = 96

    init(_ data: Data) {
        input = [UInt8](data)
    }

    /// The archive the input describes.
    static func archive(from data: Data) -> Data {
        var builder = FuzzArchiveBuilder(data)
        return builder.build()
    }

    private mutating func next() -> UInt8 {
        defer { position += 1 }
        return position < input.count ? input[position] : 0
    }

    private mutating func next16() -> Int { Int(next()) << 8 | Int(next()) }

    private mutating func entry(_ index: Int) -> UInt64 {
        entries.append(index)
        return UInt64(entries.count - 1)
    }

    private mutating func classUID(_ chain: [String]) -> UInt64 {
        if let known = classes[chain[0]] { return known }
        let names = chain.map { writer.string($0) }
        let description = writer.dictionary([
            (writer.string("$classname"), writer.string(chain[0])), (writer.string("$classes"), writer.array(names)),
        ])
        let uid = entry(description)
        classes[chain[0]] = uid
        return uid
    }

    private mutating func instance(_ chain: [String], _ fields: [(String, Int)]) -> Int {
        let classReference = writer.uid(classUID(chain))
        return writer.dictionary([(writer.string("$class"), classReference)] + fields.map { (writer.string($0.0), $0.1) })
    }

    /// A reference to one of the `count` entries the program makes (numbered from 2; 0 is `$null`).
    private mutating func reference(_ count: Int) -> Int {
        let pick = Int(next())
        return writer.uid(pick % 7 == 0 ? 0 : UInt64(2 + pick % count))
    }

    private mutating func build() -> Data {
        _ = entry(writer.string("$null"))
        let root = entry(-1)
        let count = 1 + Int(next()) % Self.maximumEntries
        let first = entries.count
        // Entries 2 ..< 2 + count, made in order; class descriptions follow them.
        for _ in 0..<count { _ = entry(-1) }
        for slot in first..<(first + count) {
            entries[slot] = makeEntry(count: count)
        }
        entries[Int(root)] = instance(["NSManagedObjectModel", "NSObject"], [
            ("NSEntities", reference(count)), ("NSFetchRequestTemplates", reference(count)),
            ("NSConfigurations", reference(count)), ("NSVersionIdentifiers", reference(count)),
        ])
        let objects = writer.array(entries)
        let top = writer.dictionary([(writer.string("root"), writer.uid(1))])
        let archive = writer.dictionary([
            (writer.string("$archiver"), writer.string("NSKeyedArchiver")), (writer.string("$version"), writer.integer(100000)),
            (writer.string("$top"), top), (writer.string("$objects"), objects),
        ])
        return writer.finish(top: archive)
    }

    /// One entry: a value or an archived object whose fields refer to entries.
    private mutating func makeEntry(count: Int) -> Int {
        switch next() % 20 {
        case 0: return writer.string(["name", "Item", "Owner", "items", "owner", "x", "$null", "NSString"][Int(next()) % 8])
        case 1: return writer.integer(Int64(Int8(bitPattern: next())))
        case 2:
            // Data, now and then large: one object many references can share.
            let large = next() % 16 == 0
            let length = large ? next16() * 16 : Int(next())
            return writer.data(length: length, fill: next())
        case 3, 4:
            let wide = next() % 8 == 0
            let elements = wide ? [Int](repeating: reference(count), count: next16()) : (0..<Int(next()) % 6).map { _ in reference(count) }
            let set = next() % 2 == 0
            return instance(set ? ["NSSet", "NSObject"] : ["NSArray", "NSObject"], [("NS.objects", writer.array(elements))])
        case 5:
            let size = Int(next()) % 5
            let keys = (0..<size).map { _ in reference(count) }
            let values = (0..<size).map { _ in reference(count) }
            return instance(["NSDictionary", "NSObject"], [("NS.keys", writer.array(keys)), ("NS.objects", writer.array(values))])
        case 6:
            return instance(["NSEntityDescription", "NSObject"], [
                ("NSEntityName", reference(count)), ("NSProperties", reference(count)), ("NSUserInfo", reference(count)),
                ("NSSuperentity", reference(count)), ("NSSubentities", reference(count)), ("NSUniqueTuples", reference(count)),
                ("NSFetchIndexDescriptions", reference(count)), ("NSIsAbstract", writer.boolean(next() % 4 == 0)),
            ])
        case 7, 8:
            let types: [Int64] = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 1800, 2100, 0]
            return instance(["NSAttributeDescription", "NSPropertyDescription", "NSObject"], [
                ("NSPropertyName", reference(count)), ("NSEntity", reference(count)),
                ("NSAttributeType", writer.integer(types[Int(next()) % types.count])),
                ("NSDefaultValue", reference(count)), ("NSValidationPredicates", reference(count)),
                ("NSValidationWarnings", reference(count)), ("NSUserInfo", reference(count)),
                ("_P", writer.integer(Int64(next()))), ("NSFlagsKey", writer.integer(Int64(next() % 64))),
                ("NSDerivationExpression", reference(count)),
            ])
        case 9:
            return instance(["NSRelationshipDescription", "NSPropertyDescription", "NSObject"], [
                ("NSPropertyName", reference(count)), ("NSEntity", reference(count)), ("NSDestinationEntity", reference(count)),
                ("NSInverseRelationship", reference(count)), ("NSMaxCount", writer.integer(Int64(next() % 3))),
                ("NSDeleteRule", writer.integer(Int64(next() % 4))),
            ])
        case 10:
            return instance(["_NSPropertyDescriptionProxy", "NSObject"], [
                ("NSUnderlyingProperty", reference(count)), ("NSEntityDescription", reference(count)),
                ("NSReferenceID", writer.integer(Int64(next()))),
            ])
        case 11, 12:
            return instance(["NSCompoundPredicate", "NSPredicate", "NSObject"], [
                ("NSCompoundPredicateType", writer.integer(Int64(next() % 3))), ("NSSubpredicates", reference(count)),
            ])
        case 13:
            let op = instance(["NSComparisonPredicateOperator", "NSObject"], [
                ("NSOperatorType", writer.integer(Int64(next() % 12))), ("NSModifier", writer.integer(Int64(next() % 3))),
            ])
            return instance(["NSComparisonPredicate", "NSPredicate", "NSObject"], [
                ("NSLeftExpression", reference(count)), ("NSRightExpression", reference(count)), ("NSPredicateOperator", writer.uid(entry(op))),
            ])
        case 14:
            let kinds = ["NSConstantValueExpression", "NSKeyPathExpression", "NSFunctionExpression", "NSAggregateExpression",
                         "NSSubqueryExpression", "NSTernaryExpression", "NSKeyPathSpecifierExpression", "NSVariableExpression"]
            return instance([kinds[Int(next()) % kinds.count], "NSExpression", "NSObject"], [
                ("NSExpressionType", writer.integer(Int64(next() % 21))), ("NSConstantValue", reference(count)),
                ("NSArguments", reference(count)), ("NSOperand", reference(count)), ("NSCollection", reference(count)),
                ("NSKeyPath", reference(count)), ("NSSubpredicate", reference(count)), ("NSPredicate", reference(count)),
                ("NSSelectorName", reference(count)), ("NSVariable", reference(count)),
            ])
        case 15:
            return instance(["NSFetchRequest", "NSObject"], [
                ("NSEntity", reference(count)), ("NSPredicate", reference(count)), ("NSSortDescriptors", reference(count)),
                ("NSValuesToFetch", reference(count)),
            ])
        case 16:
            return instance(["NSFetchedPropertyDescription", "NSPropertyDescription", "NSObject"], [
                ("NSPropertyName", reference(count)), ("NSFetchRequest", reference(count)),
            ])
        case 17:
            let text = String(repeating: "s", count: next() % 16 == 0 ? next16() * 16 : Int(next()))
            return instance(["NSMutableString", "NSString", "NSObject"], [("NS.string", writer.string(text))])
        case 18:
            return instance(["NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSDictionary", "NSObject"], [
                ("values", reference(count)), ("searchMapping", reference(count)), ("emptyToken", reference(count)),
            ])
        default:
            return instance(["NSKnownKeysMappingStrategy1", "NSObject"], [("keys", reference(count))])
        }
    }
}

/// A binary property-list writer for ``FuzzArchiveBuilder``: objects are appended as they are made and refer to
/// each other by index; equal strings, integers and `CF$UID`s are written once and shared.
struct FuzzPlistWriter {
    private var objects: [[UInt8]] = []
    private var shared: [String: Int] = [:]

    private mutating func add(_ bytes: [UInt8]) -> Int {
        objects.append(bytes)
        return objects.count - 1
    }

    private mutating func sharedObject(_ key: String, _ bytes: @autoclosure () -> [UInt8]) -> Int {
        if let known = shared[key] { return known }
        let index = add(bytes())
        shared[key] = index
        return index
    }

    private static func marker(_ high: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [high | UInt8(count)] : [high | 0x0F, 0x13] + bigEndian(UInt64(count), 8)
    }

    private static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// References are written as 4-byte indexes, patched in ``finish(top:)``; until then a container keeps them
    /// as placeholders.
    private var containers: [Int: [Int]] = [:]

    mutating func string(_ text: String) -> Int {
        sharedObject("s" + text, Self.marker(0x50, text.utf8.count) + Array(text.utf8))
    }

    mutating func integer(_ value: Int64) -> Int {
        sharedObject("i\(value)", [0x13] + Self.bigEndian(UInt64(bitPattern: value), 8))
    }

    mutating func boolean(_ value: Bool) -> Int { sharedObject("b\(value)", [value ? 0x09 : 0x08]) }

    mutating func uid(_ value: UInt64) -> Int { sharedObject("u\(value)", [0x83] + Self.bigEndian(value, 4)) }

    mutating func data(length: Int, fill: UInt8) -> Int {
        add(Self.marker(0x40, length) + [UInt8](repeating: fill, count: length))
    }

    mutating func array(_ elements: [Int]) -> Int {
        let index = add(Self.marker(0xA0, elements.count))
        containers[index] = elements
        return index
    }

    mutating func dictionary(_ pairs: [(Int, Int)]) -> Int {
        let index = add(Self.marker(0xD0, pairs.count))
        containers[index] = pairs.map(\.0) + pairs.map(\.1)
        return index
    }

    /// The property list's bytes, with `top` as its top object.
    func finish(top: Int) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt64] = []
        for (index, object) in objects.enumerated() {
            offsets.append(UInt64(bytes.count))
            bytes += object
            for reference in containers[index] ?? [] { bytes += Self.bigEndian(UInt64(reference), 4) }
        }
        let table = UInt64(bytes.count)
        for offset in offsets { bytes += Self.bigEndian(offset, 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 4]
        bytes += Self.bigEndian(UInt64(objects.count), 8) + Self.bigEndian(UInt64(top), 8) + Self.bigEndian(table, 8)
        return Data(bytes)
    }
}
