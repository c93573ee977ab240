import QuireCore
import Foundation

/// A store on Core Data's table layout in an SQL database, as the shared SQL store layer sees it: the engine
/// protocol. An engine's store (`SQLiteStore` in `QuireSQLite`, `PostgresStore` in `QuirePostgres`) conforms and gives what
/// differs: its dialect, how it runs planned SQL and hands out rows, how it runs a statement of integers, and a
/// few hooks; the layer's extensions of this protocol (`SQLStore+Fetch.swift`, `SQLStore+BatchRequests.swift`,
/// `SQLStore+MemberChanges.swift`, `SQLStore+RelatedObjects.swift`) write fetch clauses, fetch plans,
/// evaluability, batch statements, member changes and the members of many objects' to-many relationships once.
///
/// The extensions are generic over the conforming final class, never an existential, and run once per fetch,
/// batch or save, not per row: a row is never read through the protocol (each engine's loop reads its own cursor
/// through ``RowReader``, which the engine's module specializes for its cursor through the `QuireEngine` SPI).
package protocol SQLStore: PersistentStoreBackend, RowReadingStore {
    /// What runs a fetch's planned SQL hands back (a prepared SQLite statement, a PostgreSQL result).
    associatedtype PlannedRows
    /// The connection statements run on.
    associatedtype Connection

    /// The engine's SQL.
    var dialect: SQLDialect { get }
    /// The store's tables, columns and entity numbers.
    var schema: CoreDataSchema { get }
    /// The compiled SQL of recent fetches by shape, with the engine's prepared statements.
    var fetchPlans: SQLFetchPlanCache<SQLFetchPlan> { get set }
    /// Whether recent predicates compile, by shape.
    var evaluablePredicates: SQLFetchPlanCache<Bool> { get set }
    /// How many times a fetch's predicate was compiled to SQL (tests read it).
    var fetchCompilations: Int { get set }
    /// How messages name the store (`the SQLite store '/a/b.sqlite'`).
    var errorDescription: String { get }
    /// The URL errors carry as their file (never with a password).
    var errorFile: URL? { get }

    /// The columns every row select lists: the key, entity number and version, then the table's columns (alias
    /// `t0`), in ``RowReader``'s column order.
    func selectList(_ table: CoreDataSchema.Table) -> String
    /// Runs a fetch's SQL with its values (the predicate's, then limit and offset), reusing the prepared statement
    /// `plan` keeps (or keeping one in it).
    func runPlanned(_ sql: String, _ bindings: [AttributeValue], plan: SQLFetchPlan?) throws -> PlannedRows
    /// Whether a batch update of an attribute is left to the pass over the records (SQLite: an attribute its
    /// derived-attribute triggers maintain).
    func keepsOutOfBatchUpdates(_ attribute: AttributeDescription) -> Bool
    /// The WHERE condition of a batch request's predicate on rows `t0`; nil leaves the request to the pass over the
    /// records (which reports a predicate it cannot evaluate either).
    func batchCondition(
        _ predicate: QueryPredicate, entity: EntityDescription, scope: SQLQueryScope, compiler: inout SQLPredicateCompiler
    ) throws -> String?
    /// The SQL computing a batch update's expression for each row `t0`, nil when the engine does not compute it
    /// exactly as the in-memory pass would (the pass over the records then does).
    func batchValue(
        _ expression: QueryExpression, for attribute: AttributeDescription, entity: EntityDescription,
        compiler: inout SQLPredicateCompiler
    ) -> String?
    /// Runs a statement of integer parameters on `connection`; the number of rows it changed.
    func changes(running sql: String, _ values: [Int64], on connection: Connection) throws -> Int
    /// Runs a query of integer parameters on `connection`; its first row's first value, nil for no row or NULL.
    func integer(querying sql: String, _ values: [Int64], on connection: Connection) throws -> Int64?
    /// Runs a query whose one parameter is a key list in the dialect's form (``SQLDialect``'s `keyList`) and
    /// whose rows are three integers, calling `body` with each row's three values in order.
    func visitKeyTriples(querying sql: String, keyList: String, _ body: (Int64, Int64, Int64) throws -> Void) throws
    /// How many owners' keys one query of ``relatedObjectIDs(of:relationship:)`` binds.
    var relatedKeysPerStatement: Int { get }
}
