import QuireSupport
import Foundation

/// Turns the element tree of an Xcode model's `contents` file into the model's canonical document
/// (``ModelDocument``), checking every value on the way.
///
/// What is read: `<model userDefinedModelVersionIdentifier>`; `<entity>` (name, `representedClassName`,
/// `parentEntity`, `isAbstract`, `elementID` as the renaming identifier, `versionHashModifier`, `userInfo`,
/// `<uniquenessConstraints>`); `<attribute>` (every type,
/// optional, transient, indexed, defaults, minimum and maximum, regular expression, external storage, Spotlight,
/// external record file, value transformer, preserve after deletion, derivation); `<fetchIndex>` and
/// `<compoundIndexes>` as fetch indexes; `<fetchedProperty>`; `<relationship>` (destination, inverse, to-many, ordered, delete rule, counts); model-level
/// `<fetchRequest>` templates; `<configuration>` with its `<memberEntity>`s. Presentation data (`<elements>`,
/// code generation, CloudKit flags) are skipped; so are elements Quire does not know, so files from newer Xcodes
/// still open. What is kept but not acted on is listed in ``ManagedObjectModel/unsupportedFeatures``.
package struct XcodeModelDecoder {
    package let file: URL

    /// A decoder for the model file at `file`.
    package init(file: URL) { self.file = file }

    private func failure(_ element: XcodeModelElement, _ message: String, entity: String? = nil, key: String? = nil) -> QuireError {
        QuireError(
            .invalidModel, "In line \(element.line) of '\(file.path)': \(element.label) \(message)",
            context: .init(file: file, entity: entity, key: key))
    }

    /// Decodes the root `<model>` element.
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` naming the element, its line and what is wrong with it.
    package func decode(_ root: XcodeModelElement) throws -> ModelDocument {
        guard root.name == "model" else {
            throw QuireError(
                .invalidModel, "In '\(file.path)': the root element is <\(root.name)>, not <model>; this is not an Xcode model.",
                context: .init(file: file))
        }
        var entities: [ModelDocument.Entity] = []
        var names = Set<String>()
        let composites = try compositeDefinitions(root)
        for element in root.children(named: "entity") {
            let entity = try decodeEntity(element, composites: composites)
            guard names.insert(entity.name).inserted else {
                throw failure(element, "repeats the entity name '\(entity.name)'.", entity: entity.name)
            }
            entities.append(entity)
        }
        try checkReferences(root.children(named: "entity"), entities, names)
        var templates: [String: FetchRequestTemplate] = [:]
        for element in root.children(named: "fetchRequest") {
            let name = try required(element, "name")
            guard templates[name] == nil else { throw failure(element, "repeats the fetch request name '\(name)'.") }
            templates[name] = try decodeFetchRequest(element, entities: names)
        }
        var configurations: [String: [String]] = [:]
        for element in root.children(named: "configuration") {
            let name = try required(element, "name")
            guard configurations[name] == nil else { throw failure(element, "repeats the configuration name '\(name)'.") }
            var members: [String] = []
            for member in element.children(named: "memberEntity") {
                let entity = try required(member, "name")
                guard names.contains(entity) else {
                    throw failure(member, "of configuration '\(name)' names an entity the model does not have.", entity: entity)
                }
                members.append(entity)
            }
            configurations[name] = members
        }
        let identifier = root.attributes["userDefinedModelVersionIdentifier"] ?? ""
        return ModelDocument(
            format: ModelDocument.currentFormat, entities: entities, configurations: configurations,
            versionIdentifiers: identifier.isEmpty ? [] : [identifier], localization: [:],
            fetchRequestTemplates: templates.isEmpty ? nil : templates)
    }

    // MARK: Entities

    private func decodeEntity(_ element: XcodeModelElement, composites: [String: XcodeModelElement]) throws -> ModelDocument.Entity {
        let name = try required(element, "name")
        var attributes: [ModelDocument.Attribute] = []
        var compositeAttributes: [ModelDocument.Composite] = []
        var relationships: [ModelDocument.Relationship] = []
        var propertyNames = Set<String>()
        for child in element.children {
            switch child.name {
            case "attribute" where child.attributes["attributeType"] == "Composite":
                let composite = try decodeComposite(child, entity: name, definitions: composites, using: [])
                guard propertyNames.insert(composite.name).inserted else {
                    throw failure(child, "of entity '\(name)' repeats the property name '\(composite.name)'.", entity: name, key: composite.name)
                }
                compositeAttributes.append(composite)
            case "attribute":
                let attribute = try decodeAttribute(child, entity: name)
                guard propertyNames.insert(attribute.name).inserted else {
                    throw failure(child, "of entity '\(name)' repeats the property name '\(attribute.name)'.", entity: name, key: attribute.name)
                }
                attributes.append(attribute)
            case "relationship":
                let relationship = try decodeRelationship(child, entity: name)
                guard propertyNames.insert(relationship.name).inserted else {
                    throw failure(
                        child, "of entity '\(name)' repeats the property name '\(relationship.name)'.", entity: name,
                        key: relationship.name)
                }
                relationships.append(relationship)
            case "compositeAttribute":
                throw failure(child, "of entity '\(name)' is a composite attribute, which Quire does not support yet.", entity: name)
            default:
                continue
            }
        }
        // <uniquenessConstraints><uniquenessConstraint><constraint value="…"/>…: the entity's uniqueness constraints.
        var uniqueness: [[String]] = []
        for group in element.children(named: "uniquenessConstraints") {
            for constraint in group.children(named: "uniquenessConstraint") {
                let names = constraint.children(named: "constraint").compactMap { nonEmpty($0.attributes["value"]) }
                if !names.isEmpty { uniqueness.append(names) }
            }
        }
        // Fetch indexes are kept whole; one over a single attribute, ascending, is also how current Xcodes write
        // the "Indexed" checkbox. Xcode 8's <compoundIndexes> become fetch indexes as Core Data converts them.
        var fetchIndexes: [FetchIndexDescription] = []
        for index in element.children(named: "fetchIndex") {
            fetchIndexes.append(try decodeFetchIndex(index, entity: name, attributes: attributes, relationships: relationships))
        }
        for group in element.children(named: "compoundIndexes") {
            for compound in group.children(named: "compoundIndex") {
                let names = compound.children(named: "index").compactMap { nonEmpty($0.attributes["value"]) }
                guard !names.isEmpty else { continue }
                fetchIndexes.append(FetchIndexDescription(
                    name: "compoundIndex_" + names.joined(separator: "_"), elements: names.map { .init(propertyName: $0) }))
            }
        }
        for index in fetchIndexes where index.isSingleAscendingIndex {
            if let position = attributes.firstIndex(where: { $0.name == index.elements[0].propertyName }) {
                attributes[position].indexed = true
            }
        }
        var fetchedProperties: [FetchedPropertyDescription] = []
        for child in element.children(named: "fetchedProperty") {
            let property = try decodeFetchedProperty(child, entity: name)
            guard propertyNames.insert(property.name).inserted else {
                throw failure(child, "of entity '\(name)' repeats the property name '\(property.name)'.", entity: name, key: property.name)
            }
            fetchedProperties.append(property)
        }
        return ModelDocument.Entity(
            name: name,
            className: nonEmpty(element.attributes["representedClassName"]),
            abstract: try flag(element, "isAbstract"),
            parent: nonEmpty(element.attributes["parentEntity"]),
            attributes: attributes,
            relationships: relationships,
            userInfo: try userInfo(of: element),
            renamingIdentifier: nonEmpty(element.attributes["elementID"]),
            versionHashModifier: nonEmpty(element.attributes["versionHashModifier"]),
            uniquenessConstraints: uniqueness.isEmpty ? nil : uniqueness,
            fetchIndexes: fetchIndexes.isEmpty ? nil : fetchIndexes,
            fetchedProperties: fetchedProperties.isEmpty ? nil : fetchedProperties,
            composites: compositeAttributes.isEmpty ? nil : compositeAttributes)
    }

    /// `<fetchIndex name=… partialIndexPredicate=…><fetchIndexElement property=… type="Binary|RTree"
    /// order="ascending|descending"/>…`; an element over an expression is refused (Quire has no expression indexes).
    private func decodeFetchIndex(
        _ element: XcodeModelElement, entity: String, attributes: [ModelDocument.Attribute],
        relationships: [ModelDocument.Relationship]
    ) throws -> FetchIndexDescription {
        let name = try required(element, "name")
        var elements: [FetchIndexDescription.Element] = []
        for part in element.children(named: "fetchIndexElement") {
            guard let property = nonEmpty(part.attributes["property"]) else {
                throw failure(
                    part, "of fetch index '\(name)' of entity '\(entity)' indexes an expression, which Quire does not support yet.",
                    entity: entity)
            }
            guard attributes.contains(where: { $0.name == property }) || relationships.contains(where: { $0.name == property }) else {
                throw failure(element, "of entity '\(entity)' indexes '\(property)', which the entity does not have.", entity: entity)
            }
            let collation: FetchIndexDescription.Element.CollationType
            switch part.attributes["type"] ?? "Binary" {
            case "Binary": collation = .binary
            case "RTree": collation = .rTree
            case let other: throw failure(part, "of fetch index '\(name)' has the type '\(other)'; it must be Binary or RTree.", entity: entity)
            }
            let ascending: Bool
            switch part.attributes["order"] ?? "ascending" {
            case "ascending": ascending = true
            case "descending": ascending = false
            case let other:
                throw failure(part, "of fetch index '\(name)' has the order '\(other)'; it must be ascending or descending.", entity: entity)
            }
            elements.append(.init(propertyName: property, collationType: collation, isAscending: ascending))
        }
        guard !elements.isEmpty else { throw failure(element, "of entity '\(entity)' indexes nothing.", entity: entity) }
        return FetchIndexDescription(name: name, elements: elements, partialIndexPredicate: nonEmpty(element.attributes["partialIndexPredicate"]))
    }

    /// `<fetchedProperty name=… optional=…><fetchRequest name=… entity=… predicateString=…/></fetchedProperty>`.
    private func decodeFetchedProperty(_ element: XcodeModelElement, entity: String) throws -> FetchedPropertyDescription {
        let name = try required(element, "name")
        guard let request = element.children(named: "fetchRequest").first else {
            throw failure(element, "of entity '\(entity)' has no fetch request.", entity: entity, key: name)
        }
        guard let destination = nonEmpty(request.attributes["entity"]) else {
            throw failure(request, "of fetched property '\(entity).\(name)' has no entity.", entity: entity, key: name)
        }
        return FetchedPropertyDescription(
            name: name, destinationEntityName: destination, predicateFormat: nonEmpty(request.attributes["predicateString"]),
            fetchRequestName: nonEmpty(request.attributes["name"]), isOptional: try flag(element, "optional"),
            userInfo: try userInfo(of: element))
    }

    /// Parents, destinations and inverses must name what the file defines.
    private func checkReferences(_ elements: [XcodeModelElement], _ entities: [ModelDocument.Entity], _ names: Set<String>) throws {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func relationships(of entity: ModelDocument.Entity) -> [ModelDocument.Relationship] {
            var result: [ModelDocument.Relationship] = []
            var current: ModelDocument.Entity? = entity
            var steps = 0
            while let next = current, steps <= entities.count {
                result += next.relationships
                current = next.parent.flatMap { byName[$0] }
                steps += 1
            }
            return result
        }
        for (element, entity) in zip(elements, entities) {
            if let parent = entity.parent, !names.contains(parent) {
                throw failure(element, "names the parent entity '\(parent)', which the model does not have.", entity: entity.name)
            }
            for relationship in entity.relationships {
                let child = element.children.first { $0.name == "relationship" && $0.attributes["name"] == relationship.name } ?? element
                guard let destination = byName[relationship.destination] else {
                    throw failure(
                        child, "of entity '\(entity.name)' points at the entity '\(relationship.destination)', which the model does not have.",
                        entity: entity.name, key: relationship.name)
                }
                if let inverse = relationship.inverse, !relationships(of: destination).contains(where: { $0.name == inverse }) {
                    throw failure(
                        child, "of entity '\(entity.name)' names the inverse '\(inverse)', which entity '\(destination.name)' does not have.",
                        entity: entity.name, key: relationship.name)
                }
            }
        }
    }

    // MARK: Attributes

    /// Xcode's names for attribute types. "Undefined" (written as no `attributeType` at all) is allowed only on
    /// transient attributes, which then hold any value; Quire treats them as transformable.
    package static let attributeTypes: [String: AttributeType] = [
        "Integer 16": .integer16, "Integer 32": .integer32, "Integer 64": .integer64, "Decimal": .decimal,
        "Double": .double, "Float": .float, "String": .string, "Boolean": .boolean, "Date": .date,
        "Binary": .binaryData, "UUID": .uuid, "URI": .uri, "Transformable": .transformable,
    ]

    func decodeAttribute(_ element: XcodeModelElement, entity: String) throws -> ModelDocument.Attribute {
        let name = try required(element, "name")
        let transient = try flag(element, "transient")
        let typeName = element.attributes["attributeType"] ?? "Undefined"
        let type: AttributeType
        if let known = Self.attributeTypes[typeName] {
            type = known
        } else if typeName == "Undefined" && transient {
            type = .transformable
        } else if typeName == "Undefined" {
            throw failure(element, "of entity '\(entity)' has no type; only transient attributes may be undefined.", entity: entity, key: name)
        } else {
            throw failure(
                element, "of entity '\(entity)' has the attribute type '\(typeName)', which Quire does not know.",
                entity: entity, key: name)
        }
        func value(_ key: String, _ parse: (String) -> AttributeValue?) throws -> AttributeValue? {
            guard let text = element.attributes[key] else { return nil }
            guard let parsed = parse(text) else {
                throw failure(
                    element, "of entity '\(entity)' has \(key)=\"\(text)\", which is not a valid \(typeName) value.",
                    entity: entity, key: name)
            }
            return parsed
        }
        var defaultValue = try value("defaultValueString") { Self.attributeValue($0, type: type) }
        var minimum = try value("minValueString") { Self.bound($0, type: type) }
        var maximum = try value("maxValueString") { Self.bound($0, type: type) }
        if type == .date {
            let date: (String) -> AttributeValue? = { Double($0).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } }
            defaultValue = try value("defaultDateTimeInterval", date) ?? defaultValue
            minimum = try value("minDateTimeInterval", date) ?? minimum
            maximum = try value("maxDateTimeInterval", date) ?? maximum
        }
        return ModelDocument.Attribute(
            name: name, type: type, optional: try flag(element, "optional"), transient: transient,
            indexed: try flag(element, "indexed"), defaultValue: defaultValue,
            allowsExternalStorage: try flag(element, "allowsExternalBinaryDataStorage"),
            indexedBySpotlight: try flag(element, "spotlightIndexingEnabled"),
            storedInExternalRecord: try flag(element, "storedInTruthFile"),
            valueTransformerName: nonEmpty(element.attributes["valueTransformerName"]),
            minimum: minimum, maximum: maximum,
            regularExpression: nonEmpty(element.attributes["regularExpressionString"]),
            userInfo: try userInfo(of: element),
            renamingIdentifier: nonEmpty(element.attributes["elementID"]),
            versionHashModifier: nonEmpty(element.attributes["versionHashModifier"]),
            preservesValueInHistoryOnDeletion: try flag(element, "preserveAfterDeletion") ? true : nil,
            derivationExpression: try flag(element, "derived") ? (element.attributes["derivationExpression"] ?? "") : nil)
    }

    /// A default value as Xcode writes it for a type, or nil when the text is not one.
    package static func attributeValue(_ text: String, type: AttributeType) -> AttributeValue? {
        switch type {
        case .integer16, .integer32, .integer64:
            // Xcode writes "0.0" for an integer it once held as a number; an integral value is the integer.
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let value: Int64
            if trimmed == "NO" || trimmed == "YES" {
                // Xcode writes a Boolean's text on integer attributes and momc accepts it: Wire's shipped model
                // has `mutedStatus` (Integer 32) with "NO", which the model caches of Wire's stores hold as 0.
                // "YES" reads as 1, the value the text means (no real file shows what momc makes of it).
                value = trimmed == "YES" ? 1 : 0
            } else if let integer = Int64(trimmed) {
                value = integer
            } else if let real = Double(trimmed), real.isFinite, real.rounded() == real, abs(real) < 9.2e18 {
                value = Int64(real)
            } else {
                return nil
            }
            guard type.integerRange?.contains(value) == true else { return nil }
            return .integer(value)
        case .decimal: return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(AttributeValue.decimal)
        case .double: return Double(text).map(AttributeValue.double)
        case .float: return Float(text).map(AttributeValue.float)
        case .string: return .string(text)
        case .boolean:
            switch text.uppercased() {
            case "YES", "TRUE": return .boolean(true)
            case "NO", "FALSE": return .boolean(false)
            default:
                // Xcode keeps a Boolean default as a number ("100", "0.0" from a type change): nonzero is YES.
                guard let number = Double(text.trimmingCharacters(in: .whitespaces)), !number.isNaN else { return nil }
                return .boolean(number != 0)
            }
        case .date: return date(text).map(AttributeValue.date)
        case .uuid: return UUID(uuidString: text).map(AttributeValue.uuid)
        case .uri: return URL(string: text).map(AttributeValue.uri)
        case .binaryData, .transformable: return nil
        }
    }

    /// A date as Xcode writes one: seconds since 2001-01-01 (`defaultDateTimeInterval` and the like), ISO 8601
    /// (`2013-12-04T10:00:00Z`, or a day alone), or the US short form Xcode 3 wrote (`12/4/2013`, month first), at
    /// midnight UTC.
    package static func date(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let interval = Double(trimmed), interval.isFinite { return Date(timeIntervalSinceReferenceDate: interval) }
        if let date = ISO8601DateFormatter().date(from: trimmed) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.isLenient = false
        for format in ["yyyy-MM-dd", "M/d/yyyy", "M/d/yy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }

    /// A minimum or maximum: a value for numbers, a length for strings and binary data.
    package static func bound(_ text: String, type: AttributeType) -> AttributeValue? {
        switch type {
        case .string, .binaryData, .transformable, .uri:
            guard let length = Int64(text), length >= 0 else { return nil }
            return .integer(length)
        case .boolean, .uuid:
            return nil
        default:
            return attributeValue(text, type: type)
        }
    }

    // MARK: Relationships

    static let deleteRules: [String: DeleteRule] = [
        "Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction,
    ]

    /// Xcode's name of each attribute type (``attributeTypes`` the other way round), as models are written.
    package static let attributeTypeNames = Dictionary(attributeTypes.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })

    /// Xcode's name of each delete rule (``deleteRules`` the other way round).
    package static let deleteRuleNames = Dictionary(deleteRules.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })

    private func decodeRelationship(_ element: XcodeModelElement, entity: String) throws -> ModelDocument.Relationship {
        let name = try required(element, "name")
        guard let destination = nonEmpty(element.attributes["destinationEntity"]) else {
            throw failure(element, "of entity '\(entity)' has no destinationEntity.", entity: entity, key: name)
        }
        let ruleName = element.attributes["deletionRule"] ?? "Nullify"
        guard let rule = Self.deleteRules[ruleName] else {
            throw failure(element, "of entity '\(entity)' has the deletion rule '\(ruleName)', which Quire does not know.", entity: entity, key: name)
        }
        let toMany = try flag(element, "toMany")
        func count(_ key: String) throws -> Int? {
            guard let text = element.attributes[key] else { return nil }
            guard let value = Int(text), value >= 0 else {
                throw failure(element, "of entity '\(entity)' has \(key)=\"\(text)\", which is not a count.", entity: entity, key: name)
            }
            return value
        }
        let minCount = try count("minCount") ?? 0
        var maxCount = try count("maxCount") ?? 0
        if toMany {
            guard maxCount != 1 else {
                throw failure(
                    element, "of entity '\(entity)' is to-many with a maximum count of 1, which Quire cannot tell from to-one; "
                        + "make it to-one or raise the maximum.", entity: entity, key: name)
            }
        } else {
            maxCount = 1
        }
        guard maxCount == 0 || minCount <= maxCount else {
            throw failure(element, "of entity '\(entity)' has a minimum count above its maximum count.", entity: entity, key: name)
        }
        return ModelDocument.Relationship(
            name: name, destination: destination, inverse: nonEmpty(element.attributes["inverseName"]),
            toMany: toMany, ordered: try flag(element, "ordered"), deleteRule: rule, minCount: minCount,
            maxCount: maxCount, optional: try flag(element, "optional"), transient: try flag(element, "transient"),
            indexedBySpotlight: try flag(element, "spotlightIndexingEnabled"), userInfo: try userInfo(of: element),
            renamingIdentifier: nonEmpty(element.attributes["elementID"]),
            versionHashModifier: nonEmpty(element.attributes["versionHashModifier"]),
            storedInExternalRecord: try flag(element, "storedInTruthFile") ? true : nil)
    }

    // MARK: Fetch requests

    private func decodeFetchRequest(_ element: XcodeModelElement, entities: Set<String>) throws -> FetchRequestTemplate {
        guard let entity = nonEmpty(element.attributes["entity"]) else { throw failure(element, "has no entity.") }
        guard entities.contains(entity) else {
            throw failure(element, "fetches the entity '\(entity)', which the model does not have.", entity: entity)
        }
        var template = FetchRequestTemplate(entityName: entity)
        if let format = nonEmpty(element.attributes["predicateString"]) {
            do {
                template.predicate = try QueryPredicate(format: format)
            } catch let error as QuireError {
                throw failure(element, "has a predicate that cannot be read: \(error.message)", entity: entity)
            }
        }
        func number(_ key: String) throws -> Int? {
            guard let text = element.attributes[key] else { return nil }
            guard let value = Int(text), value >= 0 else { throw failure(element, "has \(key)=\"\(text)\", which is not a count.") }
            return value
        }
        template.fetchLimit = try number("fetchLimit") ?? 0
        template.fetchOffset = try number("fetchOffset") ?? 0
        template.fetchBatchSize = try number("fetchBatchSize") ?? 0
        switch try number("resultType") ?? 0 {
        case 0: template.resultType = .managedObject
        case 1: template.resultType = .managedObjectID
        case 2: template.resultType = .dictionary
        case 4: template.resultType = .count
        case let other: throw failure(element, "has the result type \(other), which is not one of 0, 1, 2 and 4.")
        }
        template.includesSubentities = try flag(element, "includeSubentities", default: true)
        template.returnsObjectsAsFaults = try flag(element, "returnObjectsAsFaults", default: true)
        template.returnsDistinctResults = try flag(element, "returnDistinctResults")
        template.includesPendingChanges = try flag(element, "includesPendingChanges", default: true)
        return template
    }

    // MARK: Values

    private func required(_ element: XcodeModelElement, _ key: String) throws -> String {
        guard let value = nonEmpty(element.attributes[key]) else { throw failure(element, "has no \(key).") }
        return value
    }

    /// `YES`/`NO` flags, absent meaning `default`.
    private func flag(_ element: XcodeModelElement, _ key: String, default value: Bool = false) throws -> Bool {
        switch element.attributes[key] {
        case nil: return value
        case "YES": return true
        case "NO": return false
        case let other?: throw failure(element, "has \(key)=\"\(other)\"; it must be YES or NO.")
        }
    }

    /// The `<userInfo><entry key=… value=…/>…` of an element, empty when it has none.
    func userInfo(of element: XcodeModelElement) throws -> [String: String] {
        var result: [String: String] = [:]
        for info in element.children(named: "userInfo") {
            for entry in info.children(named: "entry") {
                guard let key = entry.attributes["key"] else {
                    throw failure(entry, "in the user info of \(element.label) has no key.")
                }
                result[key] = entry.attributes["value"] ?? ""
            }
        }
        return result
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}

extension ModelDocument {
    /// A document from its parts, for readers of other model formats.
    package init(
        format: Int, entities: [Entity], configurations: [String: [String]], versionIdentifiers: [String],
        localization: [String: String], fetchRequestTemplates: [String: FetchRequestTemplate]?
    ) {
        self.format = format
        self.entities = entities
        self.configurations = configurations
        self.versionIdentifiers = versionIdentifiers
        self.localization = localization
        self.fetchRequestTemplates = fetchRequestTemplates
    }
}
