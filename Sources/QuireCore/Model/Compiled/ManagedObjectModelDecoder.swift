import QuireSupport
import Foundation

/// Maps a keyed archive of `NSManagedObjectModel` (what `Z_MODELCACHE` and `.mom` files hold) to a
/// ``CompiledModel``.
///
/// Entities and properties point at each other (entity ↔ property, relationship ↔ inverse, entity ↔
/// superentity, every object ↔ the model); the decoder never follows those back-pointers recursively, it
/// reads names through references one step at a time.
struct ManagedObjectModelDecoder {
    let context: DecodingContext

    static let modelKeys: Set<String> = [
        "NSEntities", "NSConfigurations", "NSVersionIdentifiers", "NSFetchRequestTemplates", "NSLocalizationDictionary",
        "CDMCompilerToolVersion", "CDMCompilerXcodeVersion",
    ]
    /// The keys of `_NSPropertyDescriptionProxy`, which model caches written around 2016 hold in a sub-entity's
    /// `NSProperties` for each inherited property.
    static let propertyProxyKeys: Set<String> = ["NSUnderlyingProperty", "NSEntityDescription", "NSReferenceID"]
    static let entityKeys: Set<String> = [
        "NSEntityName", "NSClassNameForEntity", "NSIsAbstract", "NSSuperentity", "NSSubentities", "NSProperties",
        "NSUserInfo", "NSVersionHashModifier", "NSRenamingIdentifier", "NSManagedObjectModel", "NSUniqueTuples",
        "NSFetchIndexDescriptions", "NSCompoundIndexes",
    ]
    static let propertyKeys: Set<String> = [
        "NSPropertyName", "NSEntity", "NSIsOptional", "NSIsTransient", "NSIsReadOnly", "NSUserInfo", "NSRenamingIdentifier",
        "NSVersionHashModifier", "NSValidationPredicates", "NSValidationWarnings", "NSIndexedBySpotlight", "NSIsStoredInTruth",
        "NSIsOrdered", "NSAllowsCloudEncryption", "_P",
    ]
    static let attributeKeys: Set<String> = propertyKeys.union([
        "NSAttributeType", "NSAttributeValueClassName", "NSDefaultValue", "NSValueTransformerName", "NSFlagsKey", "NSIsIndexed",
        "NSMinValueName", "NSMaxValueName", "NSDerivationExpression", "NSFilteringPredicate",
    ])
    static let relationshipKeys: Set<String> = propertyKeys.union([
        "NSDestinationEntity", "_NSDestinationEntityName", "NSInverseRelationship", "_NSInverseRelationshipName",
        "NSMinCount", "NSMaxCount", "NSDeleteRule", "NSIsOrdered",
    ])
    static let fetchedPropertyKeys: Set<String> = propertyKeys.union(["NSFetchRequest", "_NSFetchRequestEntityName"])
    static let fetchRequestKeys: Set<String> = [
        "NSEntity", "NSEntityName", "NSPredicate", "NSSortDescriptors", "NSFetchLimit", "NSFetchOffset", "NSBatchSize",
        "NSResultType", "NSFetchRequestFlags", "NSHasFetchRequestFlags", "NSValuesToFetch", "NSValuesToGroupBy",
        "NSHavingPredicate", "NSRelationshipKeyPathsForPrefetching", "NSAllocationType", "NSAffectedStores",
    ]

    // MARK: Model

    func decode(root: ArchivedObject) throws -> CompiledModel {
        guard root.isKind(of: "NSManagedObjectModel") else {
            throw CompiledModelError.unexpectedClass(expected: "NSManagedObjectModel", found: root.className, context: "the archive's root")
        }
        context.warnUnknownKeys(root, known: Self.modelKeys, at: "model")
        var model = CompiledModel(source: .managedObjectModelArchive)

        let entityObjects = try context.elements("NSEntities", root).map { element -> ArchivedObject in
            guard case .object(let entity) = element, entity.isKind(of: "NSEntityDescription") else {
                throw CompiledModelError.unexpectedClass(expected: "NSEntityDescription", found: element.kindName, context: "NSEntities")
            }
            return entity
        }
        guard entityObjects.count <= context.limits.maximumEntities else {
            throw CompiledModelError.limitExceeded(what: "entities", limit: context.limits.maximumEntities)
        }
        // Names by reference first, so references between entities resolve to names without recursion.
        var namesByUID: [UInt64: String] = [:]
        var seen = Set<String>()
        var unique: [ArchivedObject] = []
        for entity in entityObjects {
            let name = try context.requiredString("NSEntityName", entity)
            guard seen.insert(name).inserted else {
                context.warn(name, "a second entity of this name is skipped")
                continue
            }
            namesByUID[entity.uid] = name
            unique.append(entity)
            try context.countProperties(try context.elements("NSProperties", entity).count)
        }
        var entities = try unique.map { try decode(entity: $0, names: namesByUID) }
        markInherited(&entities)
        model.entities = entities.sorted { $0.name < $1.name }

        for (name, value) in try context.entries("NSConfigurations", root) {
            guard let members = value.elements else {
                throw CompiledModelError.invalidValue(key: "NSConfigurations", className: root.className, expected: "sets of entities")
            }
            model.configurations[name] = try members.map { try entityName(of: $0, names: namesByUID, key: "NSConfigurations") }.sorted()
        }
        model.versionIdentifiers = try context.elements("NSVersionIdentifiers", root).map { value in
            switch value {
            case .string(let text): return text
            case .integer(let number): return String(number)
            default: throw CompiledModelError.invalidValue(key: "NSVersionIdentifiers", className: root.className, expected: "strings")
            }
        }.sorted()
        for (name, value) in try context.entries("NSFetchRequestTemplates", root) {
            guard case .object(let request) = value, request.isKind(of: "NSFetchRequest") else {
                throw CompiledModelError.unexpectedClass(expected: "NSFetchRequest", found: value.kindName, context: "NSFetchRequestTemplates")
            }
            model.fetchRequestTemplates[name] = try decode(fetchRequest: request, names: namesByUID, at: "model.\(name)")
        }
        for (key, value) in try context.entries("NSLocalizationDictionary", root) {
            if case .string(let text) = value { model.localizationDictionary[key] = text }
        }
        // momc of Xcode 16 and later writes the versions of the compiler and of Xcode that compiled the model
        // (`24512.0`, `260200` in CartKit's `.mom`): facts about the file, not about the model.
        model.compilerToolVersion = try compilerVersion("CDMCompilerToolVersion", root)
        model.compilerXcodeVersion = try compilerVersion("CDMCompilerXcodeVersion", root)
        model.warnings = context.warnings
        return model
    }

    /// A compiler-version key of the model (a number, written as text for the record), or nil when absent.
    private func compilerVersion(_ key: String, _ root: ArchivedObject) throws -> String? {
        switch try context.value(key, root) {
        case .null: return nil
        case .integer(let number): return String(number)
        case .real(let number) where number.isFinite:
            return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .string(let text): return text
        default: throw CompiledModelError.invalidValue(key: key, className: root.className, expected: "a version number")
        }
    }

    /// The name of an entity reference (or of an entity name given as a string).
    private func entityName(of value: ArchiveValue, names: [UInt64: String], key: String) throws -> String {
        switch value {
        case .string(let name): return name
        case .object(let entity) where entity.isKind(of: "NSEntityDescription"):
            if let name = names[entity.uid] { return name }
            return try context.requiredString("NSEntityName", entity)
        default:
            throw CompiledModelError.unexpectedClass(expected: "NSEntityDescription", found: value.kindName, context: key)
        }
    }

    // MARK: Entities

    private func decode(entity object: ArchivedObject, names: [UInt64: String]) throws -> CompiledEntity {
        let name = try context.requiredString("NSEntityName", object)
        context.warnUnknownKeys(object, known: Self.entityKeys, at: name)
        var entity = CompiledEntity(name: name)
        entity.managedObjectClassName = try context.string("NSClassNameForEntity", object)
        entity.isAbstract = try context.bool("NSIsAbstract", object)
        entity.renamingIdentifier = try context.string("NSRenamingIdentifier", object)
        entity.versionHashModifier = try context.string("NSVersionHashModifier", object)
        entity.userInfo = try context.userInfo("NSUserInfo", object)
        if let parent = try context.object("NSSuperentity", object) {
            entity.superentityName = try entityName(of: .object(parent), names: names, key: "NSSuperentity")
        }
        entity.subentityNames = try context.elements("NSSubentities", object).map {
            try entityName(of: $0, names: names, key: "NSSubentities")
        }

        let properties = try context.elements("NSProperties", object)
        guard properties.count <= context.limits.maximumPropertiesPerEntity else {
            throw CompiledModelError.limitExceeded(what: "properties in entity '\(name)'", limit: context.limits.maximumPropertiesPerEntity)
        }
        for element in properties {
            let value = try context.unwrappingPropertyProxy(element, at: name)
            guard case .object(let property) = value, property.isKind(of: "NSPropertyDescription") else {
                throw CompiledModelError.unexpectedClass(expected: "NSPropertyDescription", found: value.kindName, context: "NSProperties of '\(name)'")
            }
            try context.budget.charge()
            let decoded: DecodedProperty
            if let known = context.decodedProperties[property.uid] {
                decoded = known
            } else {
                decoded = try decode(property: property, of: name, names: names)
                context.decodedProperties[property.uid] = decoded
            }
            switch decoded {
            case .attribute(let attribute): entity.attributes.append(attribute)
            case .relationship(let relationship): entity.relationships.append(relationship)
            case .fetchedProperty(let fetched): entity.fetchedProperties.append(fetched)
            case .skipped: break
            }
        }
        entity.attributes.sort { $0.name < $1.name }
        entity.relationships.sort { $0.name < $1.name }
        entity.fetchedProperties.sort { $0.name < $1.name }

        entity.uniquenessConstraints = try context.elements("NSUniqueTuples", object).map {
            try context.names($0, key: "NSUniqueTuples", className: object.className)
        }
        entity.compoundIndexes = try context.elements("NSCompoundIndexes", object).map {
            try context.names($0, key: "NSCompoundIndexes", className: object.className)
        }
        entity.fetchIndexes = try context.elements("NSFetchIndexDescriptions", object).map { value in
            guard case .object(let index) = value, index.isKind(of: "NSFetchIndexDescription") else {
                throw CompiledModelError.unexpectedClass(expected: "NSFetchIndexDescription", found: value.kindName, context: "NSFetchIndexDescriptions of '\(name)'")
            }
            return try decode(fetchIndex: index, at: name)
        }
        return entity
    }

    /// A property of an entity's `NSProperties`, decoded once for every entity that lists it.
    private func decode(property: ArchivedObject, of entityName: String, names: [UInt64: String]) throws -> DecodedProperty {
        let propertyName = try context.requiredString("NSPropertyName", property)
        let location = "\(entityName).\(propertyName)"
        if property.isKind(of: "NSRelationshipDescription") {
            return .relationship(try decode(relationship: property, name: propertyName, names: names, at: location))
        }
        if property.isKind(of: "NSFetchedPropertyDescription") {
            return .fetchedProperty(try decode(fetchedProperty: property, name: propertyName, names: names, at: location))
        }
        if property.isKind(of: "NSAttributeDescription") {
            if property.className != "NSAttributeDescription" && property.className != "NSDerivedAttributeDescription" {
                context.warn(location, "attribute class \(property.className) is read as a plain attribute")
            }
            return .attribute(try decode(attribute: property, name: propertyName, at: location))
        }
        context.warn(location, "property class \(property.className) is skipped")
        return .skipped
    }

    private func decode(fetchIndex object: ArchivedObject, at location: String) throws -> CompiledFetchIndex {
        context.warnUnknownKeys(object, known: ["NSIndexName", "NSIndexElements", "NSEntity", "NSPartialIndexPredicate"], at: location)
        let elements = try context.elements("NSIndexElements", object).map { value -> CompiledFetchIndex.Element in
            guard case .object(let element) = value, element.isKind(of: "NSFetchIndexElementDescription") else {
                throw CompiledModelError.unexpectedClass(expected: "NSFetchIndexElementDescription", found: value.kindName, context: "NSIndexElements")
            }
            context.warnUnknownKeys(element, known: ["NSPropertyName", "NSFetchIndexElementType", "NSAscending", "NSFetchIndexDescription", "NSProperty"], at: location)
            let propertyName: String
            if let text = try? context.string("NSPropertyName", element) {
                propertyName = text
            } else if case .object(let property) = try context.unwrappingPropertyProxy(try context.value("NSProperty", element), at: location) {
                propertyName = try context.requiredString("NSPropertyName", property)
            } else {
                throw CompiledModelError.missingKey(key: "NSPropertyName", className: element.className)
            }
            return CompiledFetchIndex.Element(
                propertyName: propertyName,
                type: try context.int("NSFetchIndexElementType", element),
                ascending: try context.bool("NSAscending", element, default: true))
        }
        return CompiledFetchIndex(
            name: try context.requiredString("NSIndexName", object),
            elements: elements,
            partialIndexPredicate: try context.predicate("NSPartialIndexPredicate", object, at: location))
    }

    // MARK: Properties

    /// `NSPropertyDescription`'s flags. Core Data writes each as a key (`NSIsOptional`, …) and all of them in
    /// `_P`; when `_P` is non-zero, Core Data's decoder reads the flags from it alone, and so does this one.
    /// `_P` bits: 0x1 present, 0x2 optional, 0x4 read-only, 0x8 transient, 0x10–0x80 "no validation
    /// predicates / warnings / userInfo / version hash modifier", 0x100 Spotlight, 0x200 external record
    /// ("truth") file, 0x400 ordered, 0x800 cloud encryption.
    struct PropertyFlags {
        var optional = false
        var readOnly = false
        var transient = false
        var spotlight = false
        var externalRecord = false
        var ordered = false
        var cloudEncryption = false
    }

    private func flags(_ object: ArchivedObject, at location: String) throws -> PropertyFlags {
        var flags = PropertyFlags()
        let packed = try context.int("_P", object)
        if packed != 0 {
            flags.optional = packed & 0x2 != 0
            flags.readOnly = packed & 0x4 != 0
            flags.transient = packed & 0x8 != 0
            flags.spotlight = packed & 0x100 != 0
            flags.externalRecord = packed & 0x200 != 0
            flags.ordered = packed & 0x400 != 0
            flags.cloudEncryption = packed & 0x800 != 0
            if packed & ~0xFFF != 0 { context.warn(location, "unknown _P bits 0x\(String(packed & ~0xFFF, radix: 16))") }
            if try context.bool("NSIsOptional", object) != flags.optional || (try context.bool("NSIsTransient", object)) != flags.transient {
                context.warn(location, "_P and NSIsOptional/NSIsTransient disagree; _P is used, as Core Data does")
            }
        } else {
            flags.optional = try context.bool("NSIsOptional", object)
            flags.readOnly = try context.bool("NSIsReadOnly", object)
            flags.transient = try context.bool("NSIsTransient", object)
            flags.spotlight = try context.bool("NSIndexedBySpotlight", object)
            flags.externalRecord = try context.bool("NSIsStoredInTruth", object)
            flags.ordered = try context.bool("NSIsOrdered", object)
            flags.cloudEncryption = try context.bool("NSAllowsCloudEncryption", object)
        }
        return flags
    }

    private func decodeCommon(_ object: ArchivedObject, at location: String) throws
        -> (flags: PropertyFlags, userInfo: [String: ModelValue], renaming: String?, modifier: String?, predicates: [String], warnings: [String])
    {
        let predicates = try context.elements("NSValidationPredicates", object).map { value -> String in
            guard case .object(let predicate) = value else {
                throw CompiledModelError.invalidValue(key: "NSValidationPredicates", className: object.className, expected: "predicates")
            }
            return try context.format(predicate: predicate, depth: 0, at: location)
        }
        let warnings = try context.elements("NSValidationWarnings", object).map { value -> String in
            switch value {
            case .string(let text): return text
            case .integer(let number): return String(number)
            default: throw CompiledModelError.invalidValue(key: "NSValidationWarnings", className: object.className, expected: "strings")
            }
        }
        if predicates.count != warnings.count {
            context.warn(location, "\(predicates.count) validation predicates but \(warnings.count) warnings")
        }
        return (
            try flags(object, at: location),
            try context.userInfo("NSUserInfo", object),
            try context.string("NSRenamingIdentifier", object),
            try context.string("NSVersionHashModifier", object),
            predicates, warnings
        )
    }

    private func decode(attribute object: ArchivedObject, name: String, at location: String) throws -> CompiledAttribute {
        context.warnUnknownKeys(object, known: Self.attributeKeys, at: location)
        var attribute = CompiledAttribute(name: name, attributeType: try context.int("NSAttributeType", object))
        let common = try decodeCommon(object, at: location)
        attribute.isOptional = common.flags.optional
        attribute.isTransient = common.flags.transient
        attribute.isReadOnly = common.flags.readOnly
        attribute.isIndexedBySpotlight = common.flags.spotlight
        attribute.isStoredInExternalRecord = common.flags.externalRecord
        attribute.allowsCloudEncryption = common.flags.cloudEncryption
        attribute.userInfo = common.userInfo
        attribute.renamingIdentifier = common.renaming
        attribute.versionHashModifier = common.modifier
        attribute.validationPredicates = common.predicates
        attribute.validationWarnings = common.warnings
        attribute.isIndexed = try context.bool("NSIsIndexed", object)
        attribute.attributeValueClassName = try context.string("NSAttributeValueClassName", object)
        attribute.valueTransformerName = try context.string("NSValueTransformerName", object)
        let defaultValue = try context.value("NSDefaultValue", object)
        attribute.defaultValue = defaultValue.isNull ? nil : try context.modelValue(defaultValue)
        // NSFlagsKey, NSAttributeDescription's own flags: 0x1 has NSMaxValueName, 0x2 has NSMinValueName,
        // 0x4 stores binary data externally, 0x10 preserves the value in history on deletion, 0x20 file-backed
        // future.
        let flags = try context.int("NSFlagsKey", object)
        attribute.flags = object.fields["NSFlagsKey"] == nil ? nil : flags
        attribute.allowsExternalBinaryDataStorage = flags & 0x4 != 0
        attribute.preservesValueInHistoryOnDeletion = flags & 0x10 != 0
        attribute.isFileBackedFuture = flags & 0x20 != 0
        if flags & ~0x37 != 0 { context.warn(location, "unknown NSFlagsKey bits 0x\(String(flags & ~0x37, radix: 16))") }
        if flags & 0x1 != 0 { attribute.maximumValue = try limit("NSMaxValueName", object, kind: attribute.kind) }
        if flags & 0x2 != 0 { attribute.minimumValue = try limit("NSMinValueName", object, kind: attribute.kind) }
        if let expression = try context.object("NSDerivationExpression", object) {
            attribute.derivationExpression = try context.format(expression: expression, depth: 0, at: location)
        }
        attribute.derivationFilteringPredicate = try context.predicate("NSFilteringPredicate", object, at: location)
        return attribute
    }

    /// `NSMinValueName` / `NSMaxValueName`: an integer for integer and string (length) attributes, a real for
    /// the others (dates as seconds since 2001).
    private func limit(_ key: String, _ object: ArchivedObject, kind: AttributeKind) throws -> ModelValue? {
        switch try context.value(key, object) {
        case .null: return nil
        case .integer(let number):
            switch kind {
            case .integer16, .integer32, .integer64, .string: return .integer(number)
            default: return .real(Double(number))
            }
        case .real(let number):
            switch kind {
            case .integer16, .integer32, .integer64, .string:
                guard number.isFinite, number.rounded() == number, let exact = Int64(exactly: number) else { return .real(number) }
                return .integer(exact)
            default: return .real(number)
            }
        default: throw CompiledModelError.invalidValue(key: key, className: object.className, expected: "a number")
        }
    }

    private func decode(relationship object: ArchivedObject, name: String, names: [UInt64: String], at location: String) throws -> CompiledRelationship {
        context.warnUnknownKeys(object, known: Self.relationshipKeys, at: location)
        let destination: String
        if let text = try context.string("_NSDestinationEntityName", object) {
            destination = text
        } else if let entity = try context.object("NSDestinationEntity", object) {
            destination = try entityName(of: .object(entity), names: names, key: "NSDestinationEntity")
        } else {
            throw CompiledModelError.missingKey(key: "NSDestinationEntity", className: object.className)
        }
        var relationship = CompiledRelationship(name: name, destinationEntityName: destination)
        let common = try decodeCommon(object, at: location)
        relationship.isOptional = common.flags.optional
        relationship.isTransient = common.flags.transient
        relationship.isIndexedBySpotlight = common.flags.spotlight
        relationship.isStoredInExternalRecord = common.flags.externalRecord
        relationship.isOrdered = common.flags.ordered
        relationship.userInfo = common.userInfo
        relationship.renamingIdentifier = common.renaming
        relationship.versionHashModifier = common.modifier
        relationship.validationPredicates = common.predicates
        relationship.validationWarnings = common.warnings
        relationship.inverseName = try context.string("_NSInverseRelationshipName", object)
        if let inverse = try context.object("NSInverseRelationship", object) {
            if relationship.inverseName == nil { relationship.inverseName = try context.string("NSPropertyName", inverse) }
            if let owner = try context.object("NSEntity", inverse) {
                relationship.inverseEntityName = try entityName(of: .object(owner), names: names, key: "NSEntity")
            }
        }
        relationship.minCount = try context.int("NSMinCount", object)
        relationship.maxCount = try context.int("NSMaxCount", object, default: 1)
        relationship.isToMany = relationship.maxCount != 1
        relationship.deleteRule = try context.int("NSDeleteRule", object, default: 1)
        if case .unknown(let rule) = relationship.deleteRuleKind { context.warn(location, "unknown delete rule \(rule)") }
        return relationship
    }

    private func decode(fetchedProperty object: ArchivedObject, name: String, names: [UInt64: String], at location: String) throws -> CompiledFetchedProperty {
        context.warnUnknownKeys(object, known: Self.fetchedPropertyKeys, at: location)
        guard let requestObject = try context.object("NSFetchRequest", object) else {
            throw CompiledModelError.missingKey(key: "NSFetchRequest", className: object.className)
        }
        var request = try decode(fetchRequest: requestObject, names: names, at: location)
        if request.entityName.isEmpty, let entityName = try context.string("_NSFetchRequestEntityName", object) {
            request.entityName = entityName
        }
        var property = CompiledFetchedProperty(name: name, fetchRequest: request)
        let common = try decodeCommon(object, at: location)
        property.isOptional = common.flags.optional
        property.userInfo = common.userInfo
        property.renamingIdentifier = common.renaming
        property.versionHashModifier = common.modifier
        return property
    }

    // MARK: Fetch requests

    private func decode(fetchRequest object: ArchivedObject, names: [UInt64: String], at location: String) throws -> CompiledFetchRequest {
        guard object.isKind(of: "NSFetchRequest") else {
            throw CompiledModelError.unexpectedClass(expected: "NSFetchRequest", found: object.className, context: location)
        }
        context.warnUnknownKeys(object, known: Self.fetchRequestKeys, at: location)
        var entityName = try context.string("NSEntityName", object) ?? ""
        if let entity = try context.object("NSEntity", object) {
            entityName = try self.entityName(of: .object(entity), names: names, key: "NSEntity")
        }
        var request = CompiledFetchRequest(entityName: entityName)
        request.predicate = try context.predicate("NSPredicate", object, at: location)
        request.havingPredicate = try context.predicate("NSHavingPredicate", object, at: location)
        request.fetchLimit = try context.int("NSFetchLimit", object)
        request.fetchOffset = try context.int("NSFetchOffset", object)
        request.fetchBatchSize = try context.int("NSBatchSize", object)
        request.resultType = try context.int("NSResultType", object)
        if object.fields["NSFetchRequestFlags"] != nil { request.flags = try context.int("NSFetchRequestFlags", object) }
        request.sortDescriptors = try context.elements("NSSortDescriptors", object).map { value in
            guard case .object(let sort) = value, sort.isKind(of: "NSSortDescriptor") else {
                throw CompiledModelError.unexpectedClass(expected: "NSSortDescriptor", found: value.kindName, context: "NSSortDescriptors")
            }
            return CompiledSortDescriptor(
                key: try context.string("NSKey", sort) ?? "",
                ascending: try context.bool("NSAscending", sort, default: true),
                selector: try context.string("NSSelector", sort))
        }
        if !(try context.value("NSValuesToFetch", object)).isNull {
            request.propertiesToFetch = try context.names(try context.value("NSValuesToFetch", object), key: "NSValuesToFetch", className: object.className)
        }
        if !(try context.value("NSValuesToGroupBy", object)).isNull {
            request.propertiesToGroupBy = try context.names(try context.value("NSValuesToGroupBy", object), key: "NSValuesToGroupBy", className: object.className)
        }
        request.relationshipKeyPathsForPrefetching = try context.names(
            try context.value("NSRelationshipKeyPathsForPrefetching", object), key: "NSRelationshipKeyPathsForPrefetching", className: object.className)
        return request
    }

    // MARK: Inheritance

    /// Moves the properties a sub-entity repeats from its superentity out of its own lists.
    private func markInherited(_ entities: inout [CompiledEntity]) {
        var namesByEntity: [String: Set<String>] = [:]
        for entity in entities {
            namesByEntity[entity.name] = Set(entity.attributes.map(\.name) + entity.relationships.map(\.name) + entity.fetchedProperties.map(\.name))
        }
        for index in entities.indices {
            guard let parent = entities[index].superentityName else { continue }
            guard let inherited = namesByEntity[parent] else {
                context.warn(entities[index].name, "the superentity '\(parent)' is not in the model")
                continue
            }
            entities[index].attributes.removeAll { inherited.contains($0.name) }
            entities[index].relationships.removeAll { inherited.contains($0.name) }
            entities[index].fetchedProperties.removeAll { inherited.contains($0.name) }
            entities[index].inheritedPropertyNames = inherited.sorted()
        }
    }
}

/// A property as decoded from an archive, kept by reference for the other entities that list it.
enum DecodedProperty {
    case attribute(CompiledAttribute)
    case relationship(CompiledRelationship)
    case fetchedProperty(CompiledFetchedProperty)
    /// A property class the decoder does not read (warned about once).
    case skipped
}
