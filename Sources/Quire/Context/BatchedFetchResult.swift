import QuireCore
import QuireStores
import Foundation

/// The objects of a fetch, loaded a batch at a time as they are read
/// (``ManagedObjectContext/fetchBatched(_:)``, Core Data's `fetchBatchSize`).
///
/// The fetch reads only the matching object IDs; reading an element loads its whole batch in one request and
/// keeps only the last two batches loaded. The objects of a batch it lets go are freed at once unless you
/// hold them or they have unsaved changes (as in Core Data, whose contexts hold unchanged objects weakly), so
/// walking millions of objects holds a few batches of objects at a time.
///
/// ```swift
/// let request = FetchRequest<ManagedObject>(entityName: "Item")
/// request.fetchBatchSize = 500
/// let items = try context.fetchBatched(request)
/// for item in items { total += item.value(forKey: "price") as? Double ?? 0 }
/// ```
///
/// Like the objects it returns, a result belongs to its context's queue. A batch whose rows cannot be read
/// (a store error) comes back as faults, which behave as faults that fail to fire.
///
/// - Complexity: Reading an element is O(1) when its batch is loaded, one store request otherwise.
public final class BatchedFetchResult<Element: ManagedObject>: RandomAccessCollection {
    /// The IDs of the matching objects, in the fetch's order.
    public let objectIDs: [ObjectID]
    /// How many objects one batch holds.
    public let batchSize: Int
    /// The context the objects belong to.
    public let context: ManagedObjectContext
    /// The relationship key paths prefetched for each batch.
    let prefetching: [String]
    /// The batches kept loaded, the most recently read last.
    private var loaded: [(batch: Int, objects: [Element])] = []
    /// How many batches stay loaded.
    static var loadedBatchLimit: Int { 2 }

    init(context: ManagedObjectContext, objectIDs: [ObjectID], batchSize: Int, prefetching: [String]) {
        self.context = context
        self.objectIDs = objectIDs
        self.batchSize = Swift.max(1, batchSize)
        self.prefetching = prefetching
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of matching objects.
    public var endIndex: Int { objectIDs.count }

    /// The object at a position, loading its batch first when needed.
    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < objectIDs.count, "Index \(position) is out of range.")
        let batch = position / batchSize
        return objects(ofBatch: batch)[position - batch * batchSize]
    }

    /// How many batches are loaded now (at most two).
    public var loadedBatchCount: Int { loaded.count }

    private func objects(ofBatch batch: Int) -> [Element] {
        if let index = loaded.firstIndex(where: { $0.batch == batch }) {
            let entry = loaded.remove(at: index)
            loaded.append(entry)
            return entry.objects
        }
        let start = batch * batchSize
        let ids = objectIDs[start..<Swift.min(objectIDs.count, start + batchSize)]
        let objects = context.performAndWait { context.loadBatch(ids, prefetching: prefetching) }.map { object in
            guard let typed = object as? Element else {
                preconditionFailure("Fetched a \(type(of: object)), which is not a \(Element.self).")
            }
            return typed
        }
        loaded.append((batch, objects))
        if loaded.count > Self.loadedBatchLimit { release(batch: loaded.removeFirst().batch) }
        return objects
    }

    /// Frees the objects of a batch no longer loaded that nobody else holds and that have no unsaved changes
    /// (the context's registry lets them go now, not at its next prune): reading a million objects keeps
    /// about two batches alive.
    private func release(batch: Int) {
        let start = batch * batchSize
        let ids = objectIDs[start..<Swift.min(objectIDs.count, start + batchSize)]
        context.performAndWait { context.registry.releaseUnreferenced(ids) }
    }
}

extension ManagedObjectContext {
    /// Fetches the IDs of the objects a request matches and returns a collection that loads the objects a
    /// batch of ``FetchRequest/fetchBatchSize`` at a time (64 when it is 0) as they are read.
    ///
    /// Predicates, sort keys, limits, offsets and pending changes apply as for ``fetch(_:)``, and each batch
    /// is prefetched along ``FetchRequest/relationshipKeyPathsForPrefetching``. Use it to walk more objects
    /// than should be in memory at once.
    ///
    /// - Parameter request: A request for managed objects.
    /// - Returns: The lazily loaded objects.
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` for an unknown entity or sort key; store errors.
    public func fetchBatched<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> BatchedFetchResult<Result> {
        try performAndWait {
            let idRequest: FetchRequest<ObjectID> = FetchRequestTemplate(request).makeRequest(of: ObjectID.self)
            idRequest.resultType = .managedObjectID
            idRequest.relationshipKeyPathsForPrefetching = []
            idRequest.affectedStores = request.affectedStores
            let ids = try fetch(idRequest)
            return BatchedFetchResult(
                context: self, objectIDs: ids, batchSize: request.fetchBatchSize > 0 ? request.fetchBatchSize : 64,
                prefetching: request.relationshipKeyPathsForPrefetching)
        }
    }

    /// The objects of one batch, their rows read in one request (not cached, so memory stays flat).
    func loadBatch(_ ids: ArraySlice<ObjectID>, prefetching: [String]) -> [ManagedObject] {
        var filled: [ObjectID: ManagedObject] = [:]
        // A child's objects fill through its parent (one at a time), not from the stores.
        let needed = parent != nil ? [] : ids.filter { id in !id.isTemporaryID && (registeredObject(for: id)?.isFault ?? true) }
        if !needed.isEmpty, let rows = try? readingStores({ try coordinatorOrFail().snapshots(for: Array(needed), caching: false) }) {
            for row in rows { filled[row.objectID] = object(for: row, asFault: false) }
        }
        let objects = ids.map { filled[$0] ?? object(with: $0) }
        try? prefetch(prefetching, for: objects)
        return objects
    }
}
