import Foundation
import QuireCore

extension StoreKind {
    /// In memory: no file, so no metadata without a stack.
    package static let inMemory: StoreKind = {
        var kind = StoreKind(
            type: .inMemory, needsFile: false,
            makeBackend: { InMemoryStore(store: $0) },
            readMetadata: { url, _ in throw inMemoryHasNoFile(url) },
            writeMetadata: { _, url, _ in throw inMemoryHasNoFile(url) })
        kind.keepsURL = false
        return kind
    }()

    private static func inMemoryHasNoFile(_ url: URL) -> QuireError {
        QuireError(
            .persistentStoreInvalidType, "An in-memory store has no file whose metadata could be read at '\(url.path)'.",
            context: .init(file: url))
    }
}
