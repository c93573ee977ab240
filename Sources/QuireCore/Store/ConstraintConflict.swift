import QuireSupport
import Foundation

/// A uniqueness constraint a save would break (`NSConstraintConflict`): objects of the save that share the values
/// of one of their entity's ``EntityDescription/uniquenessConstraints``, with each other or with a record already in
/// the store.
///
/// A save under the ``MergePolicy/error`` policy throws ``QuireError/Code/managedObjectConstraintMerge`` with one
/// conflict per constraint and value tuple in ``QuireError/constraintConflicts``:
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as QuireError where error.code == .managedObjectConstraintMerge {
///     for conflict in error.constraintConflicts {
///         print(conflict.constraint, conflict.constraintValues, conflict.databaseObjectID as Any)
///     }
/// }
/// ```
///
/// The other policies resolve conflicts as Core Data's do, and the save goes on: see ``MergePolicy``.
public struct ConstraintConflict: Sendable, CustomStringConvertible {
    /// The entity that declares the constraint (objects of its sub-entities share it).
    public let entityName: String
    /// The constraint's property names, in the model's order.
    public let constraint: [String]
    /// The values the objects share, by property name (a to-one relationship's value is the related object's URI).
    public let constraintValues: [String: AttributeValue]
    /// The record already in the store with these values; nil when only objects of the save share them.
    public let databaseObjectID: ObjectID?
    /// The objects of the save that hold the values, in the order the context changed them.
    public let conflictingObjectIDs: [ObjectID]
    /// Per conflicting object, its values as the save would have written them.
    public let conflictingSnapshots: [[String: AttributeValue]]
    /// The store's values of ``databaseObjectID``, when there is one.
    public let databaseSnapshot: [String: AttributeValue]?

    /// A conflict.
    package init(
        entityName: String, constraint: [String], constraintValues: [String: AttributeValue], databaseObjectID: ObjectID?,
        conflictingObjectIDs: [ObjectID], conflictingSnapshots: [[String: AttributeValue]],
        databaseSnapshot: [String: AttributeValue]?
    ) {
        self.entityName = entityName
        self.constraint = constraint
        self.constraintValues = constraintValues
        self.databaseObjectID = databaseObjectID
        self.conflictingObjectIDs = conflictingObjectIDs
        self.conflictingSnapshots = conflictingSnapshots
        self.databaseSnapshot = databaseSnapshot
    }

    /// The constraint, the shared values and the objects that share them.
    public var description: String {
        let values = constraint.map { "\($0) = \(constraintValues[$0].map(\.description) ?? "nil")" }.joined(separator: ", ")
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
