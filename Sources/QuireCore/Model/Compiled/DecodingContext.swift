import QuireSupport
import Foundation

/// The state of one decoding pass: the resolver, the warnings so far, and typed access to archived fields
/// that throws ``CompiledModelError/invalidValue(key:className:expected:)`` on a value of the wrong kind.
final class DecodingContext {
    let resolver: ArchiveResolver
    let limits: DecodingLimits
    /// What the pass may still produce: shared with the reader and resolver; the conversions and the predicate
    /// formatter charge it too.
    var budget: DecodingBudget { resolver.budget }
    /// Properties already decoded, by reference: an entity's `NSProperties` lists the properties it inherits too,
    /// and each is decoded once for all the entities that list it.
    var decodedProperties: [UInt64: DecodedProperty] = [:]
    /// Predicates and expressions already rendered, by reference (see `formatted(_:_:)`).
    var formattedTexts: [UInt64: String] = [:]
    /// The properties the model's entities list, so far.
    private var propertiesListed = 0

    /// Counts properties an entity lists, throwing past ``DecodingLimits/maximumTotalProperties``: entities may
    /// list the same property objects (a sub-entity lists what it inherits), and a thousand entities listing the
    /// same thousand properties make a model of a million, refused before any is decoded.
    func countProperties(_ count: Int) throws {
        propertiesListed += count
        guard propertiesListed <= limits.maximumTotalProperties else {
            throw CompiledModelError.limitExceeded(what: "properties of all entities together", limit: limits.maximumTotalProperties)
        }
    }
    private(set) var warnings: [DecodingWarning] = []
    /// Warnings already given, so a model with the same oddity in every entity reports it once per place.
    private var warned = Set<DecodingWarning>()

    init(resolver: ArchiveResolver) {
        self.resolver = resolver
        self.limits = resolver.archive.limits
    }

    func warn(_ location: String, _ message: String) {
        let warning = DecodingWarning(location: location, message: message)
        guard warned.insert(warning).inserted else { return }
        warnings.append(warning)
    }

    /// Warns about every key of `object` outside `known`.
    func warnUnknownKeys(_ object: ArchivedObject, known: Set<String>, at location: String) {
        for key in object.fields.keys.sorted() where !known.contains(key) {
            warn(location, "unknown key '\(key)' of \(object.className)")
        }
    }

    // MARK: Typed fields

    func value(_ key: String, _ object: ArchivedObject) throws -> ArchiveValue {
        try resolver.value(key, of: object)
    }

    func string(_ key: String, _ object: ArchivedObject) throws -> String? {
        switch try value(key, object) {
        case .null: return nil
        case .string(let text): return text
        default: throw CompiledModelError.invalidValue(key: key, className: object.className, expected: "a string")
        }
    }

    func requiredString(_ key: String, _ object: ArchivedObject) throws -> String {
        guard let text = try string(key, object) else {
            throw CompiledModelError.missingKey(key: key, className: object.className)
        }
        return text
    }

    func bool(_ key: String, _ object: ArchivedObject, default defaultValue: Bool = false) throws -> Bool {
        try DecodingContext.bool(try value(key, object), key: key, className: object.className) ?? defaultValue
    }

    static func bool(_ value: ArchiveValue, key: String, className: String) throws -> Bool? {
        switch value {
        case .null: return nil
        case .boolean(let flag): return flag
        case .integer(let number): return number != 0
        case .string(let text):
            switch text.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0", "": return false
            default: break
            }
        default: break
        }
        throw CompiledModelError.invalidValue(key: key, className: className, expected: "a Boolean")
    }

    func int(_ key: String, _ object: ArchivedObject, default defaultValue: Int = 0) throws -> Int {
        try DecodingContext.int(try value(key, object), key: key, className: object.className) ?? defaultValue
    }

    static func int(_ value: ArchiveValue, key: String, className: String) throws -> Int? {
        switch value {
        case .null: return nil
        case .integer(let number):
            guard let result = Int(exactly: number) else { break }
            return result
        case .boolean(let flag): return flag ? 1 : 0
        case .real(let number):
            guard number.isFinite, number.rounded() == number, let result = Int(exactly: number) else { break }
            return result
        default: break
        }
        throw CompiledModelError.invalidValue(key: key, className: className, expected: "an integer")
    }

    func object(_ key: String, _ object: ArchivedObject) throws -> ArchivedObject? {
        switch try value(key, object) {
        case .null: return nil
        case .object(let target): return target
        default: throw CompiledModelError.invalidValue(key: key, className: object.className, expected: "an object")
        }
    }

    /// The elements of a collection field (arrays, sets, or the values of a dictionary), or `[]` when absent.
    func elements(_ key: String, _ object: ArchivedObject) throws -> [ArchiveValue] {
        switch try value(key, object) {
        case .null: return []
        case .array(let values), .set(let values): return values
        case .dictionary(let entries): return entries.map(\.value)
        default: throw CompiledModelError.invalidValue(key: key, className: object.className, expected: "a collection")
        }
    }

    /// The entries of a dictionary field with string keys, or `[]` when absent.
    func entries(_ key: String, _ object: ArchivedObject) throws -> [(key: String, value: ArchiveValue)] {
        switch try value(key, object) {
        case .null: return []
        case .dictionary(let entries):
            return try entries.map { entry in
                guard case .string(let name) = entry.key else {
                    throw CompiledModelError.invalidValue(key: key, className: object.className, expected: "a dictionary with string keys")
                }
                return (name, entry.value)
            }
        default: throw CompiledModelError.invalidValue(key: key, className: object.className, expected: "a dictionary")
        }
    }

    /// The property a `_NSPropertyDescriptionProxy` stands for (its `NSUnderlyingProperty`), or `value` itself
    /// when it is no proxy.
    ///
    /// Model caches written around 2016 (Core Data of macOS 10.12 and iOS 10) list each property a sub-entity
    /// inherits as such a proxy in the sub-entity's `NSProperties`: `NSUnderlyingProperty` is the superentity's
    /// own description, `NSEntityDescription` the sub-entity, `NSReferenceID` its index. Later caches list the
    /// property description itself.
    func unwrappingPropertyProxy(_ value: ArchiveValue, at location: String) throws -> ArchiveValue {
        guard case .object(let proxy) = value, proxy.isKind(of: "_NSPropertyDescriptionProxy") else { return value }
        warnUnknownKeys(proxy, known: ManagedObjectModelDecoder.propertyProxyKeys, at: location)
        switch try self.value("NSUnderlyingProperty", proxy) {
        case .object(let underlying) where underlying.isKind(of: "NSPropertyDescription"):
            return .object(underlying)
        case .null:
            throw CompiledModelError.missingKey(key: "NSUnderlyingProperty", className: proxy.className)
        case let other:
            throw CompiledModelError.unexpectedClass(
                expected: "NSPropertyDescription", found: other.kindName, context: "NSUnderlyingProperty of a property proxy of '\(location)'")
        }
    }

    /// A list of property names: strings, or property descriptions (their `NSPropertyName`).
    func names(_ value: ArchiveValue, key: String, className: String) throws -> [String] {
        guard let elements = value.elements else {
            if value.isNull { return [] }
            throw CompiledModelError.invalidValue(key: key, className: className, expected: "a list of names")
        }
        return try elements.map { element in
            switch try unwrappingPropertyProxy(element, at: className) {
            case .string(let name): return name
            case .object(let property) where property.fields["NSPropertyName"] != nil:
                return try requiredString("NSPropertyName", property)
            default:
                throw CompiledModelError.invalidValue(key: key, className: className, expected: "names or property descriptions")
            }
        }
    }

    // MARK: Model values

    /// A `userInfo` dictionary field.
    func userInfo(_ key: String, _ object: ArchivedObject) throws -> [String: ModelValue] {
        var result: [String: ModelValue] = [:]
        for (name, value) in try entries(key, object) {
            result[name] = try modelValue(value)
        }
        return result
    }

    /// Converts a resolved value to a self-contained ``ModelValue``, following archived objects' fields to
    /// ``DecodingLimits/maximumDepth``.
    func modelValue(_ value: ArchiveValue) throws -> ModelValue {
        var path = Set<UInt64>()
        return try modelValue(value, depth: 0, path: &path)
    }

    private func modelValue(_ value: ArchiveValue, depth: Int, path: inout Set<UInt64>) throws -> ModelValue {
        guard depth <= limits.maximumDepth else {
            throw CompiledModelError.limitExceeded(what: "levels of nested values", limit: limits.maximumDepth)
        }
        // Each value made is charged: a value tree that shares a subtree twice at every level is copied out
        // once per path, which the budget stops long before it runs away.
        try budget.charge()
        switch value {
        case .null: return .null
        case .boolean(let flag): return .boolean(flag)
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .string(let text):
            try budget.charge(values: 0, bytes: text.utf8.count)
            return .string(text)
        case .data(let bytes):
            try budget.charge(values: 0, bytes: bytes.count)
            return .data(bytes)
        case .date(let date): return .date(date)
        case .array(let values), .set(let values):
            return .array(try values.map { try modelValue($0, depth: depth + 1, path: &path) })
        case .dictionary(let entries):
            var result: [String: ModelValue] = [:]
            for entry in entries {
                let key: String
                switch entry.key {
                case .string(let text): key = text
                case .integer(let number): key = String(number)
                default: throw CompiledModelError.invalidValue(key: "dictionary key", className: "NSDictionary", expected: "a string")
                }
                result[key] = try modelValue(entry.value, depth: depth + 1, path: &path)
            }
            return .dictionary(result)
        case .object(let object):
            if let special = try specialValue(object) { return special }
            guard path.insert(object.uid).inserted else { throw CompiledModelError.referenceCycle(object.uid) }
            defer { path.remove(object.uid) }
            var fields: [String: ModelValue] = [:]
            for key in object.fields.keys {
                fields[key] = try modelValue(try self.value(key, object), depth: depth + 1, path: &path)
            }
            return .archivedObject(className: object.className, fields: fields)
        }
    }

    /// `NSUUID`, `NSURL` and `NSDecimalNumber` as values of their own.
    private func specialValue(_ object: ArchivedObject) throws -> ModelValue? {
        if object.isKind(of: "NSUUID"), case .data(let bytes) = try value("NS.uuidbytes", object), bytes.count == 16 {
            let b = [UInt8](bytes)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        }
        if object.isKind(of: "NSURL"), let relative = try string("NS.relative", object) {
            if let base = try self.object("NS.base", object), let baseString = try string("NS.relative", base) {
                return .url(URL(string: relative, relativeTo: URL(string: baseString))?.absoluteString ?? relative)
            }
            return .url(relative)
        }
        if object.isKind(of: "NSDecimalNumber"), case .data(let mantissaBytes) = try value("NS.mantissa", object) {
            let exponent = try int("NS.exponent", object)
            let negative = try bool("NS.negative", object)
            let bytes = [UInt8](mantissaBytes)
            // The mantissa is little-endian; only the first 8 bytes may be non-zero for a 64-bit significand.
            guard (-128...127).contains(exponent), bytes.dropFirst(8).allSatisfy({ $0 == 0 }) else { return nil }
            var significand: UInt64 = 0
            for (index, byte) in bytes.prefix(8).enumerated() { significand |= UInt64(byte) << (8 * UInt64(index)) }
            let magnitude = Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: Decimal(significand))
            return .decimal(magnitude)
        }
        return nil
    }
}
