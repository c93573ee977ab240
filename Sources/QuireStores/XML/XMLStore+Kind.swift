import Foundation
import QuireCore

extension StoreKind {
    /// XML: Core Data's XML store; metadata and the embedded model in `<databaseInfo>`, read without parsing
    /// the objects.
    package static let xml: StoreKind = {
        var kind = StoreKind(
            type: .xml,
            makeBackend: { XMLStore(store: $0) },
            readMetadata: { url, _ in try XMLStore.readMetadata(at: url) },
            writeMetadata: { metadata, url, _ in try XMLStore.writeMetadata(metadata, at: url) })
        kind.readModel = { try XMLStore.readModel(at: $0) }
        kind.recognizes = { XMLStore.recognizes($0) }
        kind.copiesByCloning = true
        kind.versionHashesMayBeMissing = true
        kind.fileExtensions = ["xml"]
        return kind
    }()
}
