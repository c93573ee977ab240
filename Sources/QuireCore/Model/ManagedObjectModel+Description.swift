import Foundation

// The printed form of a model and its parts, in the shape of Core Data's `description` (what `print(model)`
// shows): each entity with its class, superentity and properties, each property with its flags, each attribute
// with its type, each relationship with its destination, inverse, cardinality and delete rule. Dictionaries print
// sorted by key; object addresses are left out, so the text is the same on every run.

extension ManagedObjectModel {
    /// The model as Core Data prints it: every entity (by name) with its properties, then the fetch request
    /// templates.
    ///
    /// ```
    /// (<ManagedObjectModel>) isEditable 1, entities {
    ///     Run = (<EntityDescription>) name Run, managedObjectClassName Run, renamingIdentifier Run, isAbstract 0, …
    /// }, fetch request templates {}
    /// ```
    public var description: String {
        var text = "(<ManagedObjectModel>) isEditable \(isEditable ? 1 : 0), entities "
        text += ModelDescriptionText.dictionary(
            entities.map { ($0.name, $0.descriptionText(indent: "    ")) }, indent: "")
        text += ", fetch request templates "
        text += ModelDescriptionText.dictionary(
            fetchRequestTemplatesByName.map { name, template in
                (name, "<FetchRequestTemplate> entity \(template.entityName), predicate \(template.predicate.map { "(\($0))" } ?? "(null)")")
            }, indent: "")
        return text
    }
}

extension EntityDescription {
    /// The entity as Core Data prints it: name, class, renaming identifier, abstractness, superentity, its
    /// properties (by name), subentities, user info and version hash modifier.
    public var description: String { descriptionText(indent: "") }

    /// The description with nested lines indented by `indent` (inside a model's).
    func descriptionText(indent: String) -> String {
        var text = "(<EntityDescription>) name \(name), managedObjectClassName \(managedObjectClassName ?? "ManagedObject")"
        text += ", renamingIdentifier \(renamingIdentifier ?? name), isAbstract \(isAbstract ? 1 : 0)"
        text += ", superentity name \(superentity?.name ?? "(null)"), properties "
        text += ModelDescriptionText.dictionary(properties.map { ($0.name, $0.description) }, indent: indent)
        text += ", subentities (\(subentities.map(\.name).sorted().joined(separator: ", ")))"
        text += ", userInfo \(ModelDescriptionText.userInfo(userInfo))"
        text += ", versionHashModifier \(versionHashModifier ?? "(null)")"
        return text
    }
}

extension PropertyDescription {
    /// What every property prints: name, optionality, transience, entity, renaming identifier, version hash
    /// modifier and user info.
    var propertyDescriptionText: String {
        "name \(name), isOptional \(isOptional ? 1 : 0), isTransient \(isTransient ? 1 : 0), entity \(entity?.name ?? "(null)")"
            + ", renamingIdentifier \(renamingIdentifier ?? name), versionHashModifier \(versionHashModifier ?? "(null)")"
            + ", userInfo \(ModelDescriptionText.userInfo(userInfo))"
    }
}

extension AttributeDescription {
    /// The Swift type name of the attribute's values, as Core Data's `attributeValueClassName` names a class;
    /// nil for transformable attributes.
    var attributeValueTypeName: String? {
        switch attributeType {
        case .integer16: return "Int16"
        case .integer32: return "Int32"
        case .integer64: return "Int64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Bool"
        case .date: return "Date"
        case .binaryData: return "Data"
        case .uuid: return "UUID"
        case .uri: return "URL"
        case .transformable: return nil
        }
    }
}

/// The pieces the descriptions share.
enum ModelDescriptionText {
    /// `{}` when empty, else one `key = value;` line per entry, sorted by key, indented one level below `indent`.
    static func dictionary(_ entries: [(String, String)], indent: String) -> String {
        guard !entries.isEmpty else { return "{}" }
        var text = "{\n"
        for (key, value) in entries.sorted(by: { $0.0 < $1.0 }) {
            text += "\(indent)    \(key) = \(value);\n"
        }
        return text + "\(indent)}"
    }

    /// A user info dictionary on one line: `{}` or `{key = value; …}` sorted by key.
    package static func userInfo(_ info: [String: String]) -> String {
        guard !info.isEmpty else { return "{}" }
        return "{" + info.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value);" }.joined(separator: " ") + "}"
    }
}
