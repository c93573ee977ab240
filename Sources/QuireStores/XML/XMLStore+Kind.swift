import Foundation
import QuireCore

extension StoreKind {
    /// XML: Core Data's XML store; metadata and the embedded model in `<databaseInfo>`, read without parsing
    /// the objects.
    package static let xml: StoreKind = {
        var kind = StoreKind(type: .xml, backend: XMLStore.self)
        kind.recognizes = { XMLStore.recognizes($0) }
        kind.copiesByCloning = true
        kind.versionHashesMayBeMissing = true
        kind.fileExtensions = ["xml"]
        return kind
    }()
}

extension XMLStore: ClosedStoreAccess {}
