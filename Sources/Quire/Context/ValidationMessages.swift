import QuireCore
import QuireStores
import Foundation

/// Quire's validation messages: one template per validation code, in the form Core Data's and Xcode's
/// templates use, filled with the model's localized names.
///
/// In a template, `%{PROPERTY}@` stands for the property's localized name, `%{ENTITY}@` for the entity's,
/// and `%@` for the limit the value broke (a number, a length, a count or a date in ISO 8601 form). With the
/// tutorial's localization dictionary, a process ID below its minimum of 1 reads
/// "Process ID must not be less than 1.".
///
/// | Code | Template |
/// |---|---|
/// | 1550 `managedObjectValidation` | `%{PROPERTY}@ is invalid.` |
/// | 1560 `validationMultipleErrors` | `Multiple validation errors occurred.` |
/// | 1570 `validationMissingMandatoryProperty` | `%{PROPERTY}@ is a required value.` |
/// | 1580 `validationRelationshipLacksMinimumCount` | `%{PROPERTY}@ must have at least %@ objects.` |
/// | 1590 `validationRelationshipExceedsMaximumCount` | `%{PROPERTY}@ must not have more than %@ objects.` |
/// | 1600 `validationRelationshipDeniedDelete` | `%{ENTITY}@ cannot be deleted while %{PROPERTY}@ is not empty.` |
/// | 1610 `validationNumberTooLarge` | `%{PROPERTY}@ must not be greater than %@.` |
/// | 1620 `validationNumberTooSmall` | `%{PROPERTY}@ must not be less than %@.` |
/// | 1630 `validationDateTooLate` | `%{PROPERTY}@ must not be later than %@.` |
/// | 1640 `validationDateTooSoon` | `%{PROPERTY}@ must not be earlier than %@.` |
/// | 1660 `validationStringTooLong` | `%{PROPERTY}@ must not be longer than %@ characters.` |
/// | 1670 `validationStringTooShort` | `%{PROPERTY}@ must not be shorter than %@ characters.` |
/// | 1680 `validationStringPatternMatching` | `%{PROPERTY}@ does not match the pattern %@.` |
///
/// A failed validation predicate's message is its warning instead, localized through the model's
/// `ErrorString/<warning>` key (the placeholders above work in warnings too). Names come from the model's
/// localization dictionary, with Core Data's keys: `Entity/<entity>`, `Property/<property>/Entity/<entity>`
/// (tried first, for the object's entity and then for the entity that declares the property), then
/// `Property/<property>`; without an entry, the name itself. A template can be translated the same way as a
/// warning: `ErrorString/<template>` replaces it.
public enum ValidationMessages {
    /// The English template of each validation code.
    public static let templates: [QuireError.Code: String] = [
        .managedObjectValidation: "%{PROPERTY}@ is invalid.",
        .validationMultipleErrors: "Multiple validation errors occurred.",
        .validationMissingMandatoryProperty: "%{PROPERTY}@ is a required value.",
        .validationRelationshipLacksMinimumCount: "%{PROPERTY}@ must have at least %@ objects.",
        .validationRelationshipExceedsMaximumCount: "%{PROPERTY}@ must not have more than %@ objects.",
        .validationRelationshipDeniedDelete: "%{ENTITY}@ cannot be deleted while %{PROPERTY}@ is not empty.",
        .validationNumberTooLarge: "%{PROPERTY}@ must not be greater than %@.",
        .validationNumberTooSmall: "%{PROPERTY}@ must not be less than %@.",
        .validationDateTooLate: "%{PROPERTY}@ must not be later than %@.",
        .validationDateTooSoon: "%{PROPERTY}@ must not be earlier than %@.",
        .validationStringTooLong: "%{PROPERTY}@ must not be longer than %@ characters.",
        .validationStringTooShort: "%{PROPERTY}@ must not be shorter than %@ characters.",
        .validationStringPatternMatching: "%{PROPERTY}@ does not match the pattern %@.",
    ]

    /// The localized name of an entity: `Entity/<name>` in the model's localization dictionary, or the name.
    ///
    /// - Parameter entity: The entity.
    /// - Returns: The name to show.
    public static func localizedName(of entity: EntityDescription) -> String {
        let dictionary = entity.managedObjectModel?.localizationDictionary ?? [:]
        return dictionary["Entity/\(entity.name)"] ?? entity.name
    }

    /// The localized name of a property of an entity: `Property/<name>/Entity/<entity>` (for `entity`, then
    /// for the entity that declares the property), then `Property/<name>`, or the name.
    ///
    /// - Parameters:
    ///   - property: The property.
    ///   - entity: The entity of the object (a sub-entity may name an inherited property its own way).
    /// - Returns: The name to show.
    public static func localizedName(of property: PropertyDescription, in entity: EntityDescription) -> String {
        let dictionary = entity.managedObjectModel?.localizationDictionary ?? [:]
        guard !dictionary.isEmpty else { return property.name }
        if let name = dictionary["Property/\(property.name)/Entity/\(entity.name)"] { return name }
        if let owner = property.entity, owner !== entity, let name = dictionary["Property/\(property.name)/Entity/\(owner.name)"] {
            return name
        }
        return dictionary["Property/\(property.name)"] ?? property.name
    }

    /// The message of a validation failure.
    static func message(
        _ code: QuireError.Code, property: PropertyDescription?, entity: EntityDescription, limit: String? = nil
    ) -> String {
        let template = templates[code] ?? templates[.managedObjectValidation] ?? "%{PROPERTY}@ is invalid."
        return fill(localizedErrorString(template, entity: entity), property: property, entity: entity, limit: limit)
    }

    /// The message of a failed validation predicate: its warning, localized, placeholders filled.
    static func warningMessage(_ warning: String, property: PropertyDescription, entity: EntityDescription) -> String {
        guard !warning.isEmpty else { return message(.managedObjectValidation, property: property, entity: entity) }
        return fill(localizedErrorString(warning, entity: entity), property: property, entity: entity, limit: nil)
    }

    private static func localizedErrorString(_ text: String, entity: EntityDescription) -> String {
        entity.managedObjectModel?.localizationDictionary["ErrorString/\(text)"] ?? text
    }

    private static func fill(_ template: String, property: PropertyDescription?, entity: EntityDescription, limit: String?) -> String {
        var text = template
        if text.contains("%{PROPERTY}@") {
            text = text.replacingOccurrences(
                of: "%{PROPERTY}@", with: property.map { localizedName(of: $0, in: entity) } ?? localizedName(of: entity))
        }
        if text.contains("%{ENTITY}@") {
            text = text.replacingOccurrences(of: "%{ENTITY}@", with: localizedName(of: entity))
        }
        if let limit, let range = text.range(of: "%@") {
            text.replaceSubrange(range, with: limit)
        }
        return text
    }

    /// A limit as a message shows it: integers without a fraction, dates in ISO 8601 form.
    static func describe(_ value: AttributeValue) -> String {
        switch value {
        case .integer(let v): return String(v)
        case .double(let v): return describe(v)
        case .float(let v): return describe(Double(v))
        case .decimal(let v): return "\(v)"
        case .string(let v): return v
        case .date(let v): return v.ISO8601Format()
        default: return value.description
        }
    }

    private static func describe(_ number: Double) -> String {
        if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }
}
