import ArgumentParser
import Foundation
import Quire
import QuirePostgres
import QuireCore
import QuireStores

/// `quire metadata DOC`: reads and writes store metadata without loading the object graph.
struct Metadata: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read or change a document's store metadata and search metadata without loading its object graph.",
        discussion: """
            Values set are strings. Core Data's own keys (NSStore…, NSPersistenceFrameworkVersion) cannot be changed. \
            --title and --keyword set the search metadata desktop search reads (Metadata/meta.xml, user.xdg.tags, \
            user.xdg.comment) of a package or archive. The file's mode, extended attributes and hard links are kept.

            Examples:
              quire metadata Report.zip
              quire metadata Report.zip --set Owner=Ada --remove Draft
              quire metadata Report.quiredoc --title "Q3 report" --keyword finance --keyword 2025
              quire metadata 'postgresql://me@localhost/db?schema=report' --json
            """)

    @Argument(help: "A document or store, or a PostgreSQL store URL.", completion: .file())
    var document: String

    @Flag(help: "Print as JSON.")
    var json = false

    @Option(name: .customLong("set"), help: "Set KEY to the string VALUE (repeatable).")
    var assignments: [String] = []

    @Option(name: .customLong("remove"), help: "Remove KEY (repeatable).")
    var removals: [String] = []

    @Option(help: "Set the document's title (search metadata; packages and archives).")
    var title: String?

    @Option(name: .customLong("keyword"), help: "Set the document's keywords, replacing the old ones (repeatable; search metadata).")
    var keywords: [String] = []

    func validate() throws {
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw ValidationError("--set takes KEY=VALUE, not '\(assignment)'.")
            }
            try Self.checkWritable(String(assignment[..<equals]))
        }
        for key in removals { try Self.checkWritable(key) }
        if document == "-" && (!assignments.isEmpty || !removals.isEmpty || title != nil || !keywords.isEmpty) {
            throw ValidationError("Standard input cannot be changed; name the document's file.")
        }
    }

    static func checkWritable(_ key: String) throws {
        if key.hasPrefix("NSStore") || key == StoreMetadataKey.persistenceFrameworkVersion {
            throw ValidationError("The key '\(key)' belongs to the store and cannot be changed.")
        }
    }

    private var changesSearch: Bool { title != nil || !keywords.isEmpty }

    func run() throws {
        let source = try StoreSource.open(document)
        defer { source.close() }
        func read() throws -> [String: PropertyListValue] {
            try source.whileReading {
                try PersistentStoreCoordinator.metadataForPersistentStore(ofType: source.storeType, at: source.storeURL)
            }
        }
        var metadata = try read()
        var search: SearchMetadata?
        if let contents = source.contents, contents.packageURL != nil {
            search = try source.whileReading { try contents.searchMetadata() }
        }
        if changesSearch && search == nil {
            throw CommandFailure(
                status: .usage,
                message: "'\(source.shown)' is a \(source.contents == nil ? "PostgreSQL store" : "store file"), which has no search "
                    + "metadata: --title and --keyword apply to packages and archives (quire convert makes one).")
        }
        let progress = MetadataProgress(enabled: !json && source.contents.map { $0.container != .storeFile && $0.container != .package } == true)
        defer { progress.stop() }
        if !assignments.isEmpty || !removals.isEmpty || changesSearch {
            for assignment in assignments {
                guard let equals = assignment.firstIndex(of: "=") else { continue }
                metadata[String(assignment[..<equals])] = .string(String(assignment[assignment.index(after: equals)...]))
            }
            for key in removals { metadata.removeValue(forKey: key) }
            if var changed = search, changesSearch, let contents = source.contents {
                if let title { changed.title = title }
                if !keywords.isEmpty { changed.keywords = keywords }
                for warning in try writing(contents.url, { try naming(contents) { try contents.writeSearchMetadata(changed) } }) {
                    printError("quire: \(Messages.naming(warning))")
                }
                search = changed
            }
            try write(metadata, into: source, progress: progress)
            metadata = try read()
        }
        progress.stop()
        let searchFields: [(String, Any, String)] = [
            search?.title.map { ("title", $0 as Any, $0) },
            search.flatMap { $0.keywords.isEmpty ? nil : ("keywords", $0.keywords as Any, $0.keywords.joined(separator: ", ")) },
            search?.comment.map { ("description", $0 as Any, $0) },
        ].compactMap { $0 }
        if json {
            var object: [String: Any] = metadata.mapValues(jsonValue)
            if !searchFields.isEmpty {
                object["search"] = Dictionary(uniqueKeysWithValues: searchFields.map { ($0.0, $0.1) })
            }
            try printJSON(object)
        } else {
            for key in metadata.keys.sorted() { print("\(key) = \(metadata[key].map(textValue) ?? "")") }
            for (name, _, text) in searchFields { print("search \(name) = \(text)") }
        }
    }

    /// Writes metadata into the store of a store file or package directly, or into an archive's working copy
    /// that then replaces the archive (built beside it and renamed into place).
    private func write(_ metadata: [String: PropertyListValue], into source: StoreSource, progress: MetadataProgress) throws {
        guard let contents = source.contents else {
            try writing(source.reportedURL) {
                try PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: .postgres, at: source.storeURL)
            }
            return
        }
        switch contents.container {
        case .storeFile, .package:
            try writing(contents.url) {
                try PersistentStoreCoordinator.setMetadata(
                    metadata, forPersistentStoreOfType: contents.storeType, at: contents.storeURL)
            }
        case .zipArchive, .tarArchive:
            guard let package = contents.packageURL, let format = contents.container.documentFormat else { return }
            try writing(contents.url) {
                try naming(contents) {
                    try PersistentStoreCoordinator.setMetadata(
                        metadata, forPersistentStoreOfType: contents.storeType, at: contents.storeURL)
                }
            }
            let staging = try stagingFolder(beside: contents.url)
            defer { try? FileManager.default.removeItem(at: staging) }
            let file = staging.appendingPathComponent("archive")
            progress.phase("writing the archive")
            try writing(contents.url) {
                try naming(contents) {
                    try DocumentContents.writeArchive(ofPackage: package, to: file, format: format) { done, total in
                        progress.update(done: done, total: total)
                    }
                }
            }
            progress.phase("replacing the archive")
            try replaceKeepingIdentity(contents.url, with: file)
        }
    }

    /// Puts a rewritten archive in place of the original, keeping what belongs to the file rather than its
    /// content: its permission bits and extended attributes (the new file gets them before it is renamed over
    /// the old one), and its hard links (a file with several names is rewritten in place, once the new content
    /// is complete, so that every name sees it).
    private func replaceKeepingIdentity(_ original: URL, with built: URL) throws {
        var info = stat()
        guard lstat(original.path, &info) == 0 else {
            throw CommandFailure(status: .unwritableOutput, message: "'\(original.path)': \(String(cString: strerror(errno)).lowercased()).")
        }
        if info.st_nlink > 1 {
            try writing(original) {
                guard let data = FileManager.default.contents(atPath: built.path) else {
                    throw CommandFailure(status: .unwritableOutput, message: "'\(original.path)': the new archive could not be read back.")
                }
                let fd = open(original.path, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    throw CommandFailure(
                        status: .unwritableOutput, message: "'\(original.path)': \(String(cString: strerror(errno)).lowercased()).")
                }
                defer { close(fd) }
                // Room for the whole new content first, so that a full disk fails before a byte is changed.
                if data.count > Int(info.st_size), posix_fallocate(fd, 0, off_t(data.count)) != 0 {
                    throw CommandFailure(
                        status: .unwritableOutput, message: "'\(original.path)': no space left for the new metadata.")
                }
                var offset = 0
                try data.withUnsafeBytes { buffer in
                    guard let base = buffer.baseAddress else { return }
                    while offset < buffer.count {
                        let written = pwrite(fd, base + offset, buffer.count - offset, off_t(offset))
                        if written < 0 {
                            if errno == EINTR { continue }
                            throw CommandFailure(
                                status: .unwritableOutput, message: "'\(original.path)': \(String(cString: strerror(errno)).lowercased()).")
                        }
                        offset += written
                    }
                }
                guard ftruncate(fd, off_t(data.count)) == 0, fsync(fd) == 0 else {
                    throw CommandFailure(
                        status: .unwritableOutput, message: "'\(original.path)': \(String(cString: strerror(errno)).lowercased()).")
                }
            }
            return
        }
        for name in (try? ExtendedAttributes.names(of: original)) ?? [] {
            if let value = try? ExtendedAttributes.value(name, of: original) {
                try? ExtendedAttributes.set(name, to: value, on: built)
            }
        }
        _ = chmod(built.path, info.st_mode & 0o7777)
        try moveIntoPlace(built, to: original, force: true)
    }
}
