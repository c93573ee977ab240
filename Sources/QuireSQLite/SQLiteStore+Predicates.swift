import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension SQLiteStore {
    /// Compiles a fetch's predicate into the WHERE condition of a statement whose rows are `t0`.
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` when the predicate does not compile; the context
    ///   only hands the store predicates that `canEvaluate(_:for:)` accepted.
    func compileCondition(
        _ predicate: QueryPredicate,
        entity: EntityDescription,
        scope: SQLQueryScope,
        compiler: inout SQLPredicateCompiler
    ) throws -> String {
        do {
            return try compiler.compile(predicate, for: .init(alias: "t0", entity: entity, scope: scope))
        } catch let error as SQLPredicateCompiler.Unsupported {
            throw QuireError(
                .invalidFetchRequest,
                "The SQLite store '\(storeURL.path)' cannot evaluate the predicate '\(predicate)' on entity "
                    + "'\(entity.name)': \(error.reason).",
                context: .init(file: storeURL, entity: entity.name))
        }
    }
}
