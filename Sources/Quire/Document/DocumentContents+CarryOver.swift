import QuireCore
import QuireStores
import Foundation

extension DocumentContents {
    /// What a document has besides its store, which a conversion carries over to its output when the output
    /// can hold it: the search metadata an application or user set (title, keywords, authors, description,
    /// indexed values), the package's other files (a `Thumbnails/` folder, additional content), the extended
    /// attributes of the file or folder and its permission bits.
    public struct DocumentExtras: Sendable, Hashable {
        /// The search metadata's fields that are the user's (not those a save recomputes: store metadata, object
        /// count, date); nil when the document has none (a store file, or a package without `meta.xml`).
        public var searchMetadata: SearchMetadata?
        /// The package's files other than `mimetype`, the store, its external data and the search metadata Quire
        /// writes, as paths relative to the package (folders end in `/`), sorted.
        public var packageFiles: [String]
        /// The extended attributes of the document itself (the package folder, archive or store file), by name.
        public var extendedAttributes: [String: Data]
        /// The permission bits of the document itself (`0o640`), nil when unknown.
        public var permissions: UInt16?

        /// The search metadata's fields in words (`title`, `keywords`), for messages; empty when there are none.
        public var searchMetadataFields: [String] {
            guard let search = searchMetadata else { return [] }
            var fields: [String] = []
            if search.title?.isEmpty == false { fields.append("title") }
            if !search.keywords.isEmpty { fields.append("keywords") }
            if !search.authors.isEmpty { fields.append("authors") }
            if search.comment?.isEmpty == false { fields.append("description") }
            if !search.indexedValues.isEmpty { fields.append("subject") }
            return fields
        }
    }

    /// The paths of a package that Quire writes itself at every save, which a conversion writes anew.
    static func isWrittenByQuire(_ path: String) -> Bool {
        path == DocumentPackageLayout.mimetype || path == DocumentPackageLayout.storeContent
            || path.hasPrefix(DocumentPackageLayout.storeContent + "/") || path == DocumentPackageLayout.metaXML
            || path == DocumentPackageLayout.summary || path == DocumentPackageLayout.metadata
            || path == DocumentPackageLayout.archiveMetaXML
    }

    /// Reads what the document has besides its store (see ``DocumentExtras``).
    ///
    /// - Throws: ``QuireError`` naming the document when its search metadata is malformed or its tree cannot be
    ///   read.
    public func extras() throws -> DocumentExtras {
        var search: SearchMetadata?
        var files: [String] = []
        if let packageURL {
            if DocumentFiles.kind(of: packageURL.appendingPathComponent(DocumentPackageLayout.metaXML)).isFile {
                do {
                    let read = try SearchMetadata(contentsOf: packageURL)
                    var kept = SearchMetadata(title: read.title, keywords: read.keywords, authors: read.authors, comment: read.comment)
                    kept.indexedValues = read.indexedValues
                    search = kept
                } catch var error as QuireError {
                    // The working copy of an archive is private: the message names the user's file and the entry.
                    if container != .package {
                        error = QuireError(
                            error.code,
                            "\(url.lastPathComponent): entry \(DocumentPackageLayout.metaXML): "
                                + "the search metadata is not an ODF meta document.",
                            context: .init(file: url), underlying: error)
                    }
                    throw error
                }
            }
            try DocumentPackage.walk(packageURL, relative: "") { path, kind in
                guard !Self.isWrittenByQuire(path) else { return }
                files.append(kind == .directory ? path + "/" : path)
            }
        }
        var attributes: [String: Data] = [:]
        if let names = try? ExtendedAttributes.names(of: url) {
            for name in names { if let value = try? ExtendedAttributes.value(name, of: url) { attributes[name] = value } }
        }
        var info = stat()
        let permissions = lstat(url.path, &info) == 0 ? UInt16(info.st_mode & 0o7777) : nil
        return DocumentExtras(
            searchMetadata: search, packageFiles: files.sorted(), extendedAttributes: attributes, permissions: permissions)
    }

    /// Copies the package's other files (``DocumentExtras/packageFiles``) into a new package tree.
    static func copyPackageFiles(_ paths: [String], from package: URL, into destination: URL) throws {
        for path in paths {
            let target = destination.appendingPathComponent(path)
            if path.hasSuffix("/") {
                if DocumentFiles.kind(of: target) == .missing { try DocumentFiles.makeDirectory(target) }
            } else {
                let parent = target.deletingLastPathComponent()
                if DocumentFiles.kind(of: parent) == .missing {
                    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
                }
                try DocumentFiles.copyFile(from: package.appendingPathComponent(path), to: target)
            }
        }
    }

    /// Gives a finished output (before it is renamed into place) the document's extended attributes and
    /// permission bits; returns what could not be set, in words.
    static func apply(_ extras: DocumentExtras, to built: URL) -> [String] {
        var notKept: [String] = []
        var refused: [String] = []
        for (name, value) in extras.extendedAttributes.sorted(by: { $0.key < $1.key }) {
            do {
                try ExtendedAttributes.set(name, to: value, on: built)
            } catch {
                refused.append(name)
            }
        }
        if !refused.isEmpty {
            notKept.append("extended attributes \(refused.joined(separator: ", ")) (the output's filesystem refuses them)")
        }
        if let permissions = extras.permissions {
            var mode = mode_t(permissions)
            if DocumentFiles.kind(of: built) == .directory {
                // A folder made from a file: whoever may read it may also list it.
                mode |= (mode & 0o444) >> 2
            } else {
                // A document file is never a program (a package folder's search bits do not carry over).
                mode &= ~mode_t(0o111)
            }
            if chmod(built.path, mode) != 0 {
                notKept.append("the file mode \(String(permissions, radix: 8)) (\(String(cString: strerror(errno))))")
            }
        }
        return notKept
    }
}

extension DocumentContents {
    /// The document's search metadata as its package holds it (`Metadata/meta.xml`), empty when it has none.
    ///
    /// - Throws: ``QuireError/Code/invalidArgument`` for a store file, which holds no search metadata; read errors
    ///   of `meta.xml`.
    public func searchMetadata() throws -> SearchMetadata {
        guard let packageURL else {
            throw QuireError(
                .invalidArgument, "'\(url.path)' is a store file, which holds no search metadata.", context: .init(file: url))
        }
        guard DocumentFiles.kind(of: packageURL.appendingPathComponent(DocumentPackageLayout.metaXML)).isFile else {
            return SearchMetadata()
        }
        return try SearchMetadata(contentsOf: packageURL)
    }

    /// Writes new search metadata into the package tree (`Metadata/meta.xml` and `Metadata/summary.txt`, each
    /// written beside and renamed into place) and sets `user.xdg.tags` and `user.xdg.comment` on the document;
    /// an archive's working copy must then be written back (see ``writeArchive(ofPackage:to:format:compression:progress:)``).
    ///
    /// - Returns: Warnings for extended attributes the filesystem refused.
    /// - Throws: ``QuireError/Code/invalidArgument`` for a store file; file write errors naming the file.
    @discardableResult
    public func writeSearchMetadata(_ metadata: SearchMetadata) throws -> [String] {
        guard let packageURL else {
            throw QuireError(
                .invalidArgument, "'\(url.path)' is a store file, which holds no search metadata.", context: .init(file: url))
        }
        let folder = packageURL.appendingPathComponent(DocumentPackageLayout.metadata)
        if DocumentFiles.kind(of: folder) == .missing { try DocumentFiles.makeDirectory(folder) }
        for (path, data) in [
            (DocumentPackageLayout.metaXML, metadata.metaXML()), (DocumentPackageLayout.summary, metadata.summaryText()),
        ] {
            let target = packageURL.appendingPathComponent(path)
            _ = try SafeSave.replaceFile(at: target) { try DocumentFiles.writeNewFile(data, to: $0) }
        }
        var warnings: [String] = []
        for (name, value) in metadata.extendedAttributes.sorted(by: { $0.key < $1.key }) {
            do {
                if value.isEmpty { try ExtendedAttributes.remove(name, from: url) } else { try ExtendedAttributes.set(name, to: value, on: url) }
            } catch {
                warnings.append("\(error)")
            }
        }
        return warnings
    }
}
