import QuireCore

/// What a batch request reports (`NSBatchDeleteRequestResultType`, `NSBatchUpdateRequestResultType`,
/// `NSBatchInsertRequestResultType`, one enum for the three).
public enum BatchResultType: Sendable, Hashable {
    /// Only whether it succeeded (`resultTypeStatusOnly`, `statusOnlyResultType`); the default.
    case statusOnly
    /// The number of objects deleted, updated or inserted (`resultTypeCount`, `updatedObjectsCountResultType`).
    case count
    /// The IDs of the objects deleted, updated or inserted (`resultTypeObjectIDs`, `updatedObjectIDsResultType`).
    case objectIDs
}
