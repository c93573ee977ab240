import QuireCore
import QuireStores
import Foundation

/// A kind of document an application reads and writes (a `CFBundleDocumentTypes` entry on the Mac): its name,
/// MIME type and file name extensions, whether it is a file package or a flat archive, and the store inside.
///
/// ```swift
/// var options = StoreOptions()
/// options.journalMode = .delete
/// let notebook = DocumentType(
///     name: "Notebook", mimeType: "application/x-notebook", extensions: ["notebook"],
///     format: .zipArchive, storeType: .sqlite, storeOptions: options)
/// DocumentTypeRegistry.shared.register(notebook)
/// ```
///
/// The store options apply at every save, the first Save and Save As included.
public struct DocumentType: Sendable, Hashable {
    /// The shape of a document on disk.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// A folder: `mimetype`, `StoreContent/persistentStore`, `Metadata/` (see <doc:Documents>).
        case package
        /// The package's tree in one zip file, `mimetype` first and stored uncompressed.
        case zipArchive
        /// The package's tree in one tar file (POSIX pax), `mimetype` first.
        case tarArchive

        /// Whether the document is one flat file.
        public var isArchive: Bool { self != .package }
    }

    /// How the members of a zip archive other than `mimetype` are written.
    public enum Compression: String, Sendable, Hashable {
        /// Every member stored as is.
        case stored
        /// Every member deflated.
        case deflated
        /// Members deflated, except those whose first bytes show an already compressed format (JPEG, PNG, GIF,
        /// WebP, zip, gzip, bzip2, xz, zstd, MP4, Ogg, MP3, FLAC): media blobs are not recompressed.
        case automatic
    }

    /// The type's name, as the application and ``PersistentDocument/fileType`` call it.
    public var name: String
    /// The MIME type, written as the document's `mimetype` member.
    public var mimeType: String
    /// File name extensions without the dot, the first one preferred for new files.
    public var extensions: [String]
    /// Package or flat archive.
    public var format: Format
    /// The type of the store inside (``StoreType/sqlite`` by default; XML and binary once those stores exist).
    public var storeType: StoreType
    /// The options of the store inside, applied at every open and every save.
    public var storeOptions: StoreOptions
    /// The model configuration whose entities the store holds (`nil` for all).
    public var modelConfiguration: String?
    /// How zip members are compressed.
    public var compression: Compression

    /// Creates a document type.
    ///
    /// - Parameters:
    ///   - name: The type's name.
    ///   - mimeType: The MIME type (one line of printable ASCII).
    ///   - extensions: File name extensions without the dot.
    ///   - format: Package, zip or tar.
    ///   - storeType: The type of the store inside.
    ///   - storeOptions: The store's options, applied at every save.
    ///   - modelConfiguration: The model configuration of the store.
    ///   - compression: How zip members other than `mimetype` are compressed.
    public init(
        name: String, mimeType: String, extensions: [String], format: Format = .package,
        storeType: StoreType = .sqlite, storeOptions: StoreOptions = StoreOptions(), modelConfiguration: String? = nil,
        compression: Compression = .automatic
    ) {
        precondition(
            !mimeType.isEmpty && mimeType.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f },
            "A MIME type is one word of printable ASCII, not '\(mimeType)'.")
        self.name = name
        self.mimeType = mimeType
        self.extensions = extensions
        self.format = format
        self.storeType = storeType
        self.storeOptions = storeOptions
        self.modelConfiguration = modelConfiguration
        self.compression = compression
    }

    /// Quire's sample document type: "Quire Notebook", `application/x-quire-notebook`, `.quirenb`, a zip archive
    /// with an SQLite store. `Resources/freedesktop/` ships its shared-mime-info type and Tracker rule.
    public static let sampleNotebook = DocumentType(
        name: "Quire Notebook", mimeType: "application/x-quire-notebook", extensions: ["quirenb"], format: .zipArchive)
}
