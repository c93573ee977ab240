import QuireCore
import Foundation

extension MergeConflict {
    /// The context's object whose save conflicted (`sourceObject`). Use it on its context's queue, as every managed
    /// object; a merge policy is called there.
    ///
    /// Every conflict a context hands to a merge policy or puts in a save's error has it; a conflict made
    /// otherwise has none, and reading it traps naming the object ID.
    public var sourceObject: ManagedObject {
        guard let object = sourceObjectIfAny else {
            preconditionFailure("The merge conflict of \(objectID) came from no context: it has no source object.")
        }
        return object
    }

    /// ``sourceObject``, or nil for a conflict no context filled in.
    var sourceObjectIfAny: ManagedObject? { source?.objects.first as? ManagedObject }

    /// The values the context tried to save, as Core Data gives them (`objectSnapshot`): by property name,
    /// attributes as ``ManagedObject/value(forKey:)`` gives them, to-one relationships as the related object's
    /// ``ObjectID``, `NSNull` for nil; to-many relationships and transient properties left out.
    public var objectSnapshot: [String: Any]? { anySnapshot(objectValues) }

    /// The values the context read before its unsaved changes (`cachedSnapshot`), as ``objectSnapshot``; nil when
    /// the object was a fault.
    public var cachedSnapshot: [String: Any]? { cachedValues.map(anySnapshot) }

    /// The store's values now (`persistedSnapshot`), as ``objectSnapshot``; nil when the record was deleted.
    public var persistedSnapshot: [String: Any]? { persistedValues.map(anySnapshot) }

    /// The store's version of the record now (`newVersionNumber`); 0 when it was deleted.
    public var newVersionNumber: Int { Int(newVersion) }

    /// The version the context read the record at (`oldVersionNumber`).
    public var oldVersionNumber: Int { Int(oldVersion) }

    private func anySnapshot(_ values: [String: AttributeValue]) -> [String: Any] {
        Self.anySnapshot(values, entity: objectID.entity, context: sourceObjectIfAny?.managedObjectContext)
    }

    /// Values keyed by property name in Core Data's form: attributes as `value(forKey:)` gives them, to-one URIs as
    /// object IDs (when a context can resolve them), `NSNull` for nil.
    static func anySnapshot(_ values: [String: AttributeValue], entity: EntityDescription, context: ManagedObjectContext?) -> [String: Any] {
        var result: [String: Any] = [:]
        result.reserveCapacity(values.count)
        for (name, value) in values {
            switch entity.property(named: name) {
            case let attribute as AttributeDescription:
                result[name] = ValueCoercion.publicValue(value, for: attribute) ?? NSNull()
            case is RelationshipDescription:
                if case .uri(let uri) = value, let id = context?.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri) {
                    result[name] = id
                } else {
                    result[name] = value.bridgedValue ?? NSNull()
                }
            default:
                result[name] = value.bridgedValue ?? NSNull()
            }
        }
        return result
    }
}

extension ConstraintConflict {
    /// The stored record's object that holds the constraint's values (`databaseObject`); nil when only objects of
    /// the save share them. Use it on its context's queue.
    public var databaseObject: ManagedObject? {
        guard let source, let first = source.objects.first else { return nil }
        return first as? ManagedObject
    }

    /// The objects of the save that hold the values (`conflictingObjects`), in the order the context changed them.
    /// Use them on their context's queue. Empty for a conflict no context filled in.
    public var conflictingObjects: [ManagedObject] {
        guard let source else { return [] }
        return source.objects.dropFirst().compactMap { $0 as? ManagedObject }
    }

    /// The values the objects share (`constraintValues`), as Core Data gives them: attributes as
    /// ``ManagedObject/value(forKey:)`` gives them, to-one relationships as the related object's ``ObjectID``.
    public var constraintValues: [String: Any] { anySnapshot(constraintAttributeValues) }

    /// Per conflicting object, its values as the save would have written them (`conflictingSnapshots`), as
    /// ``MergeConflict/objectSnapshot``.
    public var conflictingSnapshots: [[String: Any]] { conflictingValues.map(anySnapshot) }

    /// The store's values of ``databaseObject`` (`databaseSnapshot`), as ``MergeConflict/objectSnapshot``.
    public var databaseSnapshot: [String: Any]? { databaseValues.map(anySnapshot) }

    private func anySnapshot(_ values: [String: AttributeValue]) -> [String: Any] {
        let context = conflictingObjects.first?.managedObjectContext
        guard let entity = context?.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName] else {
            return values.mapValues { $0.bridgedValue ?? NSNull() }
        }
        return MergeConflict.anySnapshot(values, entity: entity, context: context)
    }
}
