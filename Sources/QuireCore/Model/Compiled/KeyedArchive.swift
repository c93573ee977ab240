import QuireSupport
import Foundation

/// An `NSKeyedArchiver` archive: the `$objects` table, the `$top` references and the class of every object.
///
/// ```swift
/// let archive = try KeyedArchive(data: try RawInflate.inflate(blob))
/// let resolver = ArchiveResolver(archive: archive)
/// let root = try resolver.object(at: archive.rootUID)   // an NSManagedObjectModel
/// ```
package struct KeyedArchive: Sendable {
    /// `$objects`, as parsed.
    package let objects: [PropertyListNode]
    /// `$top`: the archive's named roots.
    package let top: [String: UInt64]
    /// `$version` (100000 for every archive Foundation writes).
    package let version: Int64?
    /// The limits the archive was read with; the resolver applies them too.
    package let limits: DecodingLimits

    /// Parses a keyed archive from binary property-list bytes, charging `budget` (a pass of its own when nil).
    ///
    /// - Throws: ``CompiledModelError/notAKeyedArchive(_:)`` when the list lacks `$archiver`
    ///   (`NSKeyedArchiver`), `$objects` or `$top`, and the errors of ``BinaryPropertyList/parse(_:limits:)``.
    package init(data: Data, limits: DecodingLimits = .default, budget: DecodingBudget? = nil) throws {
        let node = try BinaryPropertyList.parse(data, limits: limits, budget: budget)
        try self.init(propertyList: node, limits: limits)
    }

    /// Interprets a parsed property list as a keyed archive.
    ///
    /// - Throws: ``CompiledModelError/notAKeyedArchive(_:)`` when the structure is not a keyed archive.
    package init(propertyList node: PropertyListNode, limits: DecodingLimits = .default) throws {
        guard case .dictionary(let root) = node else {
            throw CompiledModelError.notAKeyedArchive("the top object is \(node.kindName), not a dictionary")
        }
        guard root["$archiver"]?.stringValue == "NSKeyedArchiver" else {
            throw CompiledModelError.notAKeyedArchive("$archiver is not NSKeyedArchiver")
        }
        guard case .array(let objects)? = root["$objects"] else {
            throw CompiledModelError.notAKeyedArchive("$objects is missing or not an array")
        }
        guard !objects.isEmpty, objects.count <= limits.maximumObjectCount else {
            throw CompiledModelError.notAKeyedArchive("$objects has \(objects.count) entries")
        }
        guard case .dictionary(let topEntries)? = root["$top"] else {
            throw CompiledModelError.notAKeyedArchive("$top is missing or not a dictionary")
        }
        var top: [String: UInt64] = [:]
        for (key, value) in topEntries {
            guard case .uid(let uid) = value else {
                throw CompiledModelError.notAKeyedArchive("$top.\(key) is \(value.kindName), not a CF$UID")
            }
            guard uid < UInt64(objects.count) else { throw CompiledModelError.invalidReference(uid) }
            top[key] = uid
        }
        if case .integer(let version)? = root["$version"] {
            self.version = version
        } else {
            self.version = nil
        }
        self.objects = objects
        self.top = top
        self.limits = limits
    }

    /// The reference of the root object (`$top.root`).
    ///
    /// - Throws: ``CompiledModelError/notAKeyedArchive(_:)`` when `$top` has no `root`.
    package func rootUID() throws -> UInt64 {
        guard let uid = top["root"] else { throw CompiledModelError.notAKeyedArchive("$top has no 'root'") }
        return uid
    }

    /// The raw entry of `$objects` at a reference.
    ///
    /// - Throws: ``CompiledModelError/invalidReference(_:)`` when the reference is out of range.
    package func node(at uid: UInt64) throws -> PropertyListNode {
        guard uid < UInt64(objects.count) else { throw CompiledModelError.invalidReference(uid) }
        return objects[Int(uid)]
    }

    /// The class name and class chain an object's `$class` reference names, or nil when the entry at `uid` is
    /// not a class instance (a string, a number, `$null`).
    ///
    /// - Throws: ``CompiledModelError/invalidClass(uid:reason:)`` when `$class` is not a reference to a
    ///   dictionary with a string `$classname` and a string array `$classes`.
    package func classInfo(of uid: UInt64) throws -> (name: String, chain: [String])? {
        guard case .dictionary(let fields) = try node(at: uid), let classField = fields["$class"] else { return nil }
        guard case .uid(let classUID) = classField else {
            throw CompiledModelError.invalidClass(uid: uid, reason: "$class is \(classField.kindName), not a CF$UID")
        }
        guard classUID < UInt64(objects.count), classUID != uid else {
            throw CompiledModelError.invalidClass(uid: uid, reason: "$class points at \(classUID)")
        }
        guard case .dictionary(let description) = objects[Int(classUID)] else {
            throw CompiledModelError.invalidClass(uid: uid, reason: "$class points at \(objects[Int(classUID)].kindName)")
        }
        guard case .string(let name)? = description["$classname"], !name.isEmpty else {
            throw CompiledModelError.invalidClass(uid: uid, reason: "the class has no $classname")
        }
        var chain: [String] = []
        if let classes = description["$classes"] {
            guard case .array(let names) = classes else {
                throw CompiledModelError.invalidClass(uid: uid, reason: "$classes is not an array")
            }
            for element in names {
                guard case .string(let className) = element else {
                    throw CompiledModelError.invalidClass(uid: uid, reason: "$classes holds \(element.kindName)")
                }
                chain.append(className)
            }
        }
        if chain.isEmpty { chain = [name] }
        return (name, chain)
    }
}
