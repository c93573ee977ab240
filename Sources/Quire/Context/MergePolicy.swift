import QuireCore
import Foundation

/// Core Data's five merge policy types (`NSMergePolicyType`), which ``MergePolicy/init(merge:)`` takes.
public enum MergePolicyType: Int, Sendable, Hashable, CaseIterable {
    /// Conflicts fail the save (`NSErrorMergePolicy`).
    case errorMergePolicyType = 0
    /// Property by property, the store's changes win (`NSMergeByPropertyStoreTrumpMergePolicy`).
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    /// Property by property, the context's changes win (`NSMergeByPropertyObjectTrumpMergePolicy`).
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    /// The context's version of each object replaces the store's (`NSOverwriteMergePolicy`).
    case overwriteMergePolicyType = 3
    /// The store's version of each object wins (`NSRollbackMergePolicy`).
    case rollbackMergePolicyType = 4
}

/// How a save resolves conflicts (`NSMergePolicy`): optimistic-locking conflicts (another context or coordinator
/// saved the same objects since this context read them) and uniqueness-constraint conflicts.
///
/// Use one of Core Data's five policies:
///
/// ```swift
/// context.mergePolicy = .mergeByPropertyObjectTrump
/// try context.save()   // properties this context changed win; the others take the store's values
/// ```
///
/// or subclass it, as Core Data apps subclass `NSMergePolicy`, and override the resolution of either kind of
/// conflict, calling `super` for the standard behaviour of the type given to ``init(merge:)``:
///
/// ```swift
/// final class CounterMergePolicy: MergePolicy {
///     override func resolve(optimisticLockingConflicts list: [MergeConflict]) throws {
///         try super.resolve(optimisticLockingConflicts: list)
///         for conflict in list {
///             // The object now holds the merged values: recompute what depends on them.
///             conflict.sourceObject.setValue(Date(), forKey: "updatedAt")
///         }
///     }
/// }
/// context.mergePolicy = CounterMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
/// ```
///
/// A save calls ``resolve(mergeConflicts:)`` with the conflicts it found, on the context's queue and, for
/// optimistic-locking conflicts, under the coordinator's lock (no other context of the coordinator can save in
/// between; fetching and faulting from the policy work). What the policy changes is saved: the save then tries
/// again, up to eight times. An object whose record was deleted in the store cannot be saved back: every type but
/// the error type drops it from the context (its unsaved changes are lost with it).
///
/// Uniqueness-constraint conflicts (``ConstraintConflict``) are resolved as Core Data's `resolve(constraintConflicts:)`
/// does: the stored record survives, takes the duplicates' values as the type says (object trump: the properties
/// they changed; overwrite: all of them; store trump: only where it has none; rollback: none), and the duplicates
/// are deleted (rollback reverts an updated one instead). Objects the resolution changed get `willSave()` again
/// before the save goes on.
///
/// A policy is used on the queue of the context it is set on, as a context is; it is not `Sendable` (a subclass may
/// keep state of its own), and the five standard instances hold nothing mutable.
open class MergePolicy: Hashable, CustomStringConvertible {
    /// The policy's standard behaviour, which the base class's `resolve` methods carry out.
    public let mergeType: MergePolicyType

    /// A policy of one of the five types; subclasses call it from their initializers.
    ///
    /// - Parameter type: The standard behaviour of `resolve(optimisticLockingConflicts:)` and
    ///   `resolve(constraintConflicts:)`.
    public init(merge type: MergePolicyType) {
        self.mergeType = type
    }

    // The five standard instances are `nonisolated(unsafe)`: they are instances of this class itself, whose one
    // stored property is a `let` of a Sendable enum, so reading them from any thread and sharing them between
    // contexts of any queues touches no mutable state.

    /// The save fails with ``QuireError/Code/managedObjectMerge`` (or
    /// ``QuireError/Code/managedObjectConstraintMerge``), listing the conflicts; nothing is written and the context is
    /// unchanged (the default, as in Core Data).
    nonisolated(unsafe) public static let error = MergePolicy(merge: .errorMergePolicyType)
    /// Property by property: a property the store changed takes the store's value, even when this context
    /// changed it too; the other properties this context changed keep its values.
    nonisolated(unsafe) public static let mergeByPropertyStoreTrump = MergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
    /// Property by property: a property this context changed keeps its value; the others take the store's.
    nonisolated(unsafe) public static let mergeByPropertyObjectTrump = MergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    /// This context's version of each conflicting object replaces the store's, every property of it.
    nonisolated(unsafe) public static let overwrite = MergePolicy(merge: .overwriteMergePolicyType)
    /// The store's version of each conflicting object wins: the object's unsaved changes are discarded and the
    /// rest of the save goes ahead.
    nonisolated(unsafe) public static let rollback = MergePolicy(merge: .rollbackMergePolicyType)

    /// The five standard policies, in the order of their types.
    public static var allCases: [MergePolicy] { [.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback] }

    /// Resolves the conflicts of one save attempt (`resolve(mergeConflicts:)`): ``MergeConflict``s and
    /// ``ConstraintConflict``s. The base class passes each kind to its own method.
    ///
    /// - Parameter list: The conflicts.
    /// - Throws: What the methods throw; an error fails the save.
    open func resolve(mergeConflicts list: [Any]) throws {
        let optimistic = list.compactMap { $0 as? MergeConflict }
        if !optimistic.isEmpty { try resolve(optimisticLockingConflicts: optimistic) }
        let constraints = list.compactMap { $0 as? ConstraintConflict }
        if !constraints.isEmpty { try resolve(constraintConflicts: constraints) }
    }

    /// Resolves optimistic-locking conflicts by changing the conflicting objects so that saving again succeeds
    /// (`resolve(optimisticLockingConflicts:)`), as ``mergeType`` says.
    ///
    /// - Parameter list: One conflict per object whose record changed in the store since the context read it.
    /// - Throws: ``QuireError/Code/managedObjectMerge`` listing the conflicts, for the error type.
    open func resolve(optimisticLockingConflicts list: [MergeConflict]) throws {
        guard let context = list.lazy.compactMap({ $0.sourceObjectIfAny?.managedObjectContext }).first else { return }
        if mergeType == .errorMergePolicyType { throw context.mergeError(list, cause: context.pendingConflictCause) }
        context.resolveOptimisticLocking(list, type: mergeType)
    }

    /// Resolves uniqueness-constraint conflicts (`resolve(constraintConflicts:)`), as ``mergeType`` says.
    ///
    /// - Parameter list: One conflict per constraint and value tuple.
    /// - Throws: ``QuireError/Code/managedObjectConstraintMerge`` listing the conflicts, for the error type.
    open func resolve(constraintConflicts list: [ConstraintConflict]) throws {
        guard let context = list.lazy.compactMap({ $0.conflictingObjects.first?.managedObjectContext }).first else { return }
        if mergeType == .errorMergePolicyType { throw context.constraintError(list) }
        for conflict in list {
            context.resolveConstraint(database: conflict.databaseObject, conflicting: conflict.conflictingObjects, type: mergeType)
        }
    }

    /// Policies are equal when they are of the same class and type (the five standard ones are each one
    /// instance).
    public static func == (lhs: MergePolicy, rhs: MergePolicy) -> Bool {
        lhs === rhs || (type(of: lhs) == type(of: rhs) && lhs.mergeType == rhs.mergeType)
    }

    /// Hashes the class and type.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type(of: self)))
        hasher.combine(mergeType)
    }

    /// Core Data's name for the policy's type (`NSErrorMergePolicy`, …), and the class's name for a subclass.
    open var description: String {
        let name: String
        switch mergeType {
        case .errorMergePolicyType: name = "NSErrorMergePolicy"
        case .mergeByPropertyStoreTrumpMergePolicyType: name = "NSMergeByPropertyStoreTrumpMergePolicy"
        case .mergeByPropertyObjectTrumpMergePolicyType: name = "NSMergeByPropertyObjectTrumpMergePolicy"
        case .overwriteMergePolicyType: name = "NSOverwriteMergePolicy"
        case .rollbackMergePolicyType: name = "NSRollbackMergePolicy"
        }
        return type(of: self) == MergePolicy.self ? name : "\(type(of: self))(\(name))"
    }
}

/// `NSErrorMergePolicy`: ``MergePolicy/error``.
public var ErrorMergePolicy: MergePolicy { .error }
/// `NSMergeByPropertyStoreTrumpMergePolicy`: ``MergePolicy/mergeByPropertyStoreTrump``.
public var MergeByPropertyStoreTrumpMergePolicy: MergePolicy { .mergeByPropertyStoreTrump }
/// `NSMergeByPropertyObjectTrumpMergePolicy`: ``MergePolicy/mergeByPropertyObjectTrump``.
public var MergeByPropertyObjectTrumpMergePolicy: MergePolicy { .mergeByPropertyObjectTrump }
/// `NSOverwriteMergePolicy`: ``MergePolicy/overwrite``.
public var OverwriteMergePolicy: MergePolicy { .overwrite }
/// `NSRollbackMergePolicy`: ``MergePolicy/rollback``.
public var RollbackMergePolicy: MergePolicy { .rollback }
