import QuireCore
import QuireStores
import Foundation

extension PostgresURL {
    /// The database a store URL names: its path (`/crm` → `crm`), else its `dbname` parameter; nil when libpq
    /// takes the default (the user's name).
    package static func database(of url: URL) -> String? {
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        if !path.isEmpty { return path }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return items.last { $0.name == "dbname" }?.value.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// How messages name the store at a URL, quoted: a file's path (`'/data/Notes.sqlite'`), or a PostgreSQL
    /// store's schema and database (`'team' in the PostgreSQL database 'crm'`), never a password.
    package static func storeDescription(_ url: URL) -> String {
        guard let address = try? PostgresURL(url) else { return "'\(url.path)'" }
        let database = database(of: url).map { "'\($0)'" } ?? "(the default)"
        return "'\(address.schema)' in the PostgreSQL database \(database)"
    }

    /// A URL errors may carry as their file: a PostgreSQL URL without its password, any other unchanged.
    package static func safeURL(_ url: URL) -> URL { (try? PostgresURL(url)) != nil ? redactedURL(url) : url }
}
