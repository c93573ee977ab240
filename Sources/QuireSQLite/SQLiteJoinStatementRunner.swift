import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

/// Runs the statements ``JoinTableWrites`` plans on an SQLite connection: the connection's cached statement
/// for each SQL text, looked up once for a run of statements with the same text, reset and bound by position.
struct SQLiteJoinStatementRunner {
    private let connection: SQLiteConnection
    private var last: (sql: String, statement: SQLiteStatement)?

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Runs one statement with its parameters.
    mutating func run(_ sql: String, _ parameters: JoinTableWrites.Parameters) throws {
        let statement: SQLiteStatement
        if let last, last.sql == sql {
            statement = last.statement
        } else {
            statement = try connection.cachedStatement(sql)
            last = (sql, statement)
        }
        statement.reset()
        statement.bind(parameters.first, at: 1)
        statement.bind(parameters.second, at: 2)
        if let third = parameters.third { statement.bind(third, at: 3) }
        try statement.run()
    }
}
