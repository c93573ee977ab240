import CZlib
import Foundation
import QuireCore

/// Builds keyed archives of models in code, with the sharing hostile inputs use: property-list objects that
/// several containers refer to, and `$objects` entries that several `CF$UID`s refer to. Small on disk (nothing is
/// written unless a test asks), as large in memory as the test needs.
final class ArchiveBuilder {
    /// The property list's objects; containers refer to them by index.
    private(set) var plist: [TestPlistWriter.Raw] = []
    /// `$objects`: the property-list index of each entry (`CF$UID` n is entry n).
    private var entries: [Int] = []
    private var strings: [String: Int] = [:]
    private var classes: [String: UInt64] = [:]

    init() {
        _ = entry(plistObject(.string("$null")))
    }

    /// Adds a property-list object and returns its index.
    func plistObject(_ raw: TestPlistWriter.Raw) -> Int {
        plist.append(raw)
        return plist.count - 1
    }

    /// A property-list string, shared by every use of the same text (as Foundation's writer shares them).
    func string(_ text: String) -> Int {
        if let known = strings[text] { return known }
        let index = plistObject(.string(text))
        strings[text] = index
        return index
    }

    /// A `CF$UID` object referring to entry `uid`.
    func uid(_ uid: UInt64) -> Int { plistObject(.uid(uid)) }

    /// Appends a `$objects` entry holding property-list object `index` and returns its `CF$UID`.
    func entry(_ index: Int) -> UInt64 {
        entries.append(index)
        return UInt64(entries.count - 1)
    }

    /// Reserves an entry to fill later (objects that refer to each other).
    func reserve() -> UInt64 { entry(-1) }

    /// Fills a reserved entry.
    func fill(_ uid: UInt64, _ index: Int) { entries[Int(uid)] = index }

    /// The `$classes` entry of a class, shared.
    func classUID(_ name: String, _ superclasses: [String] = ["NSObject"]) -> UInt64 {
        if let known = classes[name] { return known }
        let names = plistObject(.array(([name] + superclasses).map(string)))
        let description = plistObject(.dictionary([(string("$classname"), string(name)), (string("$classes"), names)]))
        let uid = entry(description)
        classes[name] = uid
        return uid
    }

    /// An archived object's dictionary: `$class` and the fields (property-list indexes).
    func instance(_ className: String, _ superclasses: [String] = ["NSObject"], _ fields: [String: Int]) -> Int {
        var pairs = [(key: string("$class"), value: uid(classUID(className, superclasses)))]
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) { pairs.append((string(key), value)) }
        return plistObject(.dictionary(pairs))
    }

    /// An `$objects` entry of an archived object.
    func object(_ className: String, _ superclasses: [String] = ["NSObject"], _ fields: [String: Int]) -> UInt64 {
        entry(instance(className, superclasses, fields))
    }

    /// An `NSArray` entry of the given entries.
    func array(_ elements: [UInt64]) -> UInt64 {
        object("NSArray", ["NSObject"], ["NS.objects": plistObject(.array(elements.map(uid)))])
    }

    /// An `NSDictionary` entry of string keys and entries.
    func dictionary(_ pairs: [(String, UInt64)]) -> UInt64 {
        object("NSDictionary", ["NSObject"], [
            "NS.keys": plistObject(.array(pairs.map { uid(entry(string($0.0))) })),
            "NS.objects": plistObject(.array(pairs.map { uid($0.1) })),
        ])
    }

    /// An `NSEntityDescription` entry (filled into `uid` when given).
    @discardableResult
    func entity(_ name: String, properties: UInt64?, userInfo: UInt64? = nil, into uid: UInt64? = nil) -> UInt64 {
        var fields = ["NSEntityName": self.uid(entry(string(name)))]
        if let properties { fields["NSProperties"] = self.uid(properties) }
        if let userInfo { fields["NSUserInfo"] = self.uid(userInfo) }
        let index = instance("NSEntityDescription", ["NSObject"], fields)
        if let uid {
            fill(uid, index)
            return uid
        }
        return entry(index)
    }

    /// An optional string `NSAttributeDescription` entry, with validation predicates when given.
    func attribute(_ name: String, predicates: [UInt64] = []) -> UInt64 {
        var fields = [
            "NSPropertyName": uid(entry(string(name))), "NSAttributeType": plistObject(.integer(700)),
            "NSIsOptional": plistObject(.boolean(true)),
        ]
        if !predicates.isEmpty {
            fields["NSValidationPredicates"] = uid(array(predicates))
            fields["NSValidationWarnings"] = uid(array(predicates.map { _ in entry(string("invalid")) }))
        }
        return object("NSAttributeDescription", ["NSPropertyDescription", "NSObject"], fields)
    }

    /// The root `NSManagedObjectModel` over entities; call once, last but for ``data()``.
    func model(entities: [UInt64]) {
        fill(1, instance("NSManagedObjectModel", ["NSObject"], ["NSEntities": uid(array(entities))]))
    }

    /// The archive's bytes: `$top.root` is entry 1 (reserve it first with ``reserveRoot()``).
    func data() -> Data {
        let objects = plistObject(.array(entries.map { $0 < 0 ? string("$null") : $0 }))
        let top = plistObject(.dictionary([(string("root"), uid(1))]))
        let root = plistObject(.dictionary([
            (string("$archiver"), string("NSKeyedArchiver")), (string("$version"), plistObject(.integer(100000))),
            (string("$top"), top), (string("$objects"), objects),
        ]))
        return TestPlistWriter.write(plist, top: root)
    }

    /// Reserves entry 1 for the model (call first, before any other entry).
    func reserveRoot() {
        precondition(entries.count == 1)
        _ = reserve()
    }

    /// Raw DEFLATE of an archive, as `Z_MODELCACHE` holds it.
    static func rawDeflate(_ data: Data) -> Data {
        var stream = z_stream()
        guard deflateInit2_(&stream, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return Data() }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
        let produced = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                _ = deflate(&stream, Z_FINISH)
                return outputBuffer.count - Int(stream.avail_out)
            }
        }
        return Data(output.prefix(produced))
    }
}
