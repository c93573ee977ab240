import QuireCore
import Synchronization

/// What changed in a context since it last posted ``ManagedObjectContext/objectsDidChangeNotification``: the
/// objects inserted, updated, deleted, refreshed and invalidated, kept (used only on the context's queue) until
/// the context processes its pending changes, and who is told then besides `NotificationCenter`.
final class ContextChangeNotes {
    // The notes are used only on the context's queue, so their accesses are not checked at run time.

    /// Objects inserted in the context, or by a merge or a child's save.
    @exclusivity(unchecked) var inserted: [ManagedObject] = []
    /// Objects whose values changed (an object set several times in a row is noted once).
    @exclusivity(unchecked) var updated: [ManagedObject] = []
    /// Objects deleted (with their delete rules' cascade), or deleted by a merged save.
    var deleted: [ManagedObject] = []
    /// Objects refreshed, by ``ManagedObjectContext/refresh(_:mergeChanges:)`` or a merge.
    var refreshed: [ManagedObject] = []
    /// Objects whose records disappeared and that left the context.
    var invalidated: [ManagedObject] = []
    /// How many refreshed objects are noted before the context posts them without waiting for the end of the
    /// event.
    static let refreshedBound = 16_384
    /// Set by ``ManagedObjectContext/reset()``: every object was invalidated.
    var invalidatedAll = false

    /// Whether nothing is noted.
    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty && !invalidatedAll
    }

    /// Notes a changed object, once for a run of changes to the same object.
    @inline(__always)
    func noteUpdated(_ object: ManagedObject) {
        if updated.last !== object { updated.append(object) }
    }

    /// Empties the notes, returning what they held.
    func take() -> ContextChangeNotes {
        let taken = ContextChangeNotes()
        swap(&taken.inserted, &inserted)
        swap(&taken.updated, &updated)
        swap(&taken.deleted, &deleted)
        swap(&taken.refreshed, &refreshed)
        swap(&taken.invalidated, &invalidated)
        for object in taken.inserted { object.insertionNotePending = false }
        taken.invalidatedAll = invalidatedAll
        invalidatedAll = false
        return taken
    }

    /// In-process observers (fetched results controllers), called on the context's queue by token.
    var observers: [Int: (ObjectsDidChange) -> Void] = [:]
    /// The next observer token.
    var nextObserverToken = 0
    /// The ``ManagedObjectContext/objectChanges`` streams.
    let streams = ContextChangeStreams()
}

/// The continuations of a context's ``ManagedObjectContext/objectChanges`` streams: streams are made and end
/// on any thread, so the list is locked.
final class ContextChangeStreams: Sendable {
    private let continuations = LockedValue<[Int: AsyncStream<ContextObjectsDidChange>.Continuation]>([:])
    private let nextToken = Atomic<Int>(0)

    /// A new stream, listed until its consumer stops iterating.
    func makeStream() -> AsyncStream<ContextObjectsDidChange> {
        let (stream, continuation) = AsyncStream<ContextObjectsDidChange>.makeStream(bufferingPolicy: .unbounded)
        let token = nextToken.add(1, ordering: .relaxed).newValue
        continuations.withLock { $0[token] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.continuations.withLock { $0.removeValue(forKey: token) }
        }
        return stream
    }

    /// Whether any stream is listening.
    var isEmpty: Bool { continuations.withLock { $0.isEmpty } }

    /// Yields a change to every stream.
    func yield(_ change: @autoclosure () -> ContextObjectsDidChange) {
        let all = continuations.withLock { Array($0.values) }
        guard !all.isEmpty else { return }
        let payload = change()
        for continuation in all { continuation.yield(payload) }
    }

    /// Ends every stream (the context went away).
    func finishAll() {
        let all = continuations.withLock { list in
            defer { list = [:] }
            return Array(list.values)
        }
        for continuation in all { continuation.finish() }
    }
}
