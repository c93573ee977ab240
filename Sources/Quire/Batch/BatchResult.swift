import QuireCore

/// What a batch request returns (`NSBatchDeleteResult`, `NSBatchUpdateResult`, `NSBatchInsertResult`): the
/// status, the count or the object IDs, as its ``BatchResultType`` asked.
///
/// ```swift
/// let request = BatchDeleteRequest(fetchRequest: FetchRequest<Run>(entityName: "Run"))
/// request.resultType = .objectIDs
/// let result = try context.execute(request)
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: [ManagedObjectContext.deletedObjectsKey: result.objectIDs ?? []], into: [context])
/// ```
public struct BatchResult: Sendable, Hashable {
    /// What the request asked to be reported.
    public let resultType: BatchResultType
    /// True: a request that fails throws instead.
    public let status: Bool
    /// The number of objects affected (cascaded deletions included), for ``BatchResultType/count``.
    public let count: Int?
    /// The IDs of the objects affected, for ``BatchResultType/objectIDs``.
    public let objectIDs: [ObjectID]?

    /// Core Data's `result`: `true`, the count, or the array of IDs.
    public var result: Any {
        switch resultType {
        case .statusOnly: return status
        case .count: return count ?? 0
        case .objectIDs: return objectIDs ?? []
        }
    }

    package init(resultType: BatchResultType, count: Int, objectIDs: [ObjectID]?) {
        self.resultType = resultType
        self.status = true
        self.count = resultType == .count ? count : nil
        self.objectIDs = resultType == .objectIDs ? (objectIDs ?? []) : nil
    }
}

/// The result of a ``BatchDeleteRequest`` (`NSBatchDeleteResult`).
public typealias BatchDeleteResult = BatchResult
/// The result of a ``BatchUpdateRequest`` (`NSBatchUpdateResult`).
public typealias BatchUpdateResult = BatchResult
/// The result of a ``BatchInsertRequest`` (`NSBatchInsertResult`).
public typealias BatchInsertResult = BatchResult
