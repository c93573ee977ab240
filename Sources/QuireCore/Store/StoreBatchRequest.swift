import QuireSupport
import Foundation

/// A batch delete or update as the coordinator hands it to one store: which records, and for an update the
/// new values. Built by the context from a `BatchDeleteRequest` or `BatchUpdateRequest`.
package struct StoreBatchRequest: Sendable {
    /// Which records a batch request affects.
    package enum Target: Sendable {
        /// The records a fetch matches (its sort and limits ignored).
        case fetch(StoreFetch)
        /// These records (those of this store that exist).
        case objectIDs([ObjectID])
    }

    /// The new value of one attribute in a batch update.
    package enum Value: Sendable {
        /// A constant, already of the attribute's type.
        case constant(AttributeValue)
        /// The value of another attribute of the same record, already checked to have the same type.
        case attribute(AttributeDescription)
        /// An expression of the record's own attributes (`count + 1`, `lowercase:(name)`), evaluated for each
        /// record and converted to the attribute's type (see ``StoreBatchRequest/value(of:for:in:)``).
        case expression(QueryExpression)
    }

    /// What the request does.
    package enum Operation: Sendable {
        /// Deletes the records, following the delete rules of their relationships.
        case delete
        /// Sets attributes of the records, adding 1 to their version.
        case update([(attribute: AttributeDescription, value: Value)])
    }

    /// The entity the request names.
    package var entity: EntityDescription
    /// Which records.
    package var target: Target
    /// What to do with them.
    package var operation: Operation
    /// Whether the caller wants the IDs of the affected records back.
    package var wantsObjectIDs: Bool
    /// The executing context's `transactionAuthor`, for stores that record persistent history.
    package var transactionAuthor: String? = nil
    /// The executing context's name, for stores that record persistent history.
    package var contextName: String? = nil

    /// Creates one.
    package init(entity: EntityDescription, target: Target, operation: Operation, wantsObjectIDs: Bool) {
        self.entity = entity
        self.target = target
        self.operation = operation
        self.wantsObjectIDs = wantsObjectIDs
    }
}

/// What a store reports for a batch request.
package struct StoreBatchResult: Sendable {
    /// How many records the request deleted or updated (cascaded deletions included).
    package var count: Int
    /// The IDs of those records, when asked for (``StoreBatchRequest/wantsObjectIDs``).
    package var objectIDs: [ObjectID]?
    /// The IDs of other records a delete changed (to-one relationships nullified), when asked for.
    package var nullifiedObjectIDs: [ObjectID]?

    /// Creates one.
    package init(count: Int, objectIDs: [ObjectID]? = nil, nullifiedObjectIDs: [ObjectID]? = nil) {
        self.count = count
        self.objectIDs = objectIDs
        self.nullifiedObjectIDs = nullifiedObjectIDs
    }
}

/// A store that runs batch requests itself, in its own query language (SQLite: one statement per table),
/// rather than by reading the records and saving the changes (what every other store does).
package protocol BatchExecutingStoreBackend: PersistentStoreBackend {
    /// Runs a batch request in the store; nil when this request is one the store leaves to the general pass
    /// (a delete that must follow relationships, an update of externally stored data).
    func executeBatchInStore(_ request: StoreBatchRequest) throws -> StoreBatchResult?
}
