import QuireSupport
import Foundation

/// Resolves the references of a ``KeyedArchive`` on demand.
///
/// Foundation's value and collection classes resolve to ``ArchiveValue`` cases; other class instances resolve
/// to ``ArchivedObject``s whose fields stay references until asked for, so a graph with cycles (entities and
/// their relationships) is walked one step at a time and never recursively. Collections are resolved
/// recursively, with a depth bound and a check for collections that contain themselves. Each object is resolved
/// once: every later reference shares the value, and charges the ``DecodingBudget`` with the whole value, as if
/// it were expanded, so that sharing cannot hide unbounded work.
///
/// Not `Sendable`: one resolver serves one decoding pass on one thread.
package final class ArchiveResolver {
    /// The archive being resolved.
    package let archive: KeyedArchive
    /// What the pass may still produce (shared with the property-list reader and the decoders).
    package let budget: DecodingBudget
    /// Resolved objects, with the values and bytes each charged when it was resolved.
    private var cache: [UInt64: (value: ArchiveValue, values: Int, bytes: Int)] = [:]
    private var inProgress = Set<UInt64>()

    /// Creates a resolver over an archive, charging `budget` (a pass of its own when nil).
    package init(archive: KeyedArchive, budget: DecodingBudget? = nil) {
        self.archive = archive
        self.budget = budget ?? DecodingBudget(limits: archive.limits)
    }

    private var limits: DecodingLimits { archive.limits }

    // MARK: Objects

    /// The class instance at a reference.
    ///
    /// - Throws: ``CompiledModelError/invalidValue(key:className:expected:)`` when the entry is not a class
    ///   instance, ``CompiledModelError/invalidClass(uid:reason:)`` when its class is malformed.
    package func object(at uid: UInt64) throws -> ArchivedObject {
        try budget.charge()
        guard let info = try archive.classInfo(of: uid), case .dictionary(var fields) = try archive.node(at: uid) else {
            throw CompiledModelError.invalidValue(key: "CF$UID \(uid)", className: "archive", expected: "a class instance")
        }
        fields["$class"] = nil
        return ArchivedObject(uid: uid, className: info.name, classNames: info.chain, fields: fields)
    }

    // MARK: Values

    /// The resolved value of a field of an object (``ArchiveValue/null`` when the key is absent).
    package func value(_ key: String, of object: ArchivedObject) throws -> ArchiveValue {
        guard let node = object.fields[key] else { return .null }
        return try resolve(node, depth: 0)
    }

    /// The resolved value of a field, nested `depth` levels deep in a resolution already under way.
    private func field(_ key: String, of object: ArchivedObject, depth: Int) throws -> ArchiveValue {
        guard let node = object.fields[key] else { return .null }
        return try resolve(node, depth: depth)
    }

    /// Resolves a node: a reference, or a value stored inline in an object's fields.
    package func resolve(_ node: PropertyListNode, depth: Int = 0) throws -> ArchiveValue {
        guard depth <= limits.maximumDepth else {
            throw CompiledModelError.limitExceeded(what: "levels of archived nesting", limit: limits.maximumDepth)
        }
        if case .uid(let uid) = node { return try resolve(uid: uid, depth: depth) }
        try budget.charge()
        switch node {
        case .uid: return .null
        case .null: return .null
        case .boolean(let value): return .boolean(value)
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .date(let value): return .date(value)
        case .data(let value):
            try budget.charge(values: 0, bytes: value.count)
            return .data(value)
        case .string(let value):
            try budget.charge(values: 0, bytes: value.utf8.count)
            return value == "$null" ? .null : .string(value)
        case .array(let elements):
            try count(elements.count)
            return .array(try elements.map { try resolve($0, depth: depth + 1) })
        case .dictionary:
            throw CompiledModelError.invalidValue(key: "inline value", className: "archive", expected: "a reference or a scalar")
        }
    }

    /// Resolves the entry of `$objects` at a reference.
    ///
    /// - Throws: ``CompiledModelError/referenceCycle(_:)`` when a collection contains itself,
    ///   ``CompiledModelError/limitExceeded(what:limit:)`` when nesting or work exceed the limits.
    package func resolve(uid: UInt64, depth: Int = 0) throws -> ArchiveValue {
        if let cached = cache[uid] {
            try budget.charge(values: cached.values, bytes: cached.bytes)
            return cached.value
        }
        let (values, bytes) = (budget.values, budget.bytes)
        let value = try resolveNew(uid: uid, depth: depth)
        cache[uid] = (value, budget.values - values, budget.bytes - bytes)
        return value
    }

    /// Resolves an entry of `$objects` not resolved before.
    private func resolveNew(uid: UInt64, depth: Int) throws -> ArchiveValue {
        guard depth <= limits.maximumDepth else {
            throw CompiledModelError.limitExceeded(what: "levels of archived nesting", limit: limits.maximumDepth)
        }
        let node = try archive.node(at: uid)
        guard case .dictionary(let fields) = node else {
            // Strings, numbers and "$null" are stored directly in $objects.
            if case .uid = node { throw CompiledModelError.invalidValue(key: "CF$UID \(uid)", className: "archive", expected: "an object, not a reference") }
            return try resolve(node, depth: depth)
        }
        guard let info = try archive.classInfo(of: uid) else {
            throw CompiledModelError.invalidValue(key: "CF$UID \(uid)", className: "archive", expected: "a class instance (it has no $class)")
        }
        guard inProgress.insert(uid).inserted else { throw CompiledModelError.referenceCycle(uid) }
        defer { inProgress.remove(uid) }
        try budget.charge()
        return try resolveInstance(uid: uid, className: info.name, chain: info.chain, fields: fields, depth: depth)
    }

    private func count(_ amount: Int) throws {
        guard amount <= limits.maximumCollectionCount else {
            throw CompiledModelError.limitExceeded(what: "elements in one collection", limit: limits.maximumCollectionCount)
        }
        try budget.charge(values: amount)
    }

    private func references(_ key: String, _ fields: [String: PropertyListNode], _ className: String) throws -> [PropertyListNode] {
        guard let field = fields[key] else { return [] }
        guard case .array(let elements) = field else {
            throw CompiledModelError.invalidValue(key: key, className: className, expected: "an array of references")
        }
        return elements
    }

    private func resolveInstance(
        uid: UInt64, className: String, chain: [String], fields: [String: PropertyListNode], depth: Int
    ) throws -> ArchiveValue {
        func isKind(_ name: String) -> Bool { className == name || chain.contains(name) }
        let classOnly = ArchivedObject(uid: uid, className: className, classNames: chain, fields: fields.filter { $0.key != "$class" })

        if className == "NSKnownKeysDictionary1" || isKind("NSKnownKeysDictionary") {
            return try resolveKnownKeysDictionary(classOnly, depth: depth)
        }
        if isKind("NSDictionary") {
            let keys = try references("NS.keys", fields, className)
            let values = try references("NS.objects", fields, className)
            guard keys.count == values.count else {
                throw CompiledModelError.invalidValue(key: "NS.keys", className: className, expected: "as many keys as NS.objects")
            }
            try count(keys.count)
            var entries: [ArchiveDictionaryEntry] = []
            entries.reserveCapacity(keys.count)
            for (key, value) in zip(keys, values) {
                entries.append(ArchiveDictionaryEntry(key: try resolve(key, depth: depth + 1), value: try resolve(value, depth: depth + 1)))
            }
            return .dictionary(entries)
        }
        if isKind("NSArray") || isKind("NSOrderedSet") || isKind("NSSet") {
            let elements = try references("NS.objects", fields, className)
            try count(elements.count)
            let values = try elements.map { try resolve($0, depth: depth + 1) }
            return isKind("NSSet") ? .set(values) : .array(values)
        }
        if isKind("NSString") {
            switch fields["NS.string"] ?? fields["NS.bytes"] {
            case .string(let text)?:
                try budget.charge(values: 0, bytes: text.utf8.count)
                return .string(text)
            case .data(let bytes)?:
                try budget.charge(values: 0, bytes: bytes.count)
                return .string(String(decoding: bytes, as: UTF8.self))
            case .uid(let reference)?: return try resolve(uid: reference, depth: depth + 1)
            default: throw CompiledModelError.invalidValue(key: "NS.string", className: className, expected: "a string")
            }
        }
        if isKind("NSData") {
            switch fields["NS.data"] ?? fields["NS.bytes"] {
            case .data(let bytes)?:
                try budget.charge(values: 0, bytes: bytes.count)
                return .data(bytes)
            case .uid(let reference)?: return try resolve(uid: reference, depth: depth + 1)
            default: throw CompiledModelError.invalidValue(key: "NS.data", className: className, expected: "data")
            }
        }
        if isKind("NSDate") {
            switch fields["NS.time"] {
            case .real(let seconds)? where seconds.isFinite: return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .integer(let seconds)?: return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
            default: throw CompiledModelError.invalidValue(key: "NS.time", className: className, expected: "a finite number")
            }
        }
        if className == "NSNull" { return .null }
        return .object(classOnly)
    }

    /// `NSKnownKeysDictionary1`, Core Data's dictionary of entities by name: values in `values`, keys in the
    /// `keys` of its `searchMapping`; slots holding `emptyToken` are empty.
    private func resolveKnownKeysDictionary(_ object: ArchivedObject, depth: Int) throws -> ArchiveValue {
        guard case .uid(let mappingUID)? = object.fields["searchMapping"] else {
            throw CompiledModelError.missingKey(key: "searchMapping", className: object.className)
        }
        let mapping = try self.object(at: mappingUID)
        guard case .array(let keys) = try field("keys", of: mapping, depth: depth + 1) else {
            throw CompiledModelError.invalidValue(key: "keys", className: mapping.className, expected: "an array")
        }
        guard case .array(let values) = try field("values", of: object, depth: depth + 1) else {
            throw CompiledModelError.invalidValue(key: "values", className: object.className, expected: "an array")
        }
        guard keys.count == values.count else {
            throw CompiledModelError.invalidValue(key: "values", className: object.className, expected: "as many values as keys")
        }
        let emptyToken = try field("emptyToken", of: object, depth: depth + 1)
        try count(keys.count)
        var entries: [ArchiveDictionaryEntry] = []
        for (key, value) in zip(keys, values) where !(value == emptyToken && !emptyToken.isNull) && !value.isNull {
            entries.append(ArchiveDictionaryEntry(key: key, value: value))
        }
        return .dictionary(entries)
    }
}
