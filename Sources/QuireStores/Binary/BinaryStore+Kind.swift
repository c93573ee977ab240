import Foundation
import QuireCore

extension StoreKind {
    /// Binary: Quire's own atomic format; metadata from the header's slots, the embedded model from its
    /// checksummed section.
    package static let binary: StoreKind = {
        var kind = StoreKind(type: .binary, backend: BinaryStore.self)
        kind.recognizes = { $0.starts(with: BinaryStoreFormat.magic) }
        kind.copiesByCloning = true
        kind.fileExtensions = ["binary", "bin", "quire"]
        return kind
    }()
}

extension BinaryStore: ClosedStoreAccess {}
