import QuireCore
import QuireStores
import Foundation

/// Which query generation a context reads (see ``QueryGenerationToken``).
enum QueryGenerationPin {
    /// The stores' latest saved data, read by read.
    case unpinned
    /// The generation current at the context's next read, opened then.
    case current
    /// One generation.
    case pinned(QueryGenerationToken)
}

extension ManagedObjectContext {
    /// The query generation the context is pinned to (`queryGenerationToken`): `nil` when it reads the
    /// stores' latest data, ``QueryGenerationToken/current`` when it is pinned but has not read since, and
    /// otherwise a token another context of the coordinator can be pinned to.
    public var queryGenerationToken: QueryGenerationToken? {
        performAndWait {
            switch queryGenerationPin {
            case .unpinned: return nil
            case .current: return .current
            case .pinned(let token): return token
            }
        }
    }

    /// Pins the context to a query generation, or unpins it with `nil` (`setQueryGenerationFrom(_:)`).
    ///
    /// A pinned context's fetches, counts and faults see the stores' saved data as it was when the generation
    /// began, whatever is saved after; unsaved changes of the context itself count as always. Saving,
    /// ``reset()`` and merging a save (``mergeChanges(fromContextDidSave:)-(ContextDidSave)``, which automatic
    /// merging also calls) move a pinned context on to the generation current at its next read, as in Core
    /// Data. Objects already registered keep the values they have until they are refreshed.
    ///
    /// ```swift
    /// try context.setQueryGenerationFrom(.current)
    /// let before = try context.count(for: FetchRequest<ManagedObject>(entityName: "Note"))
    /// // …another coordinator saves a new note…
    /// let still = try context.count(for: FetchRequest<ManagedObject>(entityName: "Note"))   // == before
    /// ```
    ///
    /// - Parameter token: ``QueryGenerationToken/current``, the ``queryGenerationToken`` of a context of the
    ///   same coordinator, or `nil`.
    /// - Throws: ``QuireError/Code/persistentStoreOperation`` when a store cannot hold a generation (only
    ///   SQLite stores in WAL mode can; the check is made at the next read for ``QueryGenerationToken/current``,
    ///   which then reads unpinned and throws), ``QuireError/Code/invalidArgument`` for a child context (it
    ///   reads through its parent: pin the parent) or a token from another coordinator.
    public func setQueryGenerationFrom(_ token: QueryGenerationToken?) throws {
        try performAndWait {
            guard let token else {
                queryGenerationPin = .unpinned
                return
            }
            guard parent == nil else {
                throw QuireError(
                    .invalidArgument, "A child context reads through its parent and cannot be pinned to a query generation; pin its parent.")
            }
            if token.isCurrent {
                // Checked now, so that an unsupported store is reported where the pin is asked for.
                _ = try coordinatorOrFail().openQueryGeneration()
                queryGenerationPin = .current
                return
            }
            guard token.coordinatorIdentifier == persistentStoreCoordinator.map(ObjectIdentifier.init) else {
                throw QuireError(.invalidArgument, "\(token) belongs to another persistent store coordinator.")
            }
            queryGenerationPin = .pinned(token)
        }
    }

    /// Runs a request to the stores in the context's query generation, opening it first when the context was
    /// pinned to ``QueryGenerationToken/current`` and has not read since.
    func readingStores<Result>(_ body: () throws -> Result) throws -> Result {
        let token: QueryGenerationToken
        switch queryGenerationPin {
        case .unpinned:
            return try body()
        case .pinned(let pinned):
            token = pinned
        case .current:
            guard parent == nil, let coordinator = persistentStoreCoordinator else { return try body() }
            token = try coordinator.openQueryGeneration()
            queryGenerationPin = .pinned(token)
        }
        return try QueryGenerationScope.$number.withValue(token.number, operation: body)
    }

    /// After a save, a reset or a merge: a pinned context moves on to the generation current at its next read.
    func advanceQueryGeneration() {
        if case .pinned = queryGenerationPin { queryGenerationPin = .current }
    }
}
