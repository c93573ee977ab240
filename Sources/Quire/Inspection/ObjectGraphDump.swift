import QuireCore
import QuireStores
import Foundation

/// A canonical, store-independent description of an object graph: the same graph gives the same dump
/// whatever store type or container holds it (what `quire dump` prints and `quire diff` compares).
///
/// - Objects are listed by entity name, then in the order of their attribute values, and named by stable
///   keys (`Employee#3`) instead of store-specific object IDs; relationships refer to those keys.
/// - Values print canonically: strings quoted and escaped, dates as seconds since 2001, binary data (and
///   transformable values) as their size and SHA-256.
///
/// ```swift
/// let before = try ObjectGraphDump(storeAt: original, type: .sqlite)
/// let after = try ObjectGraphDump(storeAt: converted, type: .sqlite)
/// print(before.differences(from: after))    // [] when nothing changed
/// ```
public struct ObjectGraphDump: Sendable, Equatable, Codable {
    /// One object of the graph.
    public struct Object: Sendable, Equatable, Codable {
        /// The object's stable key, such as `Employee#3`.
        public var key: String
        /// The object's entity.
        public var entity: String
        /// Every persistent attribute's canonical value, by name.
        public var attributes: [String: String]
        /// Every persistent relationship's related objects, by name: keys in order for ordered relationships,
        /// sorted otherwise; empty for none.
        public var relationships: [String: [String]]
        /// Every persistent attribute's value, by name, when the dump was made `includingValues` (for typed
        /// JSON, ``typedJSON()``); empty otherwise. Not encoded, not compared.
        public var values: [String: AttributeValue] = [:]
        /// The object's primary key in its store, when the store has one. Not encoded, not compared.
        public var primaryKey: Int64?
        /// A name of the object that does not depend on its store (see ``ObjectGraphDump/identityKind``):
        /// `Author[name="Ada"]` from a uniqueness constraint or a key attribute, else `Author#1a2b3c4d` from a
        /// hash of its attribute values. Not encoded, not compared.
        public var identity: String = ""

        private enum CodingKeys: String, CodingKey {
            case key, entity, attributes, relationships
        }

        /// Objects are equal when their keys, entities and canonical values are.
        public static func == (lhs: Object, rhs: Object) -> Bool {
            lhs.key == rhs.key && lhs.entity == rhs.entity && lhs.attributes == rhs.attributes
                && lhs.relationships == rhs.relationships
        }
    }

    /// The objects, by entity name and then by key.
    public var objects: [Object]

    /// The UUID of the store the dump was made from (`NSStoreUUID`), nil when unknown. Two dumps of the same
    /// UUID are of one store (a copy, or the same file before and after an edit), whose objects ``differences(from:)``
    /// matches by primary key. Not encoded, not compared.
    public var storeUUID: String?

    /// How each entity's objects are named by ``Object/identity``: `uniqueness constraint`, `key attribute name`
    /// or `content hash`. Not encoded, not compared.
    public var identityKind: [String: String] = [:]

    /// The type of every persistent attribute, by entity and attribute name, when the dump was made
    /// `includingValues`; empty otherwise. Not encoded, not compared.
    public var attributeTypes: [String: [String: AttributeType]] = [:]

    private enum CodingKeys: String, CodingKey {
        case objects
    }

    /// Dumps are equal when their objects are.
    public static func == (lhs: ObjectGraphDump, rhs: ObjectGraphDump) -> Bool { lhs.objects == rhs.objects }

    /// The number of objects of each entity (sub-entities counted apart).
    public var counts: [String: Int] {
        objects.reduce(into: [:]) { $0[$1.entity, default: 0] += 1 }
    }

    /// Dumps every object of every store of a context's coordinator (saved objects only).
    ///
    /// - Parameters:
    ///   - context: The context whose stores are dumped.
    ///   - includingValues: Whether each object keeps its attribute values (``Object/values``, binary data
    ///     included) and the dump the attribute types, for ``typedJSON()``.
    /// - Throws: Store errors while fetching.
    public init(context: ManagedObjectContext, includingValues: Bool = false) throws {
        if includingValues, let model = context.persistentStoreCoordinator?.managedObjectModel {
            for entity in model.entities where !entity.isAbstract {
                attributeTypes[entity.name] = Dictionary(
                    entity.allAttributes.filter { !$0.isTransient }.map { ($0.name, $0.attributeType) }, uniquingKeysWith: { a, _ in a })
            }
        }
        objects = try context.performAndWait {
            guard let model = context.persistentStoreCoordinator?.managedObjectModel else { return [] }
            var byEntity: [(EntityDescription, [ManagedObject])] = []
            for entity in model.entities.sorted(by: { $0.name < $1.name }) where !entity.isAbstract {
                let request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                request.includesPendingChanges = false
                request.returnsObjectsAsFaults = false
                let fetched = try context.fetch(request).filter { !$0.objectID.isTemporaryID }
                let keyed = fetched.map { (ObjectGraphDump.canonicalAttributes(of: $0), $0) }
                    .sorted { lhs, rhs in
                        let left = lhs.0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\u{1F}")
                        let right = rhs.0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\u{1F}")
                        if left != right { return left < right }
                        return (lhs.1.objectID.primaryKey ?? 0) < (rhs.1.objectID.primaryKey ?? 0)
                    }
                byEntity.append((entity, keyed.map(\.1)))
            }
            var keys: [ObjectID: String] = [:]
            for (entity, objects) in byEntity {
                for (index, object) in objects.enumerated() { keys[object.objectID] = "\(entity.name)#\(index + 1)" }
            }
            var result: [Object] = []
            for (entity, objects) in byEntity {
                for object in objects {
                    var relationships: [String: [String]] = [:]
                    for relationship in entity.allRelationships where !relationship.isTransient {
                        let value = object.value(forKey: relationship.name)
                        var related: [String]
                        switch value {
                        case let single as ManagedObject: related = [keys[single.objectID] ?? "?"]
                        case let set as Set<ManagedObject>: related = set.map { keys[$0.objectID] ?? "?" }.sorted(by: ObjectGraphDump.keyOrder)
                        default:
                            if let ordered = value as? any Sequence {
                                related = ordered.compactMap { ($0 as? ManagedObject).map { keys[$0.objectID] ?? "?" } }
                            } else {
                                related = []
                            }
                        }
                        relationships[relationship.name] = related
                    }
                    let (attributes, values) = ObjectGraphDump.attributes(of: object, keepingValues: includingValues)
                    result.append(Object(
                        key: keys[object.objectID] ?? "?", entity: entity.name,
                        attributes: attributes, relationships: relationships, values: values,
                        primaryKey: object.objectID.primaryKey))
                }
            }
            return result
        }
        if let store = context.persistentStoreCoordinator?.persistentStores.first {
            storeUUID = context.persistentStoreCoordinator?.metadata(for: store)[StoreMetadataKey.storeUUID]?.stringValue
        }
        if let model = context.persistentStoreCoordinator?.managedObjectModel {
            assignIdentities(model: model)
        }
    }

    /// Dumps a store file, opened read-only with the model it embeds, else `modelFile`, else the model Core
    /// Data cached in it (see ``ManagedObjectModel/forStore(at:type:modelFile:)``).
    ///
    /// - Parameters:
    ///   - url: The store file.
    ///   - type: Its store type.
    ///   - modelFile: The application's model, for a store that embeds none.
    ///   - includingValues: Whether objects keep their typed values, for ``typedJSON()``.
    /// - Throws: ``QuireError`` when the file is not a readable store of that type;
    ///   ``QuireError/Code/persistentStoreIncompatibleVersionHash`` naming the model and what differs when the
    ///   store was written with another model than the one found.
    public init(storeAt url: URL, type: StoreType, modelFile: URL? = nil, includingValues: Bool = false) throws {
        let inspected = try InspectedStore(at: url, type: type, modelFile: modelFile)
        defer { inspected.close() }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = inspected.coordinator
        try self.init(context: context, includingValues: includingValues)
    }

    /// Orders keys by entity, then numerically (`Item#2` before `Item#10`).
    static func keyOrder(_ lhs: String, _ rhs: String) -> Bool {
        let l = lhs.split(separator: "#")
        let r = rhs.split(separator: "#")
        if l.first != r.first { return lhs < rhs }
        return (Int(l.last ?? "") ?? 0) < (Int(r.last ?? "") ?? 0)
    }

    static func canonicalAttributes(of object: ManagedObject) -> [String: String] {
        attributes(of: object, keepingValues: false).canonical
    }

    /// The canonical values of an object's attributes and, when `keepingValues`, the values themselves
    /// (external data read; an unreadable external file is `.null`).
    static func attributes(of object: ManagedObject, keepingValues: Bool) -> (canonical: [String: String], values: [String: AttributeValue]) {
        var result: [String: String] = [:]
        var values: [String: AttributeValue] = [:]
        for attribute in object.entity.allAttributes where !attribute.isTransient {
            var value = object.attributeValue(forKey: attribute.name)
            if case .externalData(let reference) = value {
                // Blobs stored beside the store dump like inline ones: by size and digest of their bytes.
                do {
                    value = try object.dataValue(forKey: attribute.name).map(AttributeValue.data) ?? .null
                } catch {
                    result[attribute.name] = "data(unreadable external file \(reference.uuid))"
                    if keepingValues { values[attribute.name] = .null }
                    continue
                }
            }
            result[attribute.name] = canonical(value)
            if keepingValues { values[attribute.name] = value }
        }
        return (result, values)
    }

    /// The canonical text of a value.
    public static func canonical(_ value: AttributeValue) -> String {
        switch value {
        case .null: return "nil"
        case .integer(let v): return String(v)
        case .double(let v): return "\(v)"
        case .float(let v): return "\(v)"
        case .decimal(let v): return "decimal(\(v))"
        case .string(let v): return quoted(v)
        case .boolean(let v): return v ? "true" : "false"
        case .date(let v): return "date(\(v.timeIntervalSinceReferenceDate))"
        case .data(let v): return "data(\(v.count) bytes, sha256 \(SHA256.hexHash(v)))"
        case .externalData(let reference): return "data(external file \(reference.uuid))"
        case .uuid(let v): return "uuid(\(v.uuidString))"
        case .uri(let v): return "uri(\(quoted(v.absoluteString)))"
        }
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += String(format: "\\u{%02X}", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// The dump as text: one block per object, properties sorted by name.
    public func text() -> String {
        var lines: [String] = []
        for object in objects {
            lines.append(object.key)
            for (name, value) in object.attributes.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(name) = \(value)")
            }
            for (name, related) in object.relationships.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(name) -> [\(related.joined(separator: ", "))]")
            }
        }
        return lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }

    /// The dump as JSON with sorted keys (stable bytes for the same graph).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
