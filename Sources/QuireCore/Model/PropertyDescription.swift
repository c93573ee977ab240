import QuireSupport
import Foundation

/// What attributes and relationships share (`NSPropertyDescription`): a name, optionality, transience and the
/// keys that tell model versions apart.
///
/// Descriptions are classes, as in Core Data, and stay editable until a coordinator first uses their model;
/// changing them after that is a programmer error that stops with "Can't modify an immutable model".
///
/// `@unchecked Sendable`: every stored property is written only while the model is editable (checked by
/// `checkEditable()`), and a model is frozen before a coordinator, and so any other thread, can reach it;
/// after that every property is only read.
public class PropertyDescription: @unchecked Sendable, CustomStringConvertible {
    // Exclusivity: stored properties skip dynamic exclusivity checks (`@exclusivity(unchecked)`). A model is
    // written only while it is editable, by the code building it, before any context or store can reach it,
    // and only read once frozen (writes then trap in `checkEditable()`), so no two accesses can overlap. The
    // checks would otherwise run on every fetch and save: the layers are separate modules, so the optimiser
    // can no longer prove them away as it did when everything was one module.
    /// The property's name, the key of `value(forKey:)`.
    @exclusivity(unchecked) public var name: String { didSet { checkEditable() } }
    /// Whether the property may be nil when saved.
    @exclusivity(unchecked) public var isOptional: Bool = true { didSet { checkEditable() } }
    /// Whether the property lives in memory only, never in a store.
    @exclusivity(unchecked) public var isTransient: Bool = false { didSet { checkEditable() } }
    /// Whether the store keeps an index for the property.
    @exclusivity(unchecked) public var isIndexed: Bool = false { didSet { checkEditable() } }
    /// Whether the property's values go into the document's search metadata (Spotlight on the Mac).
    @exclusivity(unchecked) public var isIndexedBySpotlight: Bool = false { didSet { checkEditable() } }
    /// Core Data's "store in external record file" flag, kept for compatibility.
    @exclusivity(unchecked) public var isStoredInExternalRecord: Bool = false { didSet { checkEditable() } }
    /// Application data attached to the property.
    @exclusivity(unchecked) public var userInfo: [String: String] = [:] { didSet { checkEditable() } }
    /// The property's name in an earlier model version, for inferred migration.
    @exclusivity(unchecked) public var renamingIdentifier: String? { didSet { checkEditable() } }
    /// A string mixed into the version hash, to mark a change that the hash would not otherwise see.
    @exclusivity(unchecked) public var versionHashModifier: String? { didSet { checkEditable() } }

    /// Predicates a non-nil value must satisfy when saved (`validationPredicates`); `SELF` is the value (an
    /// attribute's value, a to-one relationship's object, a to-many relationship's objects).
    ///
    /// Set them with ``setValidationPredicates(_:withValidationWarnings:)``. They do not change the version
    /// hash (Core Data's hashes ignore validation).
    @exclusivity(unchecked) public private(set) var validationPredicates: [QueryPredicate] = []
    /// The warning of each predicate in ``validationPredicates``, in the same order: the message of the
    /// validation error when that predicate fails, localized through the model's `ErrorString/<warning>` key.
    @exclusivity(unchecked) public private(set) var validationWarnings: [String] = []

    /// Sets the predicates a value must satisfy and the warning each reports when it fails
    /// (`setValidationPredicates(_:withValidationWarnings:)`), as Core Data's tutorial does:
    ///
    /// ```swift
    /// let processID = AttributeDescription(name: "processID", type: .integer64, isOptional: false, defaultValue: -1)
    /// processID.setValidationPredicates([try QueryPredicate(format: "SELF > 0")], withValidationWarnings: ["Process ID < 1"])
    /// ```
    ///
    /// - Parameters:
    ///   - predicates: The predicates; `SELF` stands for the value.
    ///   - warnings: One warning per predicate.
    /// - Precondition: The two arrays have the same count, and the model is editable.
    public func setValidationPredicates(_ predicates: [QueryPredicate], withValidationWarnings warnings: [String]) {
        checkEditable()
        precondition(
            predicates.count == warnings.count,
            "'\(name)' was given \(predicates.count) validation predicates and \(warnings.count) warnings; give one warning per predicate.")
        validationPredicates = predicates
        validationWarnings = warnings
    }

    /// The entity the property belongs to (unowned, like the other back-pointers of a model; see
    /// ``EntityDescription/superentity``).
    @exclusivity(unchecked) public package(set) unowned var entity: EntityDescription?

    @exclusivity(unchecked) var isFrozen = false
    /// The property's index among its entity's attributes or relationships (inherited ones first), set when
    /// the model is frozen. An inherited property has the same index in every entity of its hierarchy.
    // Written while the model freezes, read-only afterwards: no overlapping access (see EntityDescription).
    @exclusivity(unchecked) package var slot: Int = -1

    package init(name: String) {
        self.name = name
    }

    /// Stops with a clear message when the property's model is already in use by a coordinator.
    func checkEditable() {
        precondition(!isFrozen, "Can't modify an immutable model: '\(name)' belongs to a model a coordinator uses.")
    }

    /// The property's version hash, as Core Data computes it (`NSPropertyDescription.versionHash`): over what
    /// affects persistence (name, optionality, transience, type or relationship shape, ``versionHashModifier``).
    public var versionHash: Data { CoreDataVersionHash.hash(of: self) }

    /// The text Quire's former version hash digested (see ``EntityDescription/legacyVersionHash``); subclasses
    /// add what is their own.
    var versionHashText: String {
        "name=\(name);optional=\(isOptional);transient=\(isTransient);modifier=\(versionHashModifier ?? "")"
    }

    /// The property as Core Data prints it: `(<PropertyDescription>), name …, isOptional 1, …` (see
    /// `ManagedObjectModel+Description.swift`); attributes and relationships add their own fields.
    public var description: String { "(<\(type(of: self))>), \(propertyDescriptionText)" }
}
