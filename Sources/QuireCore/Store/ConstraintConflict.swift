import QuireSupport
import Foundation

/// A uniqueness constraint a save would break (`NSConstraintConflict`): objects of the save that share the values
/// of one of their entity's ``EntityDescription/uniquenessConstraints``, with each other or with a record already in
/// the store.
///
/// A merge policy's `resolve(constraintConflicts:)` gets them, and a save under the error policy throws ``QuireError/Code/managedObjectConstraintMerge`` with one
/// conflict per constraint and value tuple in ``QuireError/constraintConflicts``:
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as QuireError where error.code == .managedObjectConstraintMerge {
///     for conflict in error.constraintConflicts {
///         print(conflict.constraint, conflict.constraintAttributeValues, conflict.databaseObjectID as Any)
///     }
/// }
/// ```
///
/// The other policies resolve conflicts as Core Data's do, and the save goes on (see `MergePolicy`). The context
/// layer adds Core Data's object-valued properties: `databaseObject`, `conflictingObjects`.
public struct ConstraintConflict: Sendable, CustomStringConvertible {
    /// The entity that declares the constraint (objects of its sub-entities share it).
    public let entityName: String
    /// The constraint's property names, in the model's order.
    public let constraint: [String]
    /// The values the objects share, by property name (a to-one relationship's value is the related object's URI).
    /// The context layer gives them as Core Data does, `[String: Any]`, in `constraintValues`.
    public let constraintAttributeValues: [String: AttributeValue]
    /// The record already in the store with these values; nil when only objects of the save share them.
    public let databaseObjectID: ObjectID?
    /// The objects of the save that hold the values, in the order the context changed them.
    public let conflictingObjectIDs: [ObjectID]
    /// Per conflicting object, its values as the save would have written them (Core Data's shape:
    /// `conflictingSnapshots`).
    public let conflictingValues: [[String: AttributeValue]]
    /// The store's values of ``databaseObjectID``, when there is one (Core Data's shape: `databaseSnapshot`).
    public let databaseValues: [String: AttributeValue]?
    /// The context's objects: the database object (or `NSNull`) first, then the conflicting objects; set by the
    /// context before the conflict reaches a merge policy or an error.
    package var source: ConflictObjects?

    /// A conflict.
    package init(
        entityName: String, constraint: [String], constraintValues: [String: AttributeValue], databaseObjectID: ObjectID?,
        conflictingObjectIDs: [ObjectID], conflictingValues: [[String: AttributeValue]],
        databaseValues: [String: AttributeValue]?
    ) {
        self.entityName = entityName
        self.constraint = constraint
        self.constraintAttributeValues = constraintValues
        self.databaseObjectID = databaseObjectID
        self.conflictingObjectIDs = conflictingObjectIDs
        self.conflictingValues = conflictingValues
        self.databaseValues = databaseValues
    }

    /// The constraint, the shared values and the objects that share them.
    public var description: String {
        let values = constraint.map { "\($0) = \(constraintAttributeValues[$0].map(\.description) ?? "nil")" }.joined(separator: ", ")
        let store = databaseObjectID.map { " and the store's \($0)" } ?? ""
        return "\(entityName) (\(values)): \(conflictingObjectIDs.map(\.description).joined(separator: ", "))\(store)"
    }
}

extension QuireError {
    /// The uniqueness-constraint conflicts of a ``Code/managedObjectConstraintMerge`` error (Core Data's
    /// `conflictList` of `NSConstraintConflict`s).
    public var constraintConflicts: [ConstraintConflict] {
        get { conflictDetails.compactMap { $0 as? ConstraintConflict } }
        set { conflictDetails = conflictDetails.filter { !($0 is ConstraintConflict) } + newValue }
    }
}
