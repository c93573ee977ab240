import QuireCore
import Foundation

/// What identifies the SQL of a fetch: its entity, the shape of its predicate (``SQLPredicateShape``), its
/// sort keys, whether it has a limit or an offset (bound as parameters), whether it includes sub-entities, and
/// what it selects.
package struct SQLFetchShape: Hashable {
    /// What a statement selects.
    package enum Selection: UInt8, Hashable {
        /// Every column of the rows.
        case rows
        /// The rows' keys and entity numbers.
        case objectIDs
        /// `COUNT(*)`.
        case count
        /// No statement: whether the predicate compiles at all.
        case predicateOnly
    }

    package let entity: ObjectIdentifier
    package let predicate: QueryPredicate?
    package let sortKeys: [SortKey]
    let windowed: Bool
    package let includesSubentities: Bool
    package let selection: Selection

    /// The shape of a fetch on a store.
    package init(_ fetch: StoreFetch, selection: Selection, sorted: Bool, store: PersistentStore) {
        self.entity = ObjectIdentifier(fetch.entity)
        self.predicate = fetch.predicate.map { SQLPredicateShape.normalized($0, store: store) }
        self.sortKeys = sorted ? fetch.sortKeys : []
        self.windowed = fetch.limit > 0 || fetch.offset > 0
        self.includesSubentities = fetch.includesSubentities
        self.selection = selection
    }
}

/// The compiled SQL of one fetch shape.
package final class SQLFetchPlan {
    /// The statement's SQL; empty when the shape's SQL depends on its constants' values, and every fetch of
    /// it compiles its own.
    package let sql: String
    /// Per binding of the predicate: the options its string was folded with (see
    /// ``SQLPredicateCompiler/bindingFolds``).
    package let folds: [QueryComparison.Options?]
    /// The store's prepared statement for ``sql`` (an `SQLiteStatement` for SQLite), kept while the store's
    /// connection is open.
    package var statement: AnyObject?

    /// A plan whose bindings come from the parameters of each fetch.
    package init(sql: String, folds: [QueryComparison.Options?], statement: AnyObject?) {
        self.sql = sql
        self.folds = folds
        self.statement = statement
    }

    /// Whether fetches of the shape share this plan's SQL.
    var isShared: Bool { !sql.isEmpty }

    /// The marker of a shape whose fetches each compile their own SQL.
    static var unshared: SQLFetchPlan { SQLFetchPlan(sql: "", folds: [], statement: nil) }
}

/// A bounded cache of compiled fetches by shape (``SQLFetchShape``), least recently used first out; a store
/// keeps one and empties it when it closes. Statistics tell tests how often fetches compiled.
package struct SQLFetchPlanCache<Value> {
    /// How many shapes the cache holds at most.
    package let capacity: Int
    private var entries: [SQLFetchShape: (value: Value, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    /// Lookups that found their shape.
    package private(set) var hits = 0
    /// Lookups that did not.
    package private(set) var misses = 0
    /// Shapes dropped to stay within ``capacity``.
    package private(set) var evictions = 0

    /// An empty cache of at most `capacity` shapes.
    package init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
    }

    /// The number of shapes held.
    package var count: Int { entries.count }

    /// The value of a shape, marked as just used.
    package mutating func value(for shape: SQLFetchShape) -> Value? {
        clock &+= 1
        guard let index = entries.index(forKey: shape) else {
            misses += 1
            return nil
        }
        hits += 1
        entries.values[index].used = clock
        return entries.values[index].value
    }

    /// Stores a shape's value, dropping the least recently used shape when the cache is full.
    package mutating func insert(_ value: Value, for shape: SQLFetchShape) {
        clock &+= 1
        if entries[shape] == nil, entries.count >= capacity,
            let oldest = entries.min(by: { $0.value.used < $1.value.used })?.key
        {
            entries[oldest] = nil
            evictions += 1
        }
        entries[shape] = (value, clock)
    }

    /// Forgets every shape (the statistics stay).
    package mutating func removeAll() {
        entries = [:]
    }
}

/// A fetch's SQL as its store's compiler wrote it: the statement's SQL, the predicate's bindings (a limit and
/// offset the SQL has are bound after them), and what ``SQLPredicateShape`` needs to share the SQL with other
/// fetches of the shape (``SQLPredicateCompiler/bindingFolds`` and
/// ``SQLPredicateCompiler/dependsOnParameterValues``).
package struct CompiledFetchSQL {
    package var sql: String
    package var predicateBindings: [AttributeValue]
    package var folds: [QueryComparison.Options?]
    package var dependsOnParameterValues: Bool

    /// A compiled fetch.
    package init(sql: String, predicateBindings: [AttributeValue], folds: [QueryComparison.Options?], dependsOnParameterValues: Bool) {
        self.sql = sql
        self.predicateBindings = predicateBindings
        self.folds = folds
        self.dependsOnParameterValues = dependsOnParameterValues
    }
}

extension SQLFetchPlanCache where Value == SQLFetchPlan {
    /// The longest list of constants a cached fetch shape holds (the compiler binds a longer one as one JSON
    /// value, ``SQLPredicateCompiler/inList(_:)``, but the list stays in the shape).
    package static var longestCachedList: Int { 16 }

    /// The SQL of a fetch and its predicate's bindings: from the plan of the fetch's shape when there is one
    /// (no compilation; the bindings from the fetch's own constants), otherwise from `compile`, remembered for
    /// later fetches of the shape when they can share it. A store keeps its prepared statement in the plan
    /// returned, if any.
    ///
    /// - Parameter compiled: Called when `compile` ran (stores count compilations).
    package mutating func sql(
        for fetch: StoreFetch, selection: SQLFetchShape.Selection, sorted: Bool, store: PersistentStore,
        compile: () throws -> CompiledFetchSQL
    ) rethrows -> (sql: String, bindings: [AttributeValue], plan: SQLFetchPlan?, compiled: Bool) {
        // A long list of constants (`remoteID IN {…}` of an import's page, a save's uniqueness check) stays in the
        // shape as it is, and the compiler binds its values, so no other fetch can share the SQL: the cache would
        // only hash the whole list to find that out, and keep a key as long as the list.
        if let predicate = fetch.predicate, SQLPredicateShape.holdsList(in: predicate, longerThan: Self.longestCachedList) {
            let compiled = try compile()
            return (compiled.sql, compiled.predicateBindings, nil, true)
        }
        let shape = SQLFetchShape(fetch, selection: selection, sorted: sorted, store: store)
        let cached = value(for: shape)
        if let plan = cached, plan.isShared,
            let bindings = SQLPredicateShape.bindings(
                fetch.predicate.map { SQLPredicateShape.parameters(of: $0, store: store) } ?? [], folds: plan.folds)
        {
            return (plan.sql, bindings, plan, false)
        }
        let compiled = try compile()
        var plan: SQLFetchPlan?
        if cached == nil {
            let parameters = fetch.predicate.map { SQLPredicateShape.parameters(of: $0, store: store) } ?? []
            let shared =
                !compiled.dependsOnParameterValues
                && SQLPredicateShape.bindings(parameters, folds: compiled.folds) == compiled.predicateBindings
            let made = shared ? SQLFetchPlan(sql: compiled.sql, folds: compiled.folds, statement: nil) : .unshared
            insert(made, for: shape)
            if shared { plan = made }
        }
        return (compiled.sql, compiled.predicateBindings, plan, true)
    }
}
