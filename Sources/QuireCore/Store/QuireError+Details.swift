import Foundation
import QuireSupport

extension QuireError.Context {
    /// Creates a context that names the object ID, value or predicate involved; every field is optional.
    public init(
        file: URL? = nil, entity: String? = nil, key: String? = nil, object: URL? = nil, position: Int? = nil,
        objectID: ObjectID? = nil, value: AttributeValue? = nil, predicate: QueryPredicate? = nil
    ) {
        self.init(file: file, entity: entity, key: key, object: object, position: position)
        self.objectID = objectID
        self.value = value
        self.predicate = predicate
    }

    /// The ID of the object involved (validation errors carry it, so the object can be found again with
    /// `ManagedObjectContext.object(with:)`).
    public var objectID: ObjectID? {
        get { objectIDDetail?.value(as: ObjectID.self) }
        set { objectIDDetail = newValue.map(ErrorDetail.init) }
    }

    /// The value that failed validation: an attribute's value, or a relationship's object count.
    public var value: AttributeValue? {
        get { valueDetail?.value(as: AttributeValue.self) }
        set { valueDetail = newValue.map(ErrorDetail.init) }
    }

    /// The validation predicate that failed, for predicate failures.
    public var predicate: QueryPredicate? {
        get { predicateDetail?.value(as: QueryPredicate.self) }
        set { predicateDetail = newValue.map(ErrorDetail.init) }
    }
}

extension QuireError {
    /// The optimistic-locking conflicts of a ``Code/managedObjectMerge`` or
    /// ``Code/persistentStoreSaveConflicts`` error: per object, its values and the store's.
    public var conflicts: [MergeConflict] {
        get { conflictDetails.compactMap { $0 as? MergeConflict } }
        set { conflictDetails = newValue }
    }
}
