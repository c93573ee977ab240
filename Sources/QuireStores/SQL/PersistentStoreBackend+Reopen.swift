import QuireCore
import Foundation

extension PersistentStoreBackend {
    /// Closes the store and opens it again at another URL, where a store must already be; back at the old URL
    /// (reopened) when that fails. The `relocate(to:)` of the stores that read their records on request
    /// (SQLite, PostgreSQL).
    ///
    /// - Throws: the error of opening the store at `url`.
    package func reopen(at url: URL) throws {
        let old = store.url
        try close()
        store.url = url
        do {
            try load()
        } catch {
            store.url = old
            try? load()
            throw error
        }
    }
}
