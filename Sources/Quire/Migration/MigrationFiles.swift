import QuireCore
import QuireStores
import CQuireSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file work of a migration of a store file: its private folder beside the store, the external binary data
/// carried over as hard links, syncing, and the final swap (``MigrationWorkArea`` chooses it for store files).
enum MigrationFiles {
    /// The prefix of a store's private migration folders: `.<store name>.migration-`.
    static func workFolderPrefix(for store: URL) -> String { ".\(store.lastPathComponent).migration-" }

    /// Creates a fresh private folder beside a store file, first removing folders a crashed migration of the same
    /// store left behind (``MigrationWorkArea`` uses it for store files).
    static func makeWorkFolder(for store: URL) throws -> URL {
        let parent = store.deletingLastPathComponent()
        let prefix = workFolderPrefix(for: store)
        if let leftovers = try? FileManager.default.contentsOfDirectory(atPath: parent.path) {
            for name in leftovers where name.hasPrefix(prefix) {
                try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
            }
        }
        let folder = parent.appendingPathComponent(prefix + UUID().uuidString)
        try createFolder(folder)
        return folder
    }

    /// Creates a folder (and its parents).
    static func createFolder(_ folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw QuireError(
                .migrationManagerDestinationStore, "Cannot create the migration folder '\(folder.path)'.",
                context: .init(file: folder), underlying: MigrationFileError(error))
        }
    }

    /// Removes a private folder and everything in it; failures are ignored (the next migration retries).
    static func removeWorkFolder(_ folder: URL) {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The folder of a store's external binary data, where the store reads them (``ExternalDataFolder``).
    static func externalDataFolder(for store: URL, type: StoreType) -> URL { StoreKinds.externalDataFolder(forStore: store, type: type).url }

    /// Hard-links the external data files of one store into another's folder, leaving files already there
    /// alone; copies where a link is impossible. Blob files are immutable once written, so sharing them is safe.
    ///
    /// - Returns: How many files were linked or copied.
    /// - Throws: ``QuireError/Code/migrationManagerDestinationStore`` naming the file that could not be carried
    ///   over; ``QuireError/Code/migrationManagerSourceStore`` for an entry that is not a regular file.
    @discardableResult
    static func linkExternalData(from source: URL, type sourceType: StoreType, to destination: URL, type destinationType: StoreType) throws -> Int {
        let from = externalDataFolder(for: source, type: sourceType)
        let to = externalDataFolder(for: destination, type: destinationType)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: from.path), !names.isEmpty else { return 0 }
        try createFolder(to)
        var count = 0
        for name in names.sorted() {
            let file = from.appendingPathComponent(name)
            let target = to.appendingPathComponent(name)
            let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else {
                throw QuireError(
                    .migrationManagerSourceStore,
                    "The external data entry '\(file.path)' is not a regular file; links and folders are not carried over.",
                    context: .init(file: file))
            }
            if FileManager.default.fileExists(atPath: target.path) { continue }
            do {
                try FileManager.default.linkItem(at: file, to: target)
            } catch {
                do {
                    try FileManager.default.copyItem(at: file, to: target)
                } catch {
                    throw QuireError(
                        .migrationManagerDestinationStore, "Cannot carry the external data file '\(file.path)' over.",
                        context: .init(file: file), underlying: MigrationFileError(error))
                }
            }
            count += 1
        }
        return count
    }

    /// Flushes a file, or a folder's entries, to disk.
    static func sync(_ url: URL, folder: Bool = false) throws {
        if folder {
            guard quire_fsync_directory(url.path) == 0 else { throw syncError(url) }
            return
        }
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else { throw syncError(url) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw syncError(url) }
    }

    private static func syncError(_ url: URL) -> QuireError {
        QuireError(
            .migrationManagerDestinationStore, "Cannot sync '\(url.path)' to disk (errno \(quire_errno())).",
            context: .init(file: url))
    }

    /// Puts a finished store in place of another in one atomic rename: the external data files the new store
    /// brought are first linked into the old store's folder (adding files there is harmless to the old store),
    /// then the new file replaces the old one, then the folder is synced.
    ///
    /// - Throws: ``QuireError/Code/migrationManagerDestinationStore`` when the target is still open elsewhere (an
    ///   SQLite write-ahead log or hot journal beside it) or the rename fails; the target is unchanged then.
    static func replace(_ target: URL, with replacement: URL, kind: StoreKind) throws {
        try kind.prepareForReplacement(target)
        let companionSuffixes = kind.sideFileSuffixes
        // A side file that holds data (SQLite's write-ahead log, a hot journal) means another connection has the
        // store open; one that only indexes them (SQLite's `-shm`) may stay non-empty after a clean close.
        for suffix in companionSuffixes where !kind.derivedSideFileSuffixes.contains(suffix) {
            let companion = URL(fileURLWithPath: target.path + suffix)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: companion.path) else { continue }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            guard size == 0 else {
                throw QuireError(
                    .migrationManagerDestinationStore,
                    "The store '\(target.path)' seems open elsewhere ('\(companion.lastPathComponent)' is not empty); "
                        + "close it before migrating.",
                    context: .init(file: target))
            }
        }
        for suffix in companionSuffixes {
            try? FileManager.default.removeItem(atPath: target.path + suffix)
        }
        try linkExternalData(from: replacement, type: kind.type, to: target, type: kind.type)
        guard rename(replacement.path, target.path) == 0 else {
            throw QuireError(
                .migrationManagerDestinationStore,
                "Cannot move the migrated store into place at '\(target.path)' (errno \(quire_errno())); the old store is unchanged.",
                context: .init(file: target))
        }
        try? sync(target.deletingLastPathComponent(), folder: true)
    }
}

/// A Foundation error reduced to its description, so it can travel as a Sendable underlying cause.
struct MigrationFileError: Error, Sendable, CustomStringConvertible {
    let description: String

    init(_ error: any Error) {
        description = (error as NSError).localizedDescription
    }
}
