import QuireSupport
import Foundation

/// A relationship of an entity (`NSRelationshipDescription`): to-one, to-many or ordered to-many, with an
/// inverse and a delete rule.
///
/// ```swift
/// let employees = RelationshipDescription(name: "employees", destination: "Employee", toMany: true)
/// employees.deleteRule = .cascade
/// let department = RelationshipDescription(name: "department", destination: "Department")
/// employees.inverseRelationship = department
/// ```
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {
    // Exclusivity: stored properties skip dynamic exclusivity checks (`@exclusivity(unchecked)`). A model is
    // written only while it is editable, by the code building it, before any context or store can reach it,
    // and only read once frozen (writes then trap in `checkEditable()`), so no two accesses can overlap. The
    // checks would otherwise run on every fetch and save: the layers are separate modules, so the optimiser
    // can no longer prove them away as it did when everything was one module.
    /// The name of the entity the relationship points at.
    @exclusivity(unchecked) public var destinationEntityName: String { didSet { checkEditable() } }
    /// The name of the inverse relationship on the destination entity, if any.
    @exclusivity(unchecked) public var inverseRelationshipName: String? { didSet { checkEditable() } }
    /// What deleting the source object does to the destination objects.
    @exclusivity(unchecked) public var deleteRule: DeleteRule = .nullify { didSet { checkEditable() } }
    /// The fewest objects a to-many relationship may hold when saved.
    @exclusivity(unchecked) public var minCount: Int = 0 { didSet { checkEditable() } }
    /// The most objects the relationship may hold: 1 makes it to-one, 0 means no limit.
    @exclusivity(unchecked) public var maxCount: Int = 1 { didSet { checkEditable() } }
    /// Whether a to-many relationship keeps its objects in order.
    @exclusivity(unchecked) public var isOrdered: Bool = false { didSet { checkEditable() } }

    /// Creates a relationship.
    ///
    /// - Parameters:
    ///   - name: The relationship's key.
    ///   - destination: The name of the destination entity.
    ///   - toMany: Whether it is to-many (``maxCount`` 0) or to-one (``maxCount`` 1).
    ///   - isOrdered: Whether a to-many relationship is ordered.
    ///   - inverse: The name of the inverse relationship.
    ///   - deleteRule: The delete rule (default nullify).
    public init(
        name: String,
        destination: String,
        toMany: Bool = false,
        isOrdered: Bool = false,
        inverse: String? = nil,
        deleteRule: DeleteRule = .nullify
    ) {
        self.destinationEntityName = destination
        self.inverseRelationshipName = inverse
        super.init(name: name)
        self.maxCount = toMany ? 0 : 1
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
    }

    /// Whether the relationship is to-many (``maxCount`` other than 1).
    public var isToMany: Bool {
        get { maxCount != 1 }
        set { maxCount = newValue ? 0 : 1 }
    }

    /// The destination entity, resolved through the model.
    public var destinationEntity: EntityDescription? {
        get { entity?.managedObjectModel?.entitiesByName[destinationEntityName] }
        set { if let newValue { destinationEntityName = newValue.name } }
    }

    /// The inverse relationship, resolved through the destination entity. Setting it links both sides.
    public var inverseRelationship: RelationshipDescription? {
        get {
            guard let inverseRelationshipName else { return nil }
            return destinationEntity?.relationshipsByName[inverseRelationshipName]
        }
        set {
            inverseRelationshipName = newValue?.name
            if let newValue, newValue.inverseRelationshipName != name { newValue.inverseRelationshipName = name }
        }
    }

    /// Set once the model is frozen: the resolved destination and inverse, so hot paths need no lookups.
    /// Unowned: the model owns its entities and they their properties, so both outlive any use through here.
    // Written while the model freezes, read-only afterwards: no overlapping access (see EntityDescription).
    @exclusivity(unchecked) package unowned var resolvedDestination: EntityDescription?
    // Written while the model freezes, read-only afterwards: no overlapping access (see EntityDescription).
    @exclusivity(unchecked) package unowned var resolvedInverse: RelationshipDescription?

    /// Whether validation checks the relationship: it is persistent and required, counted or has predicates.
    package var hasValidationRules: Bool {
        guard !isTransient else { return false }
        if !isOptional || !validationPredicates.isEmpty { return true }
        return isToMany && (minCount > 0 || maxCount > 0)
    }

    override var versionHashText: String {
        super.versionHashText
            + ";kind=relationship;destination=\(destinationEntityName);inverse=\(inverseRelationshipName ?? "")"
            + ";toMany=\(isToMany);ordered=\(isOrdered);min=\(minCount);max=\(maxCount)"
    }

    /// The relationship as Core Data prints it: the property's fields, then its destination, inverse, counts,
    /// order, cardinality and delete rule.
    public override var description: String {
        "(<RelationshipDescription>), \(propertyDescriptionText), destination entity \(destinationEntityName)"
            + ", inverseRelationship \(inverseRelationshipName ?? "(null)"), minCount \(minCount), maxCount \(maxCount)"
            + ", isOrdered \(isOrdered ? 1 : 0), isToMany \(isToMany ? 1 : 0), deleteRule \(deleteRule.rawValue)"
    }
}
