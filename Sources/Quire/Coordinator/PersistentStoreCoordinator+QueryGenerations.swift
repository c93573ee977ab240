import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// Opens a query generation on every attached store: their saved data as it is now.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreOperation`` naming the first store that cannot hold one (a
    ///   store other than SQLite, or an SQLite store whose journal mode is not WAL); nothing is left open.
    func openQueryGeneration() throws -> QueryGenerationToken {
        try locked {
            let number = QueryGenerationToken.nextNumber()
            var opened: [any QueryGenerationBackend] = []
            do {
                for store in persistentStores {
                    guard let backend = store.backend as? any QueryGenerationBackend else {
                        throw QuireError(
                            .persistentStoreOperation,
                            "The \(store.type.rawValue) store at '\(store.url?.path ?? "(no file)")' cannot hold a query generation; only SQLite stores can.",
                            context: .init(file: store.url))
                    }
                    try backend.openQueryGeneration(number)
                    opened.append(backend)
                }
            } catch {
                for backend in opened { backend.closeQueryGeneration(number) }
                throw error
            }
            return QueryGenerationToken(number: number, coordinator: ObjectIdentifier(self)) { [weak self] in
                self?.closeQueryGeneration(number)
            }
        }
    }

    /// Ends a generation on every attached store.
    private func closeQueryGeneration(_ number: UInt64) {
        locked {
            for store in persistentStores {
                (store.backend as? any QueryGenerationBackend)?.closeQueryGeneration(number)
            }
        }
    }

    /// Whether the read in progress may use the row cache: not when it belongs to a query generation, whose
    /// rows may be older than the cache's (and must not replace them).
    var usesRowCache: Bool { QueryGenerationScope.number == 0 }
}
