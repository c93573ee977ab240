import QuireCore
import QuireStores
import Foundation

/// Any Quire document or store file on disk, opened for tools without the application's code or a registered
/// ``DocumentType``: what `quire` uses to read and write documents it knows nothing about.
///
/// The container is told from content: a folder with a `mimetype` file is a package, a file whose first
/// archive entry is `mimetype` is a zip or tar archive (opened into a private working folder), any other file
/// is a store file whose type is told from its first bytes.
///
/// ```swift
/// let contents = try DocumentContents(contentsOf: url)
/// defer { contents.close() }
/// let dump = try ObjectGraphDump(storeAt: contents.storeURL, type: contents.storeType)
/// ```
public final class DocumentContents {
    /// The shape of a document or store on disk.
    public enum Container: String, Sendable, Hashable, CaseIterable {
        /// A single store file (SQLite, XML or binary), external data in `.<name>_SUPPORT/` beside it.
        case storeFile = "store file"
        /// A document package (a folder).
        case package
        /// A package's tree in one zip file.
        case zipArchive = "zip archive"
        /// A package's tree in one tar file.
        case tarArchive = "tar archive"

        /// The document format of a package or archive, nil for a store file.
        public var documentFormat: DocumentType.Format? {
            switch self {
            case .storeFile: return nil
            case .package: return .package
            case .zipArchive: return .zipArchive
            case .tarArchive: return .tarArchive
            }
        }

        /// The container of a document format.
        public init(_ format: DocumentType.Format) {
            switch format {
            case .package: self = .package
            case .zipArchive: self = .zipArchive
            case .tarArchive: self = .tarArchive
            }
        }
    }

    /// Where the document is.
    public let url: URL
    /// Its container.
    public let container: Container
    /// The MIME type a package or archive names, nil for a store file.
    public let mimeType: String?
    /// The store file: the document itself, or `StoreContent/persistentStore` in the package or working copy.
    public let storeURL: URL
    /// The store's type, told from the store file's content.
    public let storeType: StoreType
    /// The package tree (the package itself, or the archive's working copy), nil for a store file.
    public let packageURL: URL?
    private let workingFolder: URL?

    /// Opens the document or store at a URL: detects its container and store type, and extracts an archive
    /// into a private working folder (removed by ``close()``).
    ///
    /// - Parameters:
    ///   - url: A store file, package or archive.
    ///   - limits: Limits on what an archive may expand to.
    /// - Throws: ``QuireError`` naming the file: ``QuireError/Code/fileReadNoSuchFile``,
    ///   ``QuireError/Code/documentTypeMismatch`` or ``QuireError/Code/persistentStoreInvalidType`` for content
    ///   of no known kind, archive and package errors for damaged or hostile containers.
    public init(contentsOf url: URL, limits: ArchiveLimits = ArchiveLimits()) throws {
        self.url = url
        let container = try Self.container(at: url)
        self.container = container
        switch container {
        case .storeFile:
            mimeType = nil
            storeURL = url
            packageURL = nil
            workingFolder = nil
        case .package:
            mimeType = try DocumentSniffer.sniff(url).mimeType
            try DocumentPackage.validate(url)
            packageURL = url
            storeURL = url.appendingPathComponent(DocumentPackageLayout.storePath)
            workingFolder = nil
        case .zipArchive, .tarArchive:
            mimeType = try DocumentSniffer.sniff(url).mimeType
            let folder = try WorkingFolders.makeTemporary(prefix: WorkingFolders.contentsPrefix)
            do {
                try FlatArchive.extract(url, into: folder, limits: limits)
                try DocumentPackage.validate(folder)
            } catch let error as QuireError {
                DocumentFiles.removeTree(folder)
                // The working copy is private: the message names the archive and its entries instead.
                throw Self.namingEntries(error, of: folder, in: url)
            } catch {
                DocumentFiles.removeTree(folder)
                throw error
            }
            workingFolder = folder
            packageURL = folder
            storeURL = folder.appendingPathComponent(DocumentPackageLayout.storePath)
        }
        // An initializer that throws before every property is set never runs `deinit`: the working copy is
        // removed here when the store cannot be read.
        do {
            let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: storeURL)
            if case .string(let name)? = metadata[StoreMetadataKey.storeType] {
                storeType = StoreType(rawValue: name)
            } else {
                storeType = try StoreKinds.detectType(at: storeURL)
            }
        } catch var error as QuireError {
            if let workingFolder {
                DocumentFiles.removeTree(workingFolder)
                // The working copy is private: the message names the archive and its entry instead.
                error = Self.namingEntries(error, of: workingFolder, in: url)
            }
            throw error
        } catch {
            if let workingFolder { DocumentFiles.removeTree(workingFolder) }
            throw error
        }
    }

    /// An error about a file of an archive's private working copy, rewritten to name the archive and the entry
    /// (`'doc.zip: entry StoreContent/persistentStore'`).
    static func namingEntries(_ error: QuireError, of workingFolder: URL, in archive: URL) -> QuireError {
        renamingFiles(in: error, under: workingFolder, file: archive, folderShown: "a private working copy of '\(archive.path)'") {
            entry in "\(archive.path): entry \(entry)"
        }
    }

    /// An error whose message or file names a file under `folder` (a private working copy or a staging folder),
    /// rewritten so that it names the file the user knows instead: each path under `folder` in the message
    /// (quoted, as messages quote paths, or bare) becomes `shown(relative path)`, the folder alone becomes
    /// `folderShown` (quotes included; by default `file` quoted), and a context file under the folder becomes
    /// `file`. The paths are the exact ones this code made, not patterns of a message's wording.
    static func renamingFiles(
        in error: QuireError, under folder: URL, file: URL, folderShown: String? = nil, _ shown: (Substring) -> String
    ) -> QuireError {
        var error = error
        let folderPath = folder.standardizedFileURL.path
        var message = error.message
        for prefix in ["'" + folderPath + "/", folderPath + "/"] {
            var searchStart = message.startIndex
            while let range = message.range(of: prefix, range: searchStart..<message.endIndex) {
                let quoted = prefix.hasPrefix("'")
                let rest = message[range.upperBound...]
                let end = quoted ? rest.firstIndex(of: "'") : rest.firstIndex { $0 == " " || $0 == "," || $0 == ")" || $0 == ";" }
                let relative = rest[..<(end ?? rest.endIndex)]
                let after = end.map { quoted ? rest.index(after: $0) : $0 } ?? rest.endIndex
                let replacement = quoted ? "'\(shown(relative))'" : shown(relative)
                let offset = message.distance(from: message.startIndex, to: range.lowerBound) + replacement.count
                message.replaceSubrange(range.lowerBound..<after, with: replacement)
                searchStart = message.index(message.startIndex, offsetBy: offset)
            }
        }
        message = message.replacingOccurrences(of: "'\(folderPath)'", with: folderShown ?? "'\(file.path)'")
        error.message = message.replacingOccurrences(of: folderPath, with: file.path)
        if error.context.file?.standardizedFileURL.path.hasPrefix(folderPath) ?? true { error.context.file = file }
        return error
    }

    /// An error of reading this document, rewritten so that it names the document the caller opened rather
    /// than the private working copy of an archive (`'doc.zip: entry StoreContent/persistentStore'`); other
    /// errors, and every error of a package or store file, unchanged.
    ///
    /// Use it around work on ``storeURL`` or ``packageURL``, which for an archive are in the working copy:
    ///
    /// ```swift
    /// do {
    ///     let dump = try ObjectGraphDump(storeAt: contents.storeURL, type: contents.storeType)
    /// } catch {
    ///     throw contents.errorNamingDocument(error)
    /// }
    /// ```
    public func errorNamingDocument(_ error: any Error) -> any Error {
        guard let workingFolder, let failure = error as? QuireError else { return error }
        return Self.namingEntries(failure, of: workingFolder, in: url)
    }

    deinit { close() }

    /// Removes the working copy of an archive; nothing for packages and store files. Safe to call twice.
    public func close() {
        if let workingFolder { DocumentFiles.removeTree(workingFolder) }
    }

    /// The container of the document or store at a URL, from its content.
    ///
    /// - Throws: ``QuireError`` naming the file when it is missing or of no known kind.
    public static func container(at url: URL) throws -> Container {
        switch DocumentFiles.kind(of: url) {
        case .missing:
            throw QuireError(.fileReadNoSuchFile, "There is no file at '\(url.path)'.", context: .init(file: url))
        case .directory:
            return Container(try DocumentSniffer.sniff(url).format)
        case .symbolicLink:
            return try container(at: url.resolvingSymlinksInPath())
        case .other:
            throw QuireError(
                .documentTypeMismatch, "'\(url.path)' is neither a store, a document package nor an archive.",
                context: .init(file: url))
        case .file:
            do {
                _ = try StoreKinds.detectType(at: url)
                return .storeFile
            } catch let error as QuireError where error.code == .persistentStoreInvalidType {
                do {
                    return Container(try DocumentSniffer.sniff(url).format)
                } catch {
                    throw QuireError(
                        .documentTypeMismatch,
                        "The file '\(url.path)' is neither a store (SQLite, XML, binary) nor a document archive.",
                        context: .init(file: url))
                }
            }
        }
    }

    /// The external data files of the store, by name, with their sizes.
    public func externalDataFiles() -> [(name: String, size: Int64)] {
        let folder = StoreKinds.externalDataFolder(forStore: storeURL, type: storeType).url
        guard let children = try? DocumentFiles.children(of: folder) else { return [] }
        return children.compactMap { child in
            guard case .file(let size) = DocumentFiles.kind(of: child) else { return nil }
            return (child.lastPathComponent, Int64(size))
        }.sorted { $0.name < $1.name }
    }

    /// The relative paths of every file and folder of the package tree (folders end in `/`), sorted; empty
    /// for a store file.
    ///
    /// - Throws: ``QuireError/Code/invalidPackage`` when the tree holds links or special files.
    public func layout() throws -> [String] {
        guard let packageURL else { return [] }
        return try DocumentPackage.fileSet(of: packageURL)
    }

    // MARK: Writing

    /// Writes a new package at `destination` (which must not exist) around a closed store file: its
    /// `mimetype`, the store and its external data (hard-linked where possible), and search metadata made
    /// from the store's metadata.
    ///
    /// - Parameters:
    ///   - destination: The new package folder.
    ///   - store: A closed store file (no `-wal` file left).
    ///   - mimeType: The document's MIME type (one word of printable ASCII).
    ///   - objectCount: The number of objects, written into the search metadata when known.
    ///   - storeType: The store's type, which names its external data folder; read from the file when nil.
    /// - Throws: ``QuireError`` naming the file that could not be written; the partial folder is removed.
    public static func writePackage(
        at destination: URL, storeAt store: URL, mimeType: String, objectCount: Int? = nil, storeType: StoreType? = nil
    ) throws {
        try writePackage(at: destination, storeAt: store, mimeType: mimeType, objectCount: objectCount, storeType: storeType, extras: nil)
    }

    /// ``writePackage(at:storeAt:mimeType:objectCount:storeType:)`` with what a converted document had besides its
    /// store: its search metadata's own fields and its other package files (read from `extrasPackage`).
    static func writePackage(
        at destination: URL, storeAt store: URL, mimeType: String, objectCount: Int?, storeType: StoreType?,
        extras: DocumentExtras?, extrasPackage: URL? = nil
    ) throws {
        guard !mimeType.isEmpty, mimeType.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw QuireError(.invalidArgument, "The MIME type '\(mimeType)' is not one word of printable ASCII.")
        }
        try DocumentFiles.makeDirectory(destination)
        do {
            try DocumentFiles.writeNewFile(
                Data((mimeType + "\n").utf8), to: destination.appendingPathComponent(DocumentPackageLayout.mimetype))
            try DocumentFiles.makeDirectory(destination.appendingPathComponent(DocumentPackageLayout.storeContent))
            let target = destination.appendingPathComponent(DocumentPackageLayout.storePath)
            try DocumentFiles.copyFile(from: store, to: target)
            let type = try storeType ?? StoreKinds.detectType(at: store)
            let blobs = StoreKinds.externalDataFolder(forStore: store, type: type).url
            if DocumentFiles.kind(of: blobs) == .directory {
                let into = destination.appendingPathComponent(DocumentPackageLayout.externalDataPath)
                try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
                for blob in try DocumentFiles.children(of: blobs) where DocumentFiles.kind(of: blob) != .directory {
                    try DocumentFiles.linkOrCopy(from: blob, to: into.appendingPathComponent(blob.lastPathComponent))
                }
            }
            var search = extras?.searchMetadata ?? SearchMetadata()
            search.objectCount = objectCount
            if let extras, let extrasPackage, !extras.packageFiles.isEmpty {
                try copyPackageFiles(extras.packageFiles, from: extrasPackage, into: destination)
            }
            let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: target)
            for (key, value) in metadata {
                if let text = value.stringValue { search.storeMetadata[key] = text }
            }
            try DocumentFiles.makeDirectory(destination.appendingPathComponent(DocumentPackageLayout.metadata))
            try DocumentFiles.writeNewFile(search.metaXML(), to: destination.appendingPathComponent(DocumentPackageLayout.metaXML))
            try DocumentFiles.writeNewFile(
                search.summaryText(), to: destination.appendingPathComponent(DocumentPackageLayout.summary))
        } catch {
            DocumentFiles.removeTree(destination)
            throw error
        }
    }

    /// Writes a package tree as a new zip or tar archive at `destination` (which must not exist), `mimetype`
    /// first and stored.
    ///
    /// - Parameters:
    ///   - package: A package folder.
    ///   - destination: The new archive file.
    ///   - format: ``DocumentType/Format/zipArchive`` or ``DocumentType/Format/tarArchive``.
    ///   - compression: How zip members other than `mimetype` are compressed.
    ///   - progress: Called as the archive is written with the bytes of the package's files archived so far
    ///     and their total (on the calling thread).
    /// - Throws: ``QuireError`` naming the package or archive; the partial file is removed.
    public static func writeArchive(
        ofPackage package: URL, to destination: URL, format: DocumentType.Format,
        compression: DocumentType.Compression = .automatic,
        progress: ((_ written: Int64, _ total: Int64) -> Void)? = nil
    ) throws {
        guard format.isArchive else {
            throw QuireError(.invalidArgument, "An archive is zip or tar, not a package.", context: .init(file: destination))
        }
        let mimeType = try DocumentSniffer.sniff(package).mimeType
        try DocumentPackage.validate(package)
        do {
            try FlatArchive.write(
                tree: package, mimeType: mimeType, to: destination, format: format, compression: compression,
                progress: progress)
        } catch {
            if DocumentFiles.kind(of: destination) != .missing { DocumentFiles.removeTree(destination) }
            throw error
        }
    }

    /// Extracts an archive into a new package folder at `destination` (which must not exist).
    ///
    /// - Throws: ``QuireError`` naming the archive for damaged or hostile archives; the partial folder is
    ///   removed.
    public static func extractArchive(_ archive: URL, toPackage destination: URL, limits: ArchiveLimits = ArchiveLimits()) throws {
        let format = try DocumentSniffer.sniff(archive).format
        guard format.isArchive else {
            throw QuireError(
                .documentTypeMismatch, "'\(archive.path)' is a package, not an archive.", context: .init(file: archive))
        }
        try DocumentFiles.makeDirectory(destination)
        do {
            try FlatArchive.extract(archive, into: destination, limits: limits)
            try DocumentPackage.validate(destination)
        } catch {
            DocumentFiles.removeTree(destination)
            throw error
        }
    }
}
