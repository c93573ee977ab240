import Foundation
import QuireSupport

/// The table that turns the store token an ``ObjectID`` carries back into its ``PersistentStore``.
///
/// IDs are copied on every fetch, fault and save, so they hold their store as a token (a number never
/// reused in the process) instead of a reference: an ID never keeps its store alive. Every store registers here
/// when made and leaves when deallocated; the table holds it weakly, so a store is freed once its coordinator
/// removed it and nobody else holds it. A store its coordinator removed is marked so: its IDs then resolve to no
/// store (and fire no faults: the context reports their records as missing because the store was removed),
/// never to freed memory. A store that is gone leaves nothing here: its identifier goes to its IDs' owner
/// (``ObjectIDOwner/noteStoreGone(identifier:)``), so its IDs still print their URIs and can be looked up in a
/// coordinator that added the same file again, and the table does not grow with every document a process opens.
package final class StoreHandles: Sendable {
    /// The table of the process.
    package static let shared = StoreHandles()

    private struct Entry {
        weak var store: PersistentStore?
        var isRemoved = false
    }

    private struct State {
        var nextToken: UInt64 = 1
        var entries: [UInt64: Entry] = [:]
    }

    private let state = LockedValue(State())

    private init() {}

    /// A new token, never handed out before (tokens start at 1; 0 means "no store").
    func makeToken() -> UInt64 {
        state.withLock { state in
            defer { state.nextToken += 1 }
            return state.nextToken
        }
    }

    /// Makes a store's token resolve to it (from its initializer, once it is complete).
    package func register(_ store: PersistentStore) {
        state.withLock { $0.entries[store.token] = Entry(store: store) }
    }

    /// Forgets a store (from its `deinit`).
    package func unregister(_ token: UInt64) {
        state.withLock { _ = $0.entries.removeValue(forKey: token) }
    }

    /// The identifier (`NSStoreUUID`) of a token's store while it is alive, attached or removed (once it is
    /// gone, its IDs' owner has it: ``ObjectIDOwner/identifierOfGoneStore``).
    package func identifier(for token: UInt64) -> String? {
        state.withLock { $0.entries[token]?.store }?.identifier
    }

    /// Marks a store removed from (or attached again to) its coordinator.
    package func setRemoved(_ store: PersistentStore, _ removed: Bool) {
        state.withLock { $0.entries[store.token]?.isRemoved = removed }
    }

    /// The store of a token, or nil when it was removed from its coordinator or deallocated.
    package func store(for token: UInt64) -> PersistentStore? {
        state.withLock { state in
            guard let entry = state.entries[token], !entry.isRemoved else { return nil }
            return entry.store
        }
    }

    /// How many stores are alive (registered and not yet deallocated); for tests and benchmarks.
    package var liveCount: Int { state.withLock { $0.entries.count } }
}
