import QuireCore
import QuireStores
import Foundation

/// The document types an application declares, looked up by name, extension, MIME type or content.
///
/// ```swift
/// DocumentTypeRegistry.shared.register(notebook)
/// let type = try DocumentTypeRegistry.shared.typeOfContents(at: url)   // sniffs mimetype / first entry
/// ```
///
/// Thread-safe: the types live behind a mutex.
public final class DocumentTypeRegistry: Sendable {
    private let types = LockedValue<[DocumentType]>([])

    /// The registry ``PersistentDocument`` uses unless a subclass names another.
    public static let shared = DocumentTypeRegistry()

    /// Creates an empty registry.
    public init() {}

    /// Declares a type, replacing an earlier one of the same name.
    public func register(_ type: DocumentType) {
        types.withLock { types in
            types.removeAll { $0.name == type.name }
            types.append(type)
        }
    }

    /// Forgets the type of a name.
    public func unregister(named name: String) {
        types.withLock { $0.removeAll { $0.name == name } }
    }

    /// Every declared type, in the order declared.
    public var allTypes: [DocumentType] { types.withLock { $0 } }

    /// The type of a name.
    ///
    /// - Throws: ``QuireError/Code/unknownDocumentType`` when no type has that name.
    public func type(named name: String) throws -> DocumentType {
        guard let type = types.withLock({ $0.first { $0.name == name } }) else {
            throw QuireError(.unknownDocumentType, "No document type named '\(name)' is registered.")
        }
        return type
    }

    /// The first type whose extensions include the URL's (compared without case).
    public func type(forExtensionOf url: URL) -> DocumentType? {
        let ext = url.pathExtension.lowercased()
        return types.withLock { $0.first { $0.extensions.contains { $0.lowercased() == ext } } }
    }

    /// The first type with a MIME type.
    public func type(forMIMEType mimeType: String) -> DocumentType? {
        types.withLock { $0.first { $0.mimeType == mimeType } }
    }

    /// The type of a document on disk, from its content: a package's `mimetype` file, an archive's first
    /// entry. Reads a few hundred bytes; never opens the store.
    ///
    /// - Throws: ``QuireError/Code/documentTypeMismatch`` when the content names no MIME type or one no
    ///   registered type has; file errors when it cannot be read.
    public func typeOfContents(at url: URL) throws -> DocumentType {
        let sniffed = try DocumentSniffer.sniff(url)
        guard let type = types.withLock({ $0.first { $0.mimeType == sniffed.mimeType && $0.format == sniffed.format } })
            ?? type(forMIMEType: sniffed.mimeType)
        else {
            throw QuireError(
                .documentTypeMismatch,
                "The document '\(url.path)' has MIME type '\(sniffed.mimeType)', which no registered document type has.",
                context: .init(file: url))
        }
        return type
    }
}
