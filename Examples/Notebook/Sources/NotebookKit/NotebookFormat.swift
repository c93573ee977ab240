import Foundation
import Quire

/// How a notebook is saved: its container (package, zip or tar) and the store inside (SQLite, XML or binary).
/// Each of the nine is a registered `DocumentType` of the same MIME type; Save As picks one.
public struct NotebookFormat: Hashable, Sendable, CustomStringConvertible {
    /// The container.
    public var container: DocumentType.Format
    /// The store type inside.
    public var store: StoreType

    /// Creates a format.
    public init(container: DocumentType.Format, store: StoreType) {
        self.container = container
        self.store = store
    }

    /// The MIME type of every notebook (`Desktop/org.quire.Notebook.mime.xml` declares it).
    public static let mimeType = "application/x-quire-notes"
    /// The file name extension of every notebook.
    public static let fileExtension = "quirenotes"
    /// What New makes and Save offers first: a zip archive with an SQLite store.
    public static let standard = NotebookFormat(container: .zipArchive, store: .sqlite)
    /// The containers Save As offers, with their labels.
    public static let containers: [(format: DocumentType.Format, id: String, label: String)] = [
        (.zipArchive, "zip", "Zip archive"), (.tarArchive, "tar", "Tar archive"), (.package, "package", "Package (folder)"),
    ]
    /// The store types Save As offers, with their labels.
    public static let stores: [(type: StoreType, id: String, label: String)] = [
        (.sqlite, "sqlite", "SQLite"), (.xml, "xml", "XML"), (.binary, "binary", "Binary"),
    ]
    /// All nine formats.
    public static let all: [NotebookFormat] = containers.flatMap { container in
        stores.map { NotebookFormat(container: container.format, store: $0.type) }
    }

    /// The format named by the identifiers Save As uses (`zip`, `tar`, `package`; `sqlite`, `xml`, `binary`).
    public init?(containerID: String, storeID: String) {
        guard let container = Self.containers.first(where: { $0.id == containerID }),
            let store = Self.stores.first(where: { $0.id == storeID })
        else { return nil }
        self.init(container: container.format, store: store.type)
    }

    /// The identifiers of the container and store.
    public var ids: (container: String, store: String) {
        (Self.containers.first { $0.format == container }?.id ?? "zip", Self.stores.first { $0.type == store }?.id ?? "sqlite")
    }

    /// The registered type's name, such as "Notebook (zip, SQLite)".
    public var typeName: String { "Notebook (\(ids.container), \(store.rawValue))" }

    public var description: String { typeName }

    /// Images larger than this are kept as files beside the store (`_EXTERNAL_DATA`) rather than in it: 32 KB,
    /// so that a photo or a screenshot goes out (Quire's default, 1 MB, would keep most in the store).
    public static let externalDataThreshold = 32 * 1024

    /// The document type.
    public var documentType: DocumentType {
        var options = StoreOptions()
        options.externalDataThreshold = Self.externalDataThreshold
        return DocumentType(
            name: typeName, mimeType: Self.mimeType, extensions: [Self.fileExtension], format: container, storeType: store,
            storeOptions: options)
    }

    /// The format of a registered type name.
    public init?(typeName: String) {
        guard let format = Self.all.first(where: { $0.typeName == typeName }) else { return nil }
        self = format
    }

    /// Registers the nine types in `DocumentTypeRegistry.shared` (again is harmless).
    public static func registerAll() {
        for format in all { DocumentTypeRegistry.shared.register(format.documentType) }
    }
}
