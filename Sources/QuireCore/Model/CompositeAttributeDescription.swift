import QuireSupport
import Foundation

/// An attribute made of other attributes (`NSCompositeAttributeDescription`, macOS 14): its value is a dictionary
/// `[String: Any]` keyed by the names of its ``elements``, and each element is stored, validated, queried and
/// sorted on as an attribute of its own, under the key path `composite.element` (`address.city`).
///
/// ```swift
/// let address = CompositeAttributeDescription(name: "address", elements: [
///     AttributeDescription(name: "street", type: .string),
///     AttributeDescription(name: "city", type: .string, isOptional: false),
///     AttributeDescription(name: "postcode", type: .string),
/// ])
/// let person = EntityDescription(name: "Person", properties: [AttributeDescription(name: "name", type: .string), address])
/// ```
///
/// Differences from Core Data: a property of its own kind, not an ``AttributeDescription`` subclass (that class is
/// final, which keeps the key-value paths fast), so it is listed by ``EntityDescription/compositeAttributesByName``
/// and not by ``EntityDescription/attributesByName``. Elements are attributes of any type (without a derivation or
/// external binary storage, as in Core Data) or composites in turn (nested composites, keys `a.b.c`). Every store
/// type keeps composites (Core Data: SQLite only).
///
/// `@unchecked Sendable`: as for ``PropertyDescription``, ``elements`` is written only while the model is editable
/// (checked), and the leaves only while the entity's layout is computed, as the model freezes, before any other
/// thread can reach it; after that everything is only read.
public final class CompositeAttributeDescription: PropertyDescription, @unchecked Sendable {
    /// The composed attributes (``AttributeDescription`` or, nested, ``CompositeAttributeDescription``), in order.
    @exclusivity(unchecked) public var elements: [PropertyDescription] { didSet { checkEditable() } }

    /// A leaf of the composite: an attribute the entity stores, named by its full key path (`address.city`), and the
    /// element description it was made from (named `city`).
    package struct Leaf {
        /// The attribute the entity stores: a copy of ``element`` named by the key path, with its own slot.
        package let attribute: AttributeDescription
        /// The element as the model declares it.
        package let element: AttributeDescription
        /// The names from the composite down to the element (`["address", "city"]`).
        package let path: [String]
    }

    /// The leaves, made when the entity's layout is computed (the model freezing); empty before.
    @exclusivity(unchecked) package private(set) var leaves: [Leaf] = []
    /// The leaves' attributes by key path below this composite (`city`, `geo.lat`).
    @exclusivity(unchecked) private var leavesByPath: [String: AttributeDescription] = [:]

    /// Creates a composite attribute.
    ///
    /// - Parameters:
    ///   - name: The composite's key.
    ///   - elements: Its attributes (or nested composites).
    ///   - isOptional: Whether the whole composite may be nil when saved (default `true`, as in Core Data).
    public init(name: String, elements: [PropertyDescription], isOptional: Bool = true) {
        self.elements = elements
        super.init(name: name)
        self.isOptional = isOptional
    }

    /// The default value, as Core Data builds it: the elements' defaults by element name (nested composites as
    /// nested dictionaries), or nil when no element has one.
    public var defaultValue: [String: Any]? {
        func build(_ elements: [PropertyDescription]) -> [String: Any] {
            var result: [String: Any] = [:]
            for element in elements {
                if let attribute = element as? AttributeDescription, let value = attribute.defaultValue {
                    result[attribute.name] = value
                } else if let composite = element as? CompositeAttributeDescription {
                    let nested = build(composite.elements)
                    if !nested.isEmpty { result[composite.name] = nested }
                }
            }
            return result
        }
        let result = build(elements)
        return result.isEmpty ? nil : result
    }

    /// The leaf attribute at a key path below this composite (`city`, or `geo.lat` in a nested composite); nil when
    /// the path names no element attribute. Valid once the model is frozen.
    package func leaf(forPath path: some Collection<String>) -> AttributeDescription? {
        leavesByPath[path.joined(separator: ".")]
    }

    /// Every element attribute, nested ones flattened in declaration order (`_flattenedElements`), with the names
    /// leading to it; nil entries for elements that are neither attributes nor composites.
    func flattenedElements() -> [(path: [String], element: PropertyDescription)] {
        var result: [(path: [String], element: PropertyDescription)] = []
        func visit(_ elements: [PropertyDescription], prefix: [String]) {
            for element in elements {
                if let composite = element as? CompositeAttributeDescription {
                    visit(composite.elements, prefix: prefix + [composite.name])
                } else {
                    result.append((prefix + [element.name], element))
                }
            }
        }
        visit(elements, prefix: [name])
        return result
    }

    /// Makes the leaves for `entity`: one attribute per element attribute, named by its key path, transient when the
    /// composite is, optional when the element is. Called while the entity's layout is computed.
    func makeLeaves(for entity: EntityDescription) {
        leaves = flattenedElements().compactMap { path, element in
            guard let element = element as? AttributeDescription else { return nil }
            let attribute = element.copy(named: path.joined(separator: "."))
            attribute.isTransient = isTransient || element.isTransient
            attribute.entity = entity
            return Leaf(attribute: attribute, element: element, path: path)
        }
        leavesByPath = Dictionary(
            leaves.map { ($0.path.dropFirst().joined(separator: "."), $0.attribute) }, uniquingKeysWith: { first, _ in first })
    }

    /// Marks the elements, nested composites and leaves read-only, as the model freezes.
    func freezeElements() {
        func visit(_ elements: [PropertyDescription]) {
            for element in elements {
                element.isFrozen = true
                if let composite = element as? CompositeAttributeDescription { visit(composite.elements) }
            }
        }
        visit(elements)
        for leaf in leaves { leaf.attribute.isFrozen = true }
    }

    /// Checks the elements as Core Data's `_checkElements:` does: each an attribute or a composite, with a name, no
    /// two alike at one level; no derivation, no external binary storage.
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` naming the composite and the element.
    func checkElements(entity: String) throws {
        func invalid(_ message: String) -> QuireError {
            QuireError(.invalidModel, "Composite attribute '\(entity).\(name)' \(message)", context: .init(entity: entity, key: name))
        }
        func check(_ elements: [PropertyDescription], in owner: String) throws {
            guard !elements.isEmpty else { throw invalid("has no elements in '\(owner)'.") }
            var names = Set<String>()
            for element in elements {
                guard !element.name.isEmpty, !element.name.contains(".") else {
                    throw invalid("has an element named '\(element.name)' in '\(owner)'; element names are plain keys.")
                }
                guard names.insert(element.name).inserted else { throw invalid("has two elements named '\(element.name)' in '\(owner)'.") }
                if let composite = element as? CompositeAttributeDescription {
                    try check(composite.elements, in: owner + "." + composite.name)
                } else if let attribute = element as? AttributeDescription {
                    if attribute.derivationExpression != nil {
                        throw invalid("has a derived element '\(attribute.name)'; Core Data allows no derivations in composites.")
                    }
                    if attribute.allowsExternalBinaryDataStorage {
                        throw invalid("has an element '\(attribute.name)' stored externally; Core Data allows no external storage in composites.")
                    }
                } else {
                    throw invalid("has an element '\(element.name)' that is not an attribute.")
                }
            }
        }
        try check(elements, in: name)
    }

    override var versionHashText: String {
        super.versionHashText + ";kind=composite;elements="
            + flattenedElements().map { path, element in path.joined(separator: ".") + "(" + element.versionHashText + ")" }
            .joined(separator: ",")
    }

    /// The composite as Core Data prints it: the property's fields, then its elements.
    public override var description: String {
        "(<CompositeAttributeDescription>), \(propertyDescriptionText), attributeType 2100, elements ("
            + elements.map(\.description).joined(separator: ", ") + ")"
    }
}
