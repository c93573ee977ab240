import Foundation
import Testing

import Quire
import QuirePostgres

/// The PostgreSQL server the tests use: the one `scripts/with-postgres.sh` (run by `make test`) starts and names
/// in `QUIRE_TEST_POSTGRES_URL`. Each test gets a schema of its own, dropped when the process ends is not needed:
/// the server is thrown away after the run.
enum PostgresTestServer {
    /// The server's URL, or nil when the tests run without one.
    static let baseURL: String? = {
        guard let text = ProcessInfo.processInfo.environment["QUIRE_TEST_POSTGRES_URL"], !text.isEmpty else { return nil }
        return text
    }()

    /// Whether a server is there.
    static var isAvailable: Bool { baseURL != nil }

    /// Why the PostgreSQL tests skip.
    static let skipReason: Comment =
        "No PostgreSQL server: QUIRE_TEST_POSTGRES_URL is not set (run `make test`, or wrap `swift test` in scripts/with-postgres.sh)."

    /// A store URL in a fresh schema (`t_` + a random name), optionally with other libpq parameters.
    static func storeURL(schema: String = freshSchema(), extra: String = "") -> URL? {
        guard let baseURL else { return nil }
        let separator = baseURL.contains("?") ? "&" : "?"
        return URL(string: baseURL + separator + "schema=" + schema + extra)
    }

    /// A schema name no other test uses.
    static func freshSchema() -> String { "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20) }
}
