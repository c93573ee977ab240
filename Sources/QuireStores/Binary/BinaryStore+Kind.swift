import Foundation
import QuireCore

extension StoreKind {
    /// Binary: Quire's own atomic format; metadata from the header's slots, the embedded model from its
    /// checksummed section.
    package static let binary: StoreKind = {
        var kind = StoreKind(
            type: .binary,
            makeBackend: { BinaryStore(store: $0) },
            readMetadata: { url, _ in try BinaryStore.readMetadata(at: url) },
            writeMetadata: { metadata, url, _ in try BinaryStore.writeMetadata(metadata, at: url) })
        kind.readModel = { try BinaryStore.readModel(at: $0) }
        kind.recognizes = { $0.starts(with: BinaryStoreFormat.magic) }
        kind.copiesByCloning = true
        kind.fileExtensions = ["binary", "bin", "quire"]
        return kind
    }()
}
