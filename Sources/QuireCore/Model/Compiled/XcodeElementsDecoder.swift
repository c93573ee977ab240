import QuireSupport
import Foundation

/// Maps an Xcode 3 `elements` file to a ``CompiledModel``.
///
/// An `elements` file is an `NSKeyedArchiver` archive of Xcode's own model classes, not of Core Data's: an
/// `XDPMModel` whose `_xd_rootPackage` (`XDModelPackage`) holds `XDPMEntity`s by name
/// (`XDBucketForClassesstorage`); an entity holds its `XDPMAttribute`s and `XDPMRelationship`s by name
/// (`XDBucketForOwnedAttributesstorage`). Core Data settings live in UML "stereotypes": each element's
/// `XDBucketForStereotypesstorage` maps stereotype names (`XD_PStereotype`, `XD_PPropStereotype`,
/// `XD_PAtt_Stereotype`, `XD_PR_Stereotype`) to `XDUMLStereotypeImp`s whose owned `XDUMLPropertyImp`s carry
/// one setting each, named like `XD_PAttK_attributeType`, with the value in `_default`. Settings left at
/// their default may be absent.
struct XcodeElementsDecoder {
    let context: DecodingContext

    static let entitySettings: Set<String> = [
        "XD_PSK_entityClassName", "XD_PSK_isAbstract", "XD_PSK_userInfo", "XD_PSK_versionHashModifier", "XD_PSK_elementID",
        "XD_PSK_fetchRequestsArray", "XD_PSK_classMapping", "XDPMCompoundIndexes",
    ]
    static let propertySettings: Set<String> = [
        "XD_PPSK_isOptional", "XD_PPSK_isTransient", "XD_PPSK_isIndexed", "XD_PPSK_isSpotlightIndexed",
        "XD_PPSK_isStoredInTruthFile", "XD_PPSK_userInfo", "XD_PPSK_versionHashModifier", "XD_PPSK_elementID",
    ]
    static let attributeSettings: Set<String> = propertySettings.union([
        "XD_PAttK_attributeType", "XD_PAttK_defaultValueAsString", "XD_PAttK_allowsExternalBinaryDataStorage",
        "XD_PAttK_minValueString", "XD_PAttK_maxValueString", "XD_PAttK_regularExpressionString", "XD_PAttK_valueTransformerName",
    ])
    static let relationshipSettings: Set<String> = propertySettings.union([
        "XD_PRK_minCount", "XD_PRK_maxCount", "XD_PRK_deleteRule", "XD_PRK_destination", "XD_PRK_isToMany", "XD_PRK_ordered",
        "XD_PRK_inverseRelationship",
    ])

    func decode(root: ArchivedObject) throws -> CompiledModel {
        guard root.isKind(of: "XDPMModel") else {
            throw CompiledModelError.unexpectedClass(expected: "XDPMModel", found: root.className, context: "the archive's root")
        }
        var model = CompiledModel(source: .xcodeElements)
        if let identifier = try context.string("_modelVersionIdentifier", root), !identifier.isEmpty {
            model.versionIdentifiers = [identifier]
        }
        guard let package = try context.object("_xd_rootPackage", root), package.isKind(of: "XDModelPackage") else {
            throw CompiledModelError.missingKey(key: "_xd_rootPackage", className: root.className)
        }
        let classes = try context.entries("XDBucketForClassesstorage", package)
        guard classes.count <= context.limits.maximumEntities else {
            throw CompiledModelError.limitExceeded(what: "entities", limit: context.limits.maximumEntities)
        }
        var entities: [CompiledEntity] = []
        var seen = Set<String>()
        for (name, value) in classes {
            guard case .object(let object) = value, object.isKind(of: "XDPMEntity") else {
                throw CompiledModelError.unexpectedClass(expected: "XDPMEntity", found: value.kindName, context: "XDBucketForClassesstorage")
            }
            let entityName = try context.string("_name", object) ?? name
            guard seen.insert(entityName).inserted else {
                context.warn(entityName, "a second entity of this name is skipped")
                continue
            }
            entities.append(try decode(entity: object, name: entityName))
        }
        // Sub-entity lists from the parents the generalizations name.
        for index in entities.indices {
            guard let parent = entities[index].superentityName else { continue }
            guard let parentIndex = entities.firstIndex(where: { $0.name == parent }) else {
                context.warn(entities[index].name, "the superentity '\(parent)' is not in the model")
                continue
            }
            entities[parentIndex].subentityNames.append(entities[index].name)
        }
        model.entities = entities.sorted { $0.name < $1.name }
        for (name, value) in try context.entries("_configurationsByName", root) {
            model.configurations[name] = try configurationMembers(value, name: name)
        }
        model.warnings = context.warnings
        return model
    }

    /// The settings of an element: every stereotype property's `_default`, by setting name.
    private func settings(of object: ArchivedObject, at location: String) throws -> [String: ArchiveValue] {
        var result: [String: ArchiveValue] = [:]
        for (stereotypeName, value) in try context.entries("XDBucketForStereotypesstorage", object) {
            guard case .object(let stereotype) = value else {
                throw CompiledModelError.unexpectedClass(expected: "XDUMLStereotypeImp", found: value.kindName, context: "stereotype \(stereotypeName)")
            }
            for (key, propertyValue) in try context.entries("XDBucketForOwnedAttributesstorage", stereotype) {
                guard case .object(let property) = propertyValue else {
                    throw CompiledModelError.unexpectedClass(expected: "XDUMLPropertyImp", found: propertyValue.kindName, context: "stereotype \(stereotypeName)")
                }
                result[key] = try context.value("_default", property)
            }
        }
        return result
    }

    private func warnUnknown(_ settings: [String: ArchiveValue], known: Set<String>, at location: String) {
        for key in settings.keys.sorted() where !known.contains(key) {
            context.warn(location, "unknown Xcode setting '\(key)'")
        }
    }

    private func bool(_ settings: [String: ArchiveValue], _ key: String, default defaultValue: Bool) throws -> Bool {
        try settings[key].flatMap { try DecodingContext.bool($0, key: key, className: "XDUMLPropertyImp") } ?? defaultValue
    }

    private func int(_ settings: [String: ArchiveValue], _ key: String, default defaultValue: Int) throws -> Int {
        try settings[key].flatMap { try DecodingContext.int($0, key: key, className: "XDUMLPropertyImp") } ?? defaultValue
    }

    private func string(_ settings: [String: ArchiveValue], _ key: String) throws -> String? {
        switch settings[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text.isEmpty ? nil : text
        default: throw CompiledModelError.invalidValue(key: key, className: "XDUMLPropertyImp", expected: "a string")
        }
    }

    private func userInfo(_ settings: [String: ArchiveValue], _ key: String) throws -> [String: ModelValue] {
        guard let value = settings[key], !value.isNull else { return [:] }
        guard case .dictionary(let entries) = try context.modelValue(value) else {
            throw CompiledModelError.invalidValue(key: key, className: "XDUMLPropertyImp", expected: "a dictionary")
        }
        return entries
    }

    /// The name of an `XDPMEntity` or `XDPMRelationship` reference.
    private func elementName(_ value: ArchiveValue?, key: String) throws -> String? {
        guard let value, !value.isNull else { return nil }
        guard case .object(let object) = value else {
            throw CompiledModelError.invalidValue(key: key, className: "XDUMLPropertyImp", expected: "an element")
        }
        return try context.string("_name", object)
    }

    private func decode(entity object: ArchivedObject, name: String) throws -> CompiledEntity {
        let settings = try settings(of: object, at: name)
        warnUnknown(settings, known: Self.entitySettings, at: name)
        var entity = CompiledEntity(name: name)
        entity.isAbstract = try bool(settings, "XD_PSK_isAbstract", default: try context.bool("_isAbstract", object))
        let className = try string(settings, "XD_PSK_entityClassName")
        entity.managedObjectClassName = className == "NSManagedObject" ? nil : className
        entity.userInfo = try userInfo(settings, "XD_PSK_userInfo")
        entity.versionHashModifier = try string(settings, "XD_PSK_versionHashModifier")
        entity.renamingIdentifier = try string(settings, "XD_PSK_elementID")
        if let requests = settings["XD_PSK_fetchRequestsArray"]?.elements, !requests.isEmpty {
            context.warn(name, "\(requests.count) fetch request(s) of an Xcode 3 model are not decoded")
        }
        if let indexes = settings["XDPMCompoundIndexes"]?.elements {
            entity.compoundIndexes = try indexes.map { try context.names($0, key: "XDPMCompoundIndexes", className: "XDPMEntity") }
        }
        for generalization in try context.elements("XDBucketForGeneralizationsstorage", object) {
            guard case .object(let link) = generalization else { continue }
            if let parent = try context.object("_general", link) ?? (try context.object("_parent", link)) {
                entity.superentityName = try context.string("_name", parent)
            } else {
                context.warn(name, "generalization \(link.className) with keys \(link.fields.keys.sorted()) names no parent")
            }
        }

        let properties = try context.entries("XDBucketForOwnedAttributesstorage", object)
        guard properties.count <= context.limits.maximumPropertiesPerEntity else {
            throw CompiledModelError.limitExceeded(what: "properties in entity '\(name)'", limit: context.limits.maximumPropertiesPerEntity)
        }
        try context.countProperties(properties.count)
        for (key, value) in properties {
            guard case .object(let property) = value else {
                throw CompiledModelError.unexpectedClass(expected: "XDPMProperty", found: value.kindName, context: "properties of '\(name)'")
            }
            let propertyName = try context.string("_name", property) ?? key
            let location = "\(name).\(propertyName)"
            if property.isKind(of: "XDPMAttribute") {
                entity.attributes.append(try decode(attribute: property, name: propertyName, at: location))
            } else if property.isKind(of: "XDPMRelationship") {
                entity.relationships.append(try decode(relationship: property, name: propertyName, at: location))
            } else {
                context.warn(location, "property class \(property.className) is skipped")
            }
        }
        entity.attributes.sort { $0.name < $1.name }
        entity.relationships.sort { $0.name < $1.name }
        return entity
    }

    private func decode(attribute object: ArchivedObject, name: String, at location: String) throws -> CompiledAttribute {
        let settings = try settings(of: object, at: location)
        warnUnknown(settings, known: Self.attributeSettings, at: location)
        var attribute = CompiledAttribute(name: name, attributeType: try int(settings, "XD_PAttK_attributeType", default: 0))
        attribute.isOptional = try bool(settings, "XD_PPSK_isOptional", default: true)
        attribute.isTransient = try bool(settings, "XD_PPSK_isTransient", default: false)
        attribute.isIndexed = try bool(settings, "XD_PPSK_isIndexed", default: false)
        attribute.isIndexedBySpotlight = try bool(settings, "XD_PPSK_isSpotlightIndexed", default: false)
        attribute.isStoredInExternalRecord = try bool(settings, "XD_PPSK_isStoredInTruthFile", default: false)
        attribute.userInfo = try userInfo(settings, "XD_PPSK_userInfo")
        attribute.versionHashModifier = try string(settings, "XD_PPSK_versionHashModifier")
        attribute.renamingIdentifier = try string(settings, "XD_PPSK_elementID")
        attribute.valueTransformerName = try string(settings, "XD_PAttK_valueTransformerName")
        attribute.allowsExternalBinaryDataStorage = try bool(settings, "XD_PAttK_allowsExternalBinaryDataStorage", default: false)
        if let text = try string(settings, "XD_PAttK_minValueString") {
            attribute.minimumValue = limitValue(text, kind: attribute.kind)
        }
        if let text = try string(settings, "XD_PAttK_maxValueString") {
            attribute.maximumValue = limitValue(text, kind: attribute.kind)
        }
        attribute.regularExpression = try string(settings, "XD_PAttK_regularExpressionString")
        if let text = try string(settings, "XD_PAttK_defaultValueAsString") {
            attribute.defaultValue = defaultValue(text, kind: attribute.kind, at: location)
        }
        return attribute
    }

    /// A minimum or maximum from Xcode's text: a number for numeric types, a length for strings, else text.
    private func limitValue(_ text: String, kind: AttributeKind) -> ModelValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch kind {
        case .integer16, .integer32, .integer64, .string, .binaryData:
            if let number = Int64(trimmed) { return .integer(number) }
        case .double, .float, .decimal:
            if let number = Double(trimmed) { return .real(number) }
        default:
            break
        }
        return .string(text)
    }

    /// A default value from Xcode's text, read as the attribute's type where that is unambiguous.
    private func defaultValue(_ text: String, kind: AttributeKind, at location: String) -> ModelValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch kind {
        case .integer16, .integer32, .integer64:
            if let number = Int64(trimmed) { return .integer(number) }
        case .double, .float:
            if let number = Double(trimmed) { return .real(number) }
        case .decimal:
            if let number = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")) { return .decimal(number) }
        case .boolean:
            switch trimmed.lowercased() {
            case "yes", "true": return .boolean(true)
            case "no", "false": return .boolean(false)
            default:
                // Xcode keeps what was typed; Core Data reads it as -[NSString boolValue].
                if let number = Int64(trimmed) { return .boolean(number != 0) }
            }
        default:
            return .string(text)
        }
        context.warn(location, "the default value '\(text)' is not a \(kind); kept as text")
        return .string(text)
    }

    private func decode(relationship object: ArchivedObject, name: String, at location: String) throws -> CompiledRelationship {
        let settings = try settings(of: object, at: location)
        warnUnknown(settings, known: Self.relationshipSettings, at: location)
        guard let destination = try elementName(settings["XD_PRK_destination"], key: "XD_PRK_destination") else {
            throw CompiledModelError.missingKey(key: "XD_PRK_destination", className: object.className)
        }
        var relationship = CompiledRelationship(name: name, destinationEntityName: destination)
        relationship.isOptional = try bool(settings, "XD_PPSK_isOptional", default: true)
        relationship.isTransient = try bool(settings, "XD_PPSK_isTransient", default: false)
        relationship.isIndexed = try bool(settings, "XD_PPSK_isIndexed", default: false)
        relationship.isIndexedBySpotlight = try bool(settings, "XD_PPSK_isSpotlightIndexed", default: false)
        relationship.isStoredInExternalRecord = try bool(settings, "XD_PPSK_isStoredInTruthFile", default: false)
        relationship.userInfo = try userInfo(settings, "XD_PPSK_userInfo")
        relationship.versionHashModifier = try string(settings, "XD_PPSK_versionHashModifier")
        relationship.renamingIdentifier = try string(settings, "XD_PPSK_elementID")
        relationship.isToMany = try bool(settings, "XD_PRK_isToMany", default: false)
        relationship.maxCount = try int(settings, "XD_PRK_maxCount", default: relationship.isToMany ? 0 : 1)
        relationship.minCount = try int(settings, "XD_PRK_minCount", default: 0)
        relationship.isOrdered = try bool(settings, "XD_PRK_ordered", default: false)
        relationship.deleteRule = try int(settings, "XD_PRK_deleteRule", default: 1)
        if case .object(let inverse)? = settings["XD_PRK_inverseRelationship"] {
            relationship.inverseName = try context.string("_name", inverse)
            if let owner = try context.object("_owner", inverse) {
                relationship.inverseEntityName = try context.string("_name", owner)
            }
        }
        return relationship
    }

    /// The entity names of a configuration: a collection of entities, or an object holding one.
    private func configurationMembers(_ value: ArchiveValue, name: String) throws -> [String] {
        var collection = value.elements
        if collection == nil, case .dictionary(let entries) = value { collection = entries.map(\.value) }
        if collection == nil, case .object(let object) = value {
            for key in object.fields.keys.sorted() {
                if let elements = try context.value(key, object).elements { collection = elements; break }
            }
        }
        guard let members = collection else {
            context.warn("model", "configuration '\(name)' of class \(value.kindName) is not decoded")
            return []
        }
        return try members.compactMap { member in
            switch member {
            case .string(let text): return text
            case .object(let entity): return try context.string("_name", entity)
            default: return nil
            }
        }.sorted()
    }
}
