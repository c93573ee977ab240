import QuireSupport

/// A query generation: a view of the stores' saved data as it was at one moment, which a context can be
/// pinned to (`NSQueryGenerationToken`).
///
/// A context pinned to a generation (``ManagedObjectContext/setQueryGenerationFrom(_:)``) fetches and fires
/// faults against the data as it was then, whatever other contexts, coordinators or processes save later,
/// until it saves, resets or merges a save, when it moves on to the then current generation. Pass
/// ``current`` to pin a context to the generation current at its next read, and a context's
/// ``ManagedObjectContext/queryGenerationToken`` to pin another context of the same coordinator to the same
/// view. SQLite stores support generations (each is a read transaction held open on a connection of its own,
/// which WAL journaling lets writers pass); a generation ends when the last token naming it is released.
public final class QueryGenerationToken: Sendable, Hashable, CustomStringConvertible {
    /// Pins a context to the generation current at its next read (`NSQueryGenerationToken.current`).
    public static let current = QueryGenerationToken()

    /// The generation's number, unique in the process (0 for ``current``).
    package let number: UInt64
    /// The coordinator whose stores the generation views (`nil` for ``current``).
    package let coordinatorIdentifier: ObjectIdentifier?
    /// Ends the generation in the stores (closes the connections it held open).
    private let release: (@Sendable () -> Void)?

    private init() {
        number = 0
        coordinatorIdentifier = nil
        release = nil
    }

    /// A token for a generation a coordinator opened; `release` ends it when the token is freed.
    package init(number: UInt64, coordinator: ObjectIdentifier, release: @escaping @Sendable () -> Void) {
        self.number = number
        coordinatorIdentifier = coordinator
        self.release = release
    }

    deinit { release?() }

    /// Whether this is ``current``.
    public var isCurrent: Bool { number == 0 }

    /// `current`, or the generation's number.
    public var description: String { isCurrent ? "QueryGenerationToken(current)" : "QueryGenerationToken(\(number))" }

    /// Whether both tokens name the same generation.
    public static func == (lhs: QueryGenerationToken, rhs: QueryGenerationToken) -> Bool { lhs.number == rhs.number }

    /// Hashes the generation's number.
    public func hash(into hasher: inout Hasher) { hasher.combine(number) }

    /// Numbers for new generations, unique across coordinators.
    private static let counter = LockedValue<UInt64>(0)

    /// A number for a new generation.
    package static func nextNumber() -> UInt64 {
        counter.withLock { value in
            value += 1
            return value
        }
    }
}

/// The generation the read in progress on this thread or task belongs to: a pinned context sets it around
/// its requests to the coordinator, and a store that keeps generations reads through the one it names.
package enum QueryGenerationScope {
    /// The generation's number; 0 when the read is not pinned.
    @TaskLocal package static var number: UInt64 = 0
}

/// A store that can hold query generations open (the SQLite store).
package protocol QueryGenerationBackend: AnyObject {
    /// Starts a generation: from now on, reads made while ``QueryGenerationScope/number`` is `number` see the
    /// store as it is now.
    func openQueryGeneration(_ number: UInt64) throws
    /// Ends a generation (a number it never opened is ignored).
    func closeQueryGeneration(_ number: UInt64)
}
