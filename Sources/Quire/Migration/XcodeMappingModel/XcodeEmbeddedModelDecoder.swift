import QuireCore
import QuireStores
import Foundation

/// Reads the copies of the two model versions Xcode keeps inside a mapping model (`sourceModelData`,
/// `destinationModelData`): keyed archives of Xcode's editing model, not of `NSManagedObjectModel`.
///
/// ```text
/// XDPMModel ─ _xd_rootPackage: XDModelPackage ─ XDBucketForClassesstorage: { name: XDPMEntity }
/// XDPMEntity    _name, _isAbstract, XDBucketForGeneralizationsstorage: [XDUMLGeneralizationImp ─ _general: XDPMEntity],
///               XDBucketForOwnedAttributesstorage: { name: XDPMAttribute | XDPMRelationship },
///               XDBucketForStereotypesstorage: { XD_PStereotype: the entity's settings }
/// a setting     XDUMLStereotypeImp ─ XDBucketForOwnedAttributesstorage: { XD_PSK_isAbstract: XDUMLPropertyImp ─ _default }
/// ```
///
/// The settings are each a stereotype's property whose `_default` holds the value: `XD_PSK_*` for entities
/// (abstract, version hash modifier, renaming identifier, `XDPMUniquenessConstraints`), `XD_PPSK_*` for every
/// property (optional, transient, version hash modifier, renaming identifier), `XD_PAttK_*` for attributes (the
/// Core Data type code, external storage, transformer) and `XD_PRK_*` for relationships (destination, inverse,
/// to-many, ordered, counts, delete rule). What persistence sees is all read, so the entities' version hashes are
/// the ones Core Data computes for the same model (the hashes Xcode compiles into a `.cdm`), and the model tells
/// which properties an entity has when Xcode's "auto-generate value expression" is on.
struct XcodeEmbeddedModelDecoder {
    private let resolver: ArchiveResolver
    private let what: String

    /// Decodes one embedded model.
    ///
    /// - Parameters:
    ///   - data: The archive's bytes.
    ///   - what: What the model is, for messages (`the source model`).
    /// - Returns: The model, editable (not frozen: it serves to compute hashes and to look up properties).
    /// - Throws: ``CompiledModelError`` for an archive that is not a model of Xcode's, or that is malformed.
    static func model(from data: Data, what: String) throws -> ManagedObjectModel {
        let archive = try KeyedArchive(data: data)
        let decoder = XcodeEmbeddedModelDecoder(resolver: ArchiveResolver(archive: archive), what: what)
        return try decoder.decode(rootUID: try archive.rootUID())
    }

    private func decode(rootUID: UInt64) throws -> ManagedObjectModel {
        let root = try resolver.object(at: rootUID)
        guard root.isKind(of: "XDPMModel") else {
            throw CompiledModelError.unexpectedClass(expected: "XDPMModel", found: root.className, context: what)
        }
        let package = try object("_xd_rootPackage", of: root)
        var entities: [(EntityDescription, ArchivedObject)] = []
        for (name, value) in try dictionary("XDBucketForClassesstorage", of: package) {
            guard case .object(let entity) = value, entity.isKind(of: "XDPMEntity") else { continue }
            entities.append((try decodeEntity(entity, name: name), entity))
        }
        guard entities.count <= resolver.archive.limits.maximumEntities else {
            throw CompiledModelError.limitExceeded(what: "entities", limit: resolver.archive.limits.maximumEntities)
        }
        // Sub-entities, once every entity exists.
        let byName = Dictionary(entities.map { ($0.0.name, $0.0) }, uniquingKeysWith: { first, _ in first })
        var children: [String: [EntityDescription]] = [:]
        for (entity, archived) in entities {
            for case .object(let generalization) in try elements("XDBucketForGeneralizationsstorage", of: archived) {
                let parent = try object("_general", of: generalization)
                guard let parentName = try string("_name", of: parent), byName[parentName] != nil else {
                    throw CompiledModelError.invalidValue(key: "_general", className: generalization.className, expected: "an entity of the model")
                }
                children[parentName, default: []].append(entity)
            }
        }
        for (parent, subs) in children { byName[parent]?.subentities = subs.sorted { $0.name < $1.name } }
        return ManagedObjectModel(entities: entities.map(\.0).sorted { $0.name < $1.name })
    }

    private func decodeEntity(_ archived: ArchivedObject, name: String) throws -> EntityDescription {
        let settings = try self.settings(of: archived)
        let entity = EntityDescription(name: try string("_name", of: archived) ?? name)
        let abstractField = try resolver.value("_isAbstract", of: archived)
        entity.isAbstract = bool(settings["XD_PSK_isAbstract"]) ?? bool(abstractField) ?? false
        entity.versionHashModifier = settings["XD_PSK_versionHashModifier"]?.stringValue
        entity.renamingIdentifier = settings["XD_PSK_elementID"]?.stringValue
        entity.uniquenessConstraints = (settings["XDPMUniquenessConstraints"]?.elements ?? []).map { constraint in
            (constraint.elements ?? []).compactMap(\.stringValue)
        }.filter { !$0.isEmpty }
        var properties: [PropertyDescription] = []
        for (key, value) in try dictionary("XDBucketForOwnedAttributesstorage", of: archived) {
            guard case .object(let property) = value else { continue }
            if property.isKind(of: "XDPMAttribute") {
                properties.append(try decodeAttribute(property, name: key, entity: entity.name))
            } else if property.isKind(of: "XDPMRelationship") {
                properties.append(try decodeRelationship(property, name: key))
            }
            // Fetched properties and anything newer are not stored; they take no part in version hashes.
        }
        guard properties.count <= resolver.archive.limits.maximumPropertiesPerEntity else {
            throw CompiledModelError.limitExceeded(what: "properties in one entity", limit: resolver.archive.limits.maximumPropertiesPerEntity)
        }
        entity.properties = properties.sorted { $0.name < $1.name }
        return entity
    }

    private func decodeAttribute(_ archived: ArchivedObject, name: String, entity: String) throws -> AttributeDescription {
        let settings = try self.settings(of: archived)
        let code = settings["XD_PAttK_attributeType"].flatMap(integer) ?? 0
        let isTransient = bool(settings["XD_PPSK_isTransient"]) ?? false
        let type: AttributeType
        if let known = AttributeType.allCases.first(where: { $0.coreDataCode == code }) {
            type = known
        } else if isTransient {
            type = .transformable  // an undefined type, allowed for transient attributes, which hashes leave out
        } else {
            throw CompiledModelError.invalidValue(
                key: "XD_PAttK_attributeType", className: "attribute '\(entity).\(name)' of \(what)",
                expected: "a Core Data attribute type Quire knows (it is \(code))")
        }
        let attribute = AttributeDescription(name: try string("_name", of: archived) ?? name, type: type)
        applyPropertySettings(settings, to: attribute)
        attribute.allowsExternalBinaryDataStorage = bool(settings["XD_PAttK_allowsExternalBinaryDataStorage"]) ?? false
        attribute.preservesValueInHistoryOnDeletion = bool(settings["XD_PAttK_preservesValueInHistoryOnDeletion"]) ?? false
        attribute.valueTransformerName = settings["XD_PAttK_valueTransformerName"]?.stringValue
        if let derivation = settings["XD_PAttK_derivationExpression"]?.stringValue, !derivation.isEmpty {
            attribute.derivationExpression = derivation
        }
        return attribute
    }

    private func decodeRelationship(_ archived: ArchivedObject, name: String) throws -> RelationshipDescription {
        let settings = try self.settings(of: archived)
        guard case .object(let destination)? = settings["XD_PRK_destination"], let destinationName = try string("_name", of: destination) else {
            throw CompiledModelError.missingKey(key: "XD_PRK_destination", className: "relationship '\(name)' of \(what)")
        }
        var inverse: String?
        if case .object(let inverseObject)? = settings["XD_PRK_inverseRelationship"] { inverse = try string("_name", of: inverseObject) }
        let relationship = RelationshipDescription(
            name: try string("_name", of: archived) ?? name, destination: destinationName,
            toMany: bool(settings["XD_PRK_isToMany"]) ?? false, isOrdered: bool(settings["XD_PRK_ordered"]) ?? false,
            inverse: inverse)
        applyPropertySettings(settings, to: relationship)
        let maxCount = settings["XD_PRK_maxCount"].flatMap(integer) ?? (relationship.isToMany ? 0 : 1)
        // Xcode records 1 for a to-one relationship and 0 (no limit) or the limit for a to-many one.
        if relationship.isToMany {
            relationship.maxCount = maxCount == 1 ? 0 : maxCount
        }
        relationship.minCount = settings["XD_PRK_minCount"].flatMap(integer) ?? 0
        switch settings["XD_PRK_deleteRule"].flatMap(integer) ?? 1 {
        case 0: relationship.deleteRule = .noAction
        case 2: relationship.deleteRule = .cascade
        case 3: relationship.deleteRule = .deny
        default: relationship.deleteRule = .nullify
        }
        return relationship
    }

    private func applyPropertySettings(_ settings: [String: ArchiveValue], to property: PropertyDescription) {
        property.isOptional = bool(settings["XD_PPSK_isOptional"]) ?? true
        property.isTransient = bool(settings["XD_PPSK_isTransient"]) ?? false
        property.versionHashModifier = settings["XD_PPSK_versionHashModifier"]?.stringValue
        property.renamingIdentifier = settings["XD_PPSK_elementID"]?.stringValue
    }

    // MARK: Archive access

    /// Every setting of an element: the `_default` of each property of each of its stereotypes, by name.
    private func settings(of element: ArchivedObject) throws -> [String: ArchiveValue] {
        var result: [String: ArchiveValue] = [:]
        for (_, value) in try dictionary("XDBucketForStereotypesstorage", of: element) {
            guard case .object(let stereotype) = value else { continue }
            for (name, setting) in try dictionary("XDBucketForOwnedAttributesstorage", of: stereotype) {
                guard case .object(let property) = setting else { continue }
                result[name] = try resolver.value("_default", of: property)
            }
        }
        return result
    }

    private func object(_ key: String, of object: ArchivedObject) throws -> ArchivedObject {
        guard case .object(let value) = try resolver.value(key, of: object) else {
            throw CompiledModelError.missingKey(key: key, className: "\(object.className) of \(what)")
        }
        return value
    }

    private func string(_ key: String, of object: ArchivedObject) throws -> String? {
        try resolver.value(key, of: object).stringValue
    }

    /// A dictionary field with string keys, in archived order (other keys are skipped).
    private func dictionary(_ key: String, of object: ArchivedObject) throws -> [(String, ArchiveValue)] {
        switch try resolver.value(key, of: object) {
        case .null: return []
        case .dictionary(let entries): return entries.compactMap { entry in entry.key.stringValue.map { ($0, entry.value) } }
        default: throw CompiledModelError.invalidValue(key: key, className: "\(object.className) of \(what)", expected: "a dictionary")
        }
    }

    private func elements(_ key: String, of object: ArchivedObject) throws -> [ArchiveValue] {
        switch try resolver.value(key, of: object) {
        case .null: return []
        case .array(let values), .set(let values): return values
        default: throw CompiledModelError.invalidValue(key: key, className: "\(object.className) of \(what)", expected: "an array")
        }
    }

    private func bool(_ value: ArchiveValue?) -> Bool? {
        switch value {
        case .boolean(let flag)?: return flag
        case .integer(let number)?: return number != 0
        default: return nil
        }
    }

    private func integer(_ value: ArchiveValue) -> Int? {
        switch value {
        case .integer(let number): return Int(exactly: number)
        case .real(let number): return Int(exactly: number)
        case .string(let text): return Int(text)
        default: return nil
        }
    }
}
