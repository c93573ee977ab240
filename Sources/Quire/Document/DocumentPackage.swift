import QuireCore
import QuireStores
import Foundation

/// The names inside a document package (and inside a flat archive, which holds the same tree).
///
/// ```
/// Report.<ext>/
///   mimetype                                (the document's MIME type, one line)
///   StoreContent/persistentStore            (the store)
///   StoreContent/.persistentStore_SUPPORT/_EXTERNAL_DATA/<UUID>
///   Metadata/meta.xml, Metadata/summary.txt (search metadata written at each save)
///   AdditionalContent/                      (only when the application writes additional content)
/// ```
public enum DocumentPackageLayout {
    /// The member naming the document's MIME type; first in archives, stored uncompressed.
    public static let mimetype = "mimetype"
    /// The folder holding the store.
    public static let storeContent = "StoreContent"
    /// The store's file name inside ``storeContent``.
    public static let storeFileName = "persistentStore"
    /// The store's path inside the package.
    public static let storePath = "StoreContent/persistentStore"
    /// The folder of external binary data beside the store.
    public static let externalDataPath = "StoreContent/.persistentStore_SUPPORT/_EXTERNAL_DATA"
    /// The folder of search metadata.
    public static let metadata = "Metadata"
    /// The ODF meta file Tracker reads.
    public static let metaXML = "Metadata/meta.xml"
    /// A copy of the ODF meta file at the top of flat archives, where Tracker's ODF extractor looks for it
    /// (checked with Tracker 3.4's `tracker3 extract`: it reads `meta.xml` only at an archive's top level).
    public static let archiveMetaXML = "meta.xml"
    /// The plain-text summary.
    public static let summary = "Metadata/summary.txt"
    /// The folder of the application's additional content (like `UIManagedDocument`'s).
    public static let additionalContent = "AdditionalContent"

    /// The longest `mimetype` member accepted when sniffing.
    static let maximumMIMETypeLength = 255
}

/// Recognizes documents by content: packages by their `mimetype` file, archives by their first entry.
enum DocumentSniffer {
    struct Result: Equatable {
        var mimeType: String
        var format: DocumentType.Format
    }

    /// The MIME type and format of the document at a URL.
    static func sniff(_ url: URL) throws -> Result {
        switch DocumentFiles.kind(of: url) {
        case .missing:
            throw QuireError(.fileReadNoSuchFile, "There is no document at '\(url.path)'.", context: .init(file: url))
        case .directory:
            let member = url.appendingPathComponent(DocumentPackageLayout.mimetype)
            guard case .file(let size) = DocumentFiles.kind(of: member) else {
                throw QuireError(
                    .documentTypeMismatch, "The folder '\(url.path)' is not a document package: it has no mimetype file.",
                    context: .init(file: url))
            }
            guard size <= DocumentPackageLayout.maximumMIMETypeLength, let data = FileManager.default.contents(atPath: member.path)
            else {
                throw QuireError(
                    .documentTypeMismatch, "The mimetype file of the package '\(url.path)' is too long or unreadable.",
                    context: .init(file: member))
            }
            return Result(mimeType: try mimeType(from: data, in: member), format: .package)
        case .file:
            let (name, data, format) = try FlatArchive.firstEntry(of: url, maximumSize: DocumentPackageLayout.maximumMIMETypeLength)
            guard name == DocumentPackageLayout.mimetype else {
                throw QuireError(
                    .documentTypeMismatch,
                    "The archive '\(url.path)' is not a document: its first entry is '\(name)', not 'mimetype'.",
                    context: .init(file: url))
            }
            return Result(mimeType: try mimeType(from: data, in: url), format: format)
        case .symbolicLink:
            return try sniff(url.resolvingSymlinksInPath())
        case .other:
            throw QuireError(
                .documentTypeMismatch, "'\(url.path)' is neither a document package nor an archive.", context: .init(file: url))
        }
    }

    private static func mimeType(from data: Data, in url: URL) throws -> String {
        var bytes = [UInt8](data)
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw QuireError(
                .documentTypeMismatch, "The mimetype member of '\(url.path)' is not one line of printable ASCII.",
                context: .init(file: url))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Reading and checking package trees.
enum DocumentPackage {
    /// Checks that a package holds only regular files and folders and has its store, throwing a
    /// ``QuireError/Code/invalidPackage`` error naming the first offending item.
    static func validate(_ root: URL) throws {
        try walk(root, relative: "") { _, _ in }
        guard case .file = DocumentFiles.kind(of: root.appendingPathComponent(DocumentPackageLayout.storePath)) else {
            throw QuireError(
                .invalidPackage, "The document '\(root.path)' has no store at \(DocumentPackageLayout.storePath).",
                context: .init(file: root))
        }
    }

    /// Visits every item below `root` (not `root` itself), parents first, refusing links and special files.
    static func walk(_ root: URL, relative: String, _ visit: (String, DocumentFiles.Kind) throws -> Void) throws {
        let folder = relative.isEmpty ? root : root.appendingPathComponent(relative)
        for child in try DocumentFiles.children(of: folder) {
            let path = relative.isEmpty ? child.lastPathComponent : relative + "/" + child.lastPathComponent
            let kind = DocumentFiles.kind(of: child)
            switch kind {
            case .file:
                try visit(path, kind)
            case .directory:
                try visit(path, kind)
                try walk(root, relative: path, visit)
            case .symbolicLink, .other, .missing:
                throw QuireError(
                    .invalidPackage,
                    "The document '\(root.path)' holds '\(path)', which is not a regular file or folder.",
                    context: .init(file: child))
            }
        }
    }

    /// Copies a package's tree into an empty working folder: blobs are hard-linked (they are write-once),
    /// other files copied; side files that hold no data of their own (SQLite's shared-memory index,
    /// ``StoreKind/derivedSideFileSuffixes``) and the search metadata are left out.
    static func copyForWorking(from package: URL, to working: URL) throws {
        let derived = StoreKinds.derivedSideFileSuffixes
        try walk(package, relative: "") { path, kind in
            let source = package.appendingPathComponent(path)
            let destination = working.appendingPathComponent(path)
            if kind == .directory {
                try DocumentFiles.makeDirectory(destination, mode: 0o700)
            } else if derived.contains(where: { path.hasSuffix($0) }) || path.hasPrefix(DocumentPackageLayout.metadata + "/") {
                return
            } else if path.hasPrefix(DocumentPackageLayout.externalDataPath + "/") {
                try DocumentFiles.linkOrCopy(from: source, to: destination)
            } else {
                // The working copy is scratch: nothing is lost if a crash loses it, so it is not synced.
                try DocumentFiles.copyScratchFile(from: source, to: destination, mode: 0o600)
            }
        }
    }

    /// The relative paths of every file and folder of a package, sorted (an invariant checker for tests).
    static func fileSet(of root: URL) throws -> [String] {
        var paths: [String] = []
        try walk(root, relative: "") { path, kind in paths.append(kind == .directory ? path + "/" : path) }
        return paths.sorted()
    }
}
