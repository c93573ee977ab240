import QuireSupport
import Foundation

/// Writes an `NSKeyedArchiver` archive (`$archiver`, `$version` 100000, `$top.root`, `$objects`): objects are
/// entries of `$objects` named by `CF$UID`, their fields inline numbers and Booleans or references to other
/// entries, each class described once (`$classname`, `$classes`), `$objects[0]` the `$null` entry. What
/// ``ModelCacheEncoder`` writes models with; ``KeyedArchive`` and ``ArchiveResolver`` read the result.
///
/// ```swift
/// let archive = KeyedArchiveWriter()
/// let root = archive.reserve()
/// archive.fill(root, className: "NSArray", ["NS.objects": .references([archive.string("a")])])
/// let bytes = archive.data(root: root)
/// ```
final class KeyedArchiveWriter {
    /// A field of an archived object.
    enum Field {
        /// A reference to an entry (`$null` is entry 0).
        case reference(UInt64)
        /// An array of references (collections' `NS.objects` and `NS.keys`).
        case references([UInt64])
        /// An inline integer.
        case integer(Int64)
        /// An inline Boolean.
        case boolean(Bool)
        /// An inline real.
        case real(Double)
    }

    private var plist = BinaryPropertyListWriter()
    /// `$objects`, as property-list indexes (-1 while reserved).
    private var entries: [Int] = []
    private var strings: [String: UInt64] = [:]
    private var classes: [String: UInt64] = [:]

    /// An empty archive: entry 0 is `$null`.
    init() {
        entries.append(plist.string("$null"))
    }

    /// The `$null` entry.
    static let null: UInt64 = 0

    /// Reserves an entry, for objects that refer to each other (fill it with ``fill(_:className:superclasses:_:)``).
    func reserve() -> UInt64 {
        entries.append(-1)
        return UInt64(entries.count - 1)
    }

    /// A string entry, shared by every use of the same text.
    package func string(_ text: String) -> UInt64 {
        if let known = strings[text] { return known }
        entries.append(plist.string(text))
        let uid = UInt64(entries.count - 1)
        strings[text] = uid
        return uid
    }

    /// A number or Boolean entry (`NSNumber`, archived as the plain value).
    func integer(_ value: Int64) -> UInt64 { append(plist.integer(value)) }
    /// A real entry.
    func real(_ value: Double) -> UInt64 { append(plist.real(value)) }
    /// A Boolean entry.
    func boolean(_ value: Bool) -> UInt64 { append(plist.boolean(value)) }

    private func append(_ index: Int) -> UInt64 {
        entries.append(index)
        return UInt64(entries.count - 1)
    }

    /// An object entry of a class with its fields.
    func object(className: String, superclasses: [String] = ["NSObject"], _ fields: [String: Field]) -> UInt64 {
        let uid = reserve()
        fill(uid, className: className, superclasses: superclasses, fields)
        return uid
    }

    /// Fills a reserved entry with an object.
    func fill(_ uid: UInt64, className: String, superclasses: [String] = ["NSObject"], _ fields: [String: Field]) {
        var pairs: [(key: Int, value: Int)] = [(plist.string("$class"), plist.uid(classUID(className, superclasses)))]
        for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
            let value: Int
            switch field {
            case .reference(let uid): value = plist.uid(uid)
            case .references(let uids): value = plist.array(uids.map { plist.uid($0) })
            case .integer(let number): value = plist.integer(number)
            case .boolean(let flag): value = plist.boolean(flag)
            case .real(let number): value = plist.real(number)
            }
            pairs.append((plist.string(key), value))
        }
        entries[Int(uid)] = plist.dictionary(pairs)
    }

    /// An `NSData` entry (the bytes archived as `NS.data`).
    func data(_ bytes: Data) -> UInt64 {
        let uid = reserve()
        let fields = [(key: plist.string("$class"), value: plist.uid(classUID("NSData", ["NSObject"]))), (plist.string("NS.data"), plist.data(bytes))]
        entries[Int(uid)] = plist.dictionary(fields)
        return uid
    }

    /// An `NSDate` entry.
    func date(_ date: Date) -> UInt64 {
        object(className: "NSDate", ["NS.time": .real(date.timeIntervalSinceReferenceDate)])
    }

    /// An array entry (`NSArray`, or `NSMutableArray` and the like by `className`).
    func array(_ elements: [UInt64], className: String = "NSArray", superclasses: [String] = ["NSObject"]) -> UInt64 {
        object(className: className, superclasses: superclasses, ["NS.objects": .references(elements)])
    }

    /// A dictionary entry of string keys (`NSDictionary`, or `NSMutableDictionary` by `className`).
    func dictionary(
        _ pairs: [(key: String, value: UInt64)], className: String = "NSDictionary", superclasses: [String] = ["NSObject"]
    ) -> UInt64 {
        object(className: className, superclasses: superclasses, [
            "NS.keys": .references(pairs.map { string($0.key) }), "NS.objects": .references(pairs.map(\.value)),
        ])
    }

    /// The `$classes` description of a class, shared.
    private func classUID(_ name: String, _ superclasses: [String]) -> UInt64 {
        if let known = classes[name] { return known }
        let names = plist.array(([name] + superclasses).map { plist.string($0) })
        let uid = append(plist.dictionary([(plist.string("$classname"), plist.string(name)), (plist.string("$classes"), names)]))
        classes[name] = uid
        return uid
    }

    /// The archive's bytes, with `root` as `$top.root`; a reserved entry never filled is `$null`.
    func data(root: UInt64) -> Data {
        var writer = plist
        let null = writer.string("$null")
        let objects = writer.array(entries.map { $0 < 0 ? null : $0 })
        let top = writer.dictionary([(writer.string("root"), writer.uid(root))])
        let archive = writer.dictionary([
            (writer.string("$archiver"), writer.string("NSKeyedArchiver")), (writer.string("$objects"), objects),
            (writer.string("$top"), top), (writer.string("$version"), writer.integer(100000)),
        ])
        return writer.data(top: archive)
    }
}
