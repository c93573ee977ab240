import QuireCore
import QuireStores
import Foundation

/// A PostgreSQL store's address: a libpq connection URL plus Quire's own `schema` parameter.
///
/// ```
/// postgresql://user@host:5432/db?schema=team
/// postgresql://user@/db?host=/var/run/postgresql&schema=team   (a Unix socket)
/// postgres://user:secret@db.example.org/app?sslmode=require&schema=report
/// ```
///
/// Everything but `schema` goes to libpq unchanged, so `sslmode`, `sslrootcert`, `connect_timeout`,
/// `application_name` and the `PG…` environment variables and `~/.pgpass` (`PGPASSFILE`) work as for any libpq
/// program. The schema defaults to `public`. A password in the URL is used to connect and is removed from every
/// URL Quire shows or stores (``redacted``).
package struct PostgresURL: Sendable {
    /// The libpq connection URL (the store URL without `schema`).
    package var connectionString: String
    /// The schema that holds the store's tables.
    package var schema: String
    /// The URL with any password removed, for messages and metadata.
    package var redacted: String

    /// Reads a store URL.
    ///
    /// - Throws: ``QuireError/Code/invalidArgument`` for a URL that is not `postgresql:` or `postgres:`, or
    ///   whose schema is empty.
    package init(_ url: URL) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "postgresql" || scheme == "postgres",
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else {
            throw QuireError(
                .invalidArgument,
                "'\(PostgresURL.redact(url.absoluteString))' is not a PostgreSQL URL (postgresql://user@host:port/database?schema=name).",
                context: .init(file: url))
        }
        var items = components.queryItems ?? []
        let schemaItem = items.last { $0.name == "schema" }
        items.removeAll { $0.name == "schema" }
        components.queryItems = items.isEmpty ? nil : items
        let schema = schemaItem?.value ?? "public"
        guard !schema.isEmpty, schema.utf8.count <= Self.maximumSchemaLength else {
            throw QuireError(
                .invalidArgument,
                "The schema named in '\(PostgresURL.redact(url.absoluteString))' must be 1 to \(Self.maximumSchemaLength) bytes long.",
                context: .init(file: url))
        }
        // libpq takes C strings: a NUL would cut the name short where the server sees it.
        guard !schema.utf8.contains(0) else {
            throw QuireError(
                .invalidArgument, "The schema named in '\(PostgresURL.redact(url.absoluteString))' contains a NUL character.",
                context: .init(file: url))
        }
        self.schema = schema
        self.connectionString = components.string ?? url.absoluteString
        self.redacted = PostgresURL.redact(url.absoluteString)
    }

    /// A URL string with the password of its user part, and any `password` parameter, replaced by `***`.
    package static func redact(_ text: String) -> String {
        guard var components = URLComponents(string: text) else { return text }
        if components.password != nil { components.password = "***" }
        if let items = components.queryItems, items.contains(where: { $0.name == "password" }) {
            components.queryItems = items.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
        }
        return components.string ?? text
    }

    /// The longest schema name PostgreSQL keeps, in bytes (`NAMEDATALEN - 1`): a longer one would be truncated.
    package static let maximumSchemaLength = 63

    /// The schema Save As writes a new store into before renaming it to `schema`: the name cut to whole
    /// characters so that the name and the suffix `_saveas_` (or `_<purpose>_`) plus eight hexadecimal digits stay
    /// within ``maximumSchemaLength`` bytes, as valid UTF-8.
    package static func stagingSchema(
        for schema: String, purpose: String = "saveas", token: String = String(UUID().uuidString.prefix(8)).lowercased()
    ) -> String {
        let suffix = "_\(purpose)_" + token
        var kept = ""
        var bytes = 0
        for character in schema {
            let length = character.utf8.count
            guard bytes + length + suffix.utf8.count <= maximumSchemaLength else { break }
            kept.append(character)
            bytes += length
        }
        return kept + suffix
    }

    /// A store URL with its schema replaced (`schema` set when it had none).
    package static func withSchema(_ url: URL, _ rename: (String) -> String) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var items = components.queryItems ?? []
        let old = items.last { $0.name == "schema" }?.value ?? "public"
        items.removeAll { $0.name == "schema" }
        items.append(URLQueryItem(name: "schema", value: rename(old)))
        components.queryItems = items
        return components.url ?? url
    }

    /// The store URL with the password removed, as a URL.
    package static func redactedURL(_ url: URL) -> URL { URL(string: redact(url.absoluteString)) ?? url }
}
