import Foundation

/// A backend whose type reads and writes the metadata and embedded model of a closed store itself, and makes a
/// backend for a store handle: what ``StoreKind/init(type:backend:)`` builds a kind's description from.
package protocol ClosedStoreAccess: PersistentStoreBackend, SendableMetatype {
    /// A backend answering for `store`, not loaded yet.
    init(store: PersistentStore)
    /// The metadata of the closed store at `url`.
    static func readMetadata(at url: URL) throws -> [String: PropertyListValue]
    /// Replaces the metadata of the closed store at `url`.
    static func writeMetadata(_ metadata: [String: PropertyListValue], at url: URL) throws
    /// The model the closed store at `url` embeds, as its encoded bytes; nil when it embeds none.
    static func readModel(at url: URL) throws -> Data?
}

extension StoreKind {
    /// Describes a kind whose backend type makes its backends and reads and writes its closed stores
    /// (``ClosedStoreAccess``); the kind's other facts are set on the result.
    package init<Backend: ClosedStoreAccess>(type: StoreType, backend: Backend.Type) {
        self.init(
            type: type,
            makeBackend: { Backend(store: $0) },
            readMetadata: { url, _ in try Backend.readMetadata(at: url) },
            writeMetadata: { metadata, url, _ in try Backend.writeMetadata(metadata, at: url) })
        readModel = { try Backend.readModel(at: $0) }
    }
}
