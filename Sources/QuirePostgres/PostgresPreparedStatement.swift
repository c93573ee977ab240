/// A server-side prepared statement a fetch plan (``SQLFetchPlan/statement``) keeps: its name and the
/// connection that prepared it. The connection is held weakly and compared by identity before use, so a plan
/// never uses a statement on another connection (after a lost connection the store makes a new
/// ``PostgresConnection``, whose statements are prepared again) and never keeps a closed connection alive.
package final class PostgresPreparedStatement {
    /// The statement's name and parameter types on its connection.
    package let statement: PostgresConnection.Prepared
    /// The statement's name on its connection.
    package var name: String { statement.name }
    /// The connection it was prepared on; nil once that connection is gone.
    package private(set) weak var connection: PostgresConnection?

    /// A statement prepared on `connection`.
    package init(_ statement: PostgresConnection.Prepared, connection: PostgresConnection) {
        self.statement = statement
        self.connection = connection
    }
}
