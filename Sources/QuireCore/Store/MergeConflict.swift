import QuireSupport
import Foundation

/// One object a save could not write because its record changed in the store since the context read it
/// (`NSMergeConflict`): the object's values, the values it read, and the store's values now.
///
/// A save under the ``MergePolicy/error`` policy throws ``QuireError/Code/managedObjectMerge`` with one
/// conflict per such object in ``QuireError/conflicts``:
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as QuireError where error.code == .managedObjectMerge {
///     for conflict in error.conflicts {
///         print(conflict.objectID, conflict.oldVersion, "→", conflict.newVersion)
///         print(conflict.cachedSnapshot?["salary"], conflict.objectSnapshot["salary"], conflict.persistedSnapshot?["salary"])
///     }
/// }
/// ```
///
/// Snapshots are keyed by property name: attributes give their values; to-one relationships give the related
/// object's URI (``ObjectID/uriRepresentation()``) or ``AttributeValue/null``. Transient properties and to-many
/// relationships are left out.
public struct MergeConflict: Sendable, CustomStringConvertible {
    /// The object's ID.
    public let objectID: ObjectID
    /// The version (`Z_OPT`) the context read the object at.
    public let oldVersion: Int64
    /// The record's version in the store now; 0 when the record was deleted.
    public let newVersion: Int64
    /// The values the context tried to save.
    public let objectSnapshot: [String: AttributeValue]
    /// The values the context read (before its unsaved changes).
    public package(set) var cachedSnapshot: [String: AttributeValue]?
    /// The store's values now; `nil` when the record was deleted.
    public var persistedSnapshot: [String: AttributeValue]? {
        storeRow.map { MergeConflict.snapshot(of: objectID.entity, attributes: $0.attributes, relationships: $0.relationships) }
    }
    /// Whether another context or coordinator deleted the record.
    public var isDeletedInStore: Bool { storeRow == nil }

    /// The store's row, for resolving the conflict.
    package let storeRow: RowSnapshot?

    package init(objectID: ObjectID, oldVersion: Int64, storeRow: RowSnapshot?, attributes: [AttributeValue], relationships: [RelationshipStorage]) {
        self.objectID = objectID
        self.oldVersion = oldVersion
        self.newVersion = storeRow?.version ?? 0
        self.storeRow = storeRow
        self.objectSnapshot = MergeConflict.snapshot(of: objectID.entity, attributes: attributes, relationships: relationships)
    }

    /// Property values by name, from values by slot.
    package static func snapshot(
        of entity: EntityDescription, attributes: [AttributeValue], relationships: [RelationshipStorage]
    ) -> [String: AttributeValue] {
        var result: [String: AttributeValue] = [:]
        for attribute in entity.allAttributes where !attribute.isTransient && attribute.slot < attributes.count {
            result[attribute.name] = attributes[attribute.slot]
        }
        for relationship in entity.allRelationships where !relationship.isTransient && !relationship.isToMany {
            guard relationship.slot < relationships.count, case .toOne(let id) = relationships[relationship.slot] else { continue }
            result[relationship.name] = id.map { .uri($0.uriRepresentation()) } ?? .null
        }
        return result
    }

    /// The object and both versions.
    public var description: String {
        "\(objectID): read at version \(oldVersion), the store has \(isDeletedInStore ? "deleted it" : "version \(newVersion)")"
    }
}

/// How a save resolves optimistic-locking conflicts (`NSMergePolicy`): what happens when another context or
/// coordinator saved the same objects since this context read them.
///
/// ```swift
/// context.mergePolicy = .mergeByPropertyObjectTrump
/// try context.save()   // properties this context changed win; the others take the store's values
/// ```
///
/// Every policy but ``error`` resolves the conflicts and saves again, under the coordinator's lock, so no other
/// context of the coordinator can save in between. An object whose record was deleted in the store cannot be
/// saved back: every policy but ``error`` drops it from the context (its unsaved changes are lost with it).
///
/// The policy also resolves uniqueness-constraint conflicts (``ConstraintConflict``), as Core Data's
/// `resolve(constraintConflicts:)` does: the stored record survives, takes the duplicates' values as the policy says
/// (object trump: the properties they changed; overwrite: all of them; store trump: only where it has none;
/// rollback: none), and the duplicates are deleted (rollback reverts an updated one instead).
public enum MergePolicy: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The save fails with ``QuireError/Code/managedObjectMerge``, listing the conflicts; nothing is written
    /// and the context is unchanged (the default, as in Core Data).
    case error
    /// Property by property: a property the store changed takes the store's value, even when this context
    /// changed it too; the other properties this context changed keep its values.
    case mergeByPropertyStoreTrump
    /// Property by property: a property this context changed keeps its value; the others take the store's.
    case mergeByPropertyObjectTrump
    /// This context's version of each conflicting object replaces the store's, every property of it.
    case overwrite
    /// The store's version of each conflicting object wins: the object's unsaved changes are discarded and the
    /// rest of the save goes ahead.
    case rollback

    /// Core Data's name for the policy (`NSErrorMergePolicy`, …).
    public var description: String {
        switch self {
        case .error: return "NSErrorMergePolicy"
        case .mergeByPropertyStoreTrump: return "NSMergeByPropertyStoreTrumpMergePolicy"
        case .mergeByPropertyObjectTrump: return "NSMergeByPropertyObjectTrumpMergePolicy"
        case .overwrite: return "NSOverwriteMergePolicy"
        case .rollback: return "NSRollbackMergePolicy"
        }
    }
}
