import QuireSupport
import Foundation

extension XcodeModelDecoder {
    /// The model's composite attribute definitions, by name: `<compositeAttribute name="Address">` elements beside
    /// the entities, each holding the `<attribute>`s it is made of.
    ///
    /// How Xcode 15 writes composites is not confirmed by a real file (no model in the corpus uses one): this reads
    /// the layout a public model editor's fixtures show, definitions at model level, and an entity attribute
    /// `attributeType="Composite"` naming its definition with `composite="Address"`.
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` for a definition without a name or one named twice.
    func compositeDefinitions(_ root: XcodeModelElement) throws -> [String: XcodeModelElement] {
        var result: [String: XcodeModelElement] = [:]
        for element in root.children(named: "compositeAttribute") {
            guard let name = element.attributes["name"], !name.isEmpty else {
                throw compositeFailure(element, "has no name.")
            }
            guard result[name] == nil else { throw compositeFailure(element, "repeats the composite name '\(name)'.") }
            result[name] = element
        }
        return result
    }

    /// An entity's (or a composite's) `<attribute attributeType="Composite" composite="Address">`: the composite
    /// attribute with the definition's elements (nested composites in turn).
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` naming the attribute when it names no definition, a definition
    ///   that does not exist, or one that contains itself.
    func decodeComposite(
        _ element: XcodeModelElement, entity: String, definitions: [String: XcodeModelElement], using: [String]
    ) throws -> ModelDocument.Composite {
        guard let name = element.attributes["name"], !name.isEmpty else {
            throw compositeFailure(element, "of entity '\(entity)' has no name.", entity: entity)
        }
        guard let definitionName = element.attributes["composite"], !definitionName.isEmpty else {
            throw compositeFailure(
                element, "of entity '\(entity)' is a composite attribute that names no composite definition (composite=\"…\").",
                entity: entity, key: name)
        }
        guard let definition = definitions[definitionName] else {
            throw compositeFailure(
                element, "of entity '\(entity)' names the composite '\(definitionName)', which the model does not define.",
                entity: entity, key: name)
        }
        guard !using.contains(definitionName) else {
            throw compositeFailure(element, "of entity '\(entity)' nests composite '\(definitionName)' inside itself.", entity: entity, key: name)
        }
        var elements: [ModelDocument.Attribute] = []
        var nested: [ModelDocument.Composite] = []
        for child in definition.children(named: "attribute") {
            if child.attributes["attributeType"] == "Composite" {
                nested.append(try decodeComposite(child, entity: entity, definitions: definitions, using: using + [definitionName]))
            } else {
                elements.append(try decodeAttribute(child, entity: entity))
            }
        }
        return ModelDocument.Composite(
            name: name, optional: element.attributes["optional"] == "YES", transient: element.attributes["transient"] == "YES",
            userInfo: try userInfo(of: element), renamingIdentifier: element.attributes["elementID"].flatMap { $0.isEmpty ? nil : $0 },
            versionHashModifier: element.attributes["versionHashModifier"].flatMap { $0.isEmpty ? nil : $0 },
            elements: elements, composites: nested.isEmpty ? nil : nested)
    }

    private func compositeFailure(_ element: XcodeModelElement, _ message: String, entity: String? = nil, key: String? = nil) -> QuireError {
        QuireError(
            .invalidModel, "In line \(element.line) of '\(file.path)': \(element.label) \(message)",
            context: .init(file: file, entity: entity, key: key))
    }
}
