import QuireCore
import Synchronization

/// The section-info caches of ``FetchedResultsController``s, by cache name: in memory, for the life of the
/// process (Core Data keeps them in files; Quire keeps them where they cost no I/O and cannot go stale across
/// launches).
///
/// An entry holds the request it was made for (entity, predicate, sort keys, section key path), the
/// coordinator and that coordinator's save count at the time, and the sections as names, index titles and
/// object IDs. `performFetch()` uses it only when all of those still match and its context has no unsaved
/// changes: it then makes the objects as faults from the IDs instead of fetching and grouping them. A save
/// through the coordinator makes it stale; saves by other coordinators or processes on the same files are not
/// seen: call ``FetchedResultsController/deleteCache(withName:)`` after such writes, or after changing a
/// request under the same name, as in Core Data.
enum FetchedResultsCache {
    /// One cached result.
    struct Entry: Sendable {
        var fingerprint: String
        var coordinator: ObjectIdentifier
        var saveGeneration: Int
        var sections: [(name: String, indexTitle: String?, objectIDs: [ObjectID])]
    }

    private static let entries = LockedValue<[String: Entry]>([:])

    static func entry(named name: String) -> Entry? { entries.withLock { $0[name] } }

    static func store(_ entry: Entry, named name: String) { entries.withLock { $0[name] = entry } }

    static func remove(named name: String?) {
        entries.withLock { all in
            if let name { all[name] = nil } else { all = [:] }
        }
    }
}

/// The continuations of ``FetchedResultsController/changeSets`` streams (made and ended on any thread).
final class FetchedResultsStreams: Sendable {
    private let continuations = LockedValue<[Int: AsyncStream<FetchedResultsChangeSet>.Continuation]>([:])
    private let nextToken = Atomic<Int>(0)

    func makeStream() -> AsyncStream<FetchedResultsChangeSet> {
        let (stream, continuation) = AsyncStream<FetchedResultsChangeSet>.makeStream(bufferingPolicy: .unbounded)
        let token = nextToken.add(1, ordering: .relaxed).newValue
        continuations.withLock { $0[token] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.continuations.withLock { $0.removeValue(forKey: token) }
        }
        return stream
    }

    /// Whether a stream is being read.
    var isEmpty: Bool { continuations.withLock { $0.isEmpty } }

    func yield(_ changes: FetchedResultsChangeSet) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(changes) }
    }

    func finishAll() {
        let all = continuations.withLock { list in
            defer { list = [:] }
            return Array(list.values)
        }
        for continuation in all { continuation.finish() }
    }
}
