import QuireSupport
import Foundation

/// One object a save could not write because its record changed in the store since the context read it
/// (`NSMergeConflict`): the object's values, the values it read, and the store's values now.
///
/// A merge policy's `resolve(optimisticLockingConflicts:)` gets them (a subclass of `MergePolicy` can look at
/// them and change the objects), and a save under the error policy throws ``QuireError/Code/managedObjectMerge``
/// with one conflict per such object in ``QuireError/conflicts``:
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as QuireError where error.code == .managedObjectMerge {
///     for conflict in error.conflicts {
///         print(conflict.objectID, conflict.oldVersion, "→", conflict.newVersion)
///         print(conflict.cachedValues?["salary"], conflict.objectValues["salary"], conflict.persistedValues?["salary"])
///     }
/// }
/// ```
///
/// The `…Values` dictionaries are keyed by property name: attributes give their values; to-one relationships give
/// the related object's URI (``ObjectID/uriRepresentation()``) or ``AttributeValue/null``. Transient properties and
/// to-many relationships are left out. The context layer adds Core Data's shapes of them (`objectSnapshot`,
/// `cachedSnapshot`, `persistedSnapshot` as `[String: Any]?`) and the conflicting object (`sourceObject`).
public struct MergeConflict: Sendable, CustomStringConvertible {
    /// The object's ID.
    public let objectID: ObjectID
    /// The version (`Z_OPT`) the context read the object at.
    public let oldVersion: Int64
    /// The record's version in the store now; 0 when the record was deleted.
    public let newVersion: Int64
    /// The values the context tried to save.
    public let objectValues: [String: AttributeValue]
    /// The values the context read (before its unsaved changes).
    public package(set) var cachedValues: [String: AttributeValue]?
    /// The store's values now; `nil` when the record was deleted.
    public var persistedValues: [String: AttributeValue]? {
        storeRow.map { MergeConflict.snapshot(of: objectID.entity, attributes: $0.attributes, relationships: $0.relationships) }
    }
    /// The conflicting object of the context, type-erased (this layer cannot name it): set by the context
    /// before the conflict reaches a merge policy or an error.
    package var source: ConflictObjects?
    /// Whether another context or coordinator deleted the record.
    public var isDeletedInStore: Bool { storeRow == nil }

    /// The store's row, for resolving the conflict.
    package let storeRow: RowSnapshot?

    package init(objectID: ObjectID, oldVersion: Int64, storeRow: RowSnapshot?, attributes: [AttributeValue], relationships: [RelationshipStorage]) {
        self.objectID = objectID
        self.oldVersion = oldVersion
        self.newVersion = storeRow?.version ?? 0
        self.storeRow = storeRow
        self.objectValues = MergeConflict.snapshot(of: objectID.entity, attributes: attributes, relationships: relationships)
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

/// The context's objects of a conflict (``MergeConflict``, ``ConstraintConflict``), type-erased: this layer cannot
/// name the context layer's `ManagedObject`, which reads them back.
///
/// Safety of `@unchecked Sendable`: the references are immutable after the context makes them, and the objects
/// they point at are managed objects, which are used only on their context's queue, as everywhere else. A
/// conflict is handed to a merge policy on that queue, and a conflict carried in a thrown error gives its objects
/// only through accessors documented, as Core Data's `NSMergeConflict.sourceObject` is, to be used on the
/// context's queue; the struct's own storage is never written after it is made.
package struct ConflictObjects: @unchecked Sendable {
    /// The objects, in the order the conflict names them.
    package let objects: [AnyObject]
    /// Wraps the objects.
    package init(_ objects: [AnyObject]) { self.objects = objects }
}
