import QuireSupport
import Foundation

extension AttributeDescription {
    /// An editable copy of the attribute under another name, with every setting but its entity and slot: how a
    /// composite's elements become the attributes its entity stores (``CompositeAttributeDescription``).
    package func copy(named name: String) -> AttributeDescription {
        let copy = AttributeDescription(name: name, type: attributeType, isOptional: isOptional)
        copy.isTransient = isTransient
        copy.isIndexed = isIndexed
        copy.isIndexedBySpotlight = isIndexedBySpotlight
        copy.isStoredInExternalRecord = isStoredInExternalRecord
        copy.userInfo = userInfo
        copy.renamingIdentifier = renamingIdentifier
        copy.versionHashModifier = versionHashModifier
        copy.setValidationPredicates(validationPredicates, withValidationWarnings: validationWarnings)
        copy.defaultAttributeValue = defaultAttributeValue
        copy.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        copy.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        copy.derivationExpression = derivationExpression
        copy.valueTransformerName = valueTransformerName
        copy.minimumValue = minimumValue
        copy.maximumValue = maximumValue
        copy.regularExpression = regularExpression
        return copy
    }
}
