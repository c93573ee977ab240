import QuireCore
import QuireStores

extension QuireError.Code {
    /// The PostgreSQL server cannot be reached (down, wrong host or port, no such socket).
    public static let postgresServerUnavailable = Self(rawValue: 134_300)
    /// The PostgreSQL server refused the credentials (wrong password, unknown role, no `pg_hba.conf` entry).
    public static let postgresAuthenticationFailed = Self(rawValue: 134_310)
    /// The database named in a PostgreSQL store's URL does not exist.
    public static let postgresDatabaseMissing = Self(rawValue: 134_320)
    /// The schema named in a PostgreSQL store's URL does not exist and the store may not create it (read-only).
    public static let postgresSchemaMissing = Self(rawValue: 134_330)
    /// The connection to the PostgreSQL server was lost during a request; nothing of a save in progress was
    /// written, and the next request reconnects.
    public static let postgresConnectionLost = Self(rawValue: 134_340)
    /// The PostgreSQL server answered a statement with an error (the `SQLSTATE` is in the underlying
    /// ``PostgresServerError``).
    public static let postgres = Self(rawValue: 134_350)
}

/// An error the PostgreSQL server or libpq reported, as the underlying cause of a ``QuireError``.
public struct PostgresServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The five-character `SQLSTATE` (`40001` serialization failure, `3D000` no such database, …); empty when
    /// libpq failed before the server answered.
    public var sqlState: String
    /// libpq's message, without the password of the URL (libpq never puts one in its messages).
    public var message: String
    /// `SQLSTATE <state>: <message>`.
    public var description: String { sqlState.isEmpty ? message : "SQLSTATE \(sqlState): \(message)" }
}
