import QuireSupport
import Foundation

extension ModelDocument {
    /// A composite attribute in a model document: its own settings, its element attributes and its nested
    /// composites (elements first, then nested composites, each in declaration order).
    package struct Composite: Codable {
        package var name: String
        package var optional: Bool
        package var transient: Bool
        package var userInfo: [String: String]
        package var renamingIdentifier: String?
        package var versionHashModifier: String?
        package var elements: [Attribute]
        package var composites: [Composite]?

        /// The composites among some properties, or nil when there are none.
        package static func list(_ properties: [PropertyDescription]) -> [Composite]? {
            let composites = properties.compactMap { $0 as? CompositeAttributeDescription }.map(Composite.init(_:))
            return composites.isEmpty ? nil : composites
        }

        /// The description the document describes.
        ///
        /// - Throws: ``QuireError/Code/invalidModel`` when an element's default value does not fit its type.
        func makeDescription(entity: String) throws -> CompositeAttributeDescription {
            let elements: [PropertyDescription] =
                try self.elements.map { try $0.makeDescription(entity: entity) }
                + (composites ?? []).map { try $0.makeDescription(entity: entity) }
            let composite = CompositeAttributeDescription(name: name, elements: elements, isOptional: optional)
            composite.isTransient = transient
            composite.userInfo = userInfo
            composite.renamingIdentifier = renamingIdentifier
            composite.versionHashModifier = versionHashModifier
            return composite
        }
    }
}

extension ModelDocument.Composite {
    /// The document form of a composite description.
    package init(_ composite: CompositeAttributeDescription) {
        name = composite.name
        optional = composite.isOptional
        transient = composite.isTransient
        userInfo = composite.userInfo
        renamingIdentifier = composite.renamingIdentifier
        versionHashModifier = composite.versionHashModifier
        elements = composite.elements.compactMap { $0 as? AttributeDescription }.map(ModelDocument.Attribute.init(_:))
        composites = ModelDocument.Composite.list(composite.elements)
    }
}

extension ModelDocument.Attribute {
    /// The document form of an attribute description.
    package init(_ a: AttributeDescription) {
        self.init(
            name: a.name, type: a.attributeType, optional: a.isOptional, transient: a.isTransient,
            indexed: a.isIndexed, defaultValue: a.defaultAttributeValue.isNull ? nil : a.defaultAttributeValue,
            allowsExternalStorage: a.allowsExternalBinaryDataStorage, indexedBySpotlight: a.isIndexedBySpotlight,
            storedInExternalRecord: a.isStoredInExternalRecord, valueTransformerName: a.valueTransformerName,
            minimum: a.minimumValue, maximum: a.maximumValue, regularExpression: a.regularExpression,
            userInfo: a.userInfo, renamingIdentifier: a.renamingIdentifier,
            versionHashModifier: a.versionHashModifier,
            validationPredicates: a.validationPredicates.isEmpty ? nil : a.validationPredicates.map(\.predicateFormat),
            validationWarnings: a.validationPredicates.isEmpty ? nil : a.validationWarnings,
            preservesValueInHistoryOnDeletion: a.preservesValueInHistoryOnDeletion ? true : nil,
            derivationExpression: a.derivationExpression)
    }

    /// The attribute description the document describes.
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` when the default value does not fit the type or a validation
    ///   predicate does not parse.
    func makeDescription(entity: String) throws -> AttributeDescription {
        let attribute = AttributeDescription(name: name, type: type, isOptional: optional)
        attribute.isTransient = transient
        attribute.isIndexed = indexed
        if let value = defaultValue {
            do {
                attribute.defaultAttributeValue = try ValueCoercion.coerce(value, to: attribute)
            } catch {
                throw QuireError(
                    .invalidModel, "The default value of '\(entity).\(name)' does not fit its type \(type.rawValue).",
                    context: .init(entity: entity, key: name))
            }
        }
        attribute.allowsExternalBinaryDataStorage = allowsExternalStorage
        attribute.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion ?? false
        attribute.derivationExpression = derivationExpression
        attribute.isIndexedBySpotlight = indexedBySpotlight
        attribute.isStoredInExternalRecord = storedInExternalRecord
        attribute.valueTransformerName = valueTransformerName
        attribute.minimumValue = minimum
        attribute.maximumValue = maximum
        attribute.regularExpression = regularExpression
        attribute.userInfo = userInfo
        attribute.renamingIdentifier = renamingIdentifier
        attribute.versionHashModifier = versionHashModifier
        try ModelDocument.applyValidation(validationPredicates, validationWarnings, to: attribute, entity: entity)
        return attribute
    }
}
