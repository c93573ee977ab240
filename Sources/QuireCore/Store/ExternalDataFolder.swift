import QuireSupport
import CQuireSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The folder beside a store where large binary values live, as on the Mac:
/// `.<store name>_SUPPORT/_EXTERNAL_DATA/<UUID>`. Files are written once and never changed.
package struct ExternalDataFolder {
    /// The `_EXTERNAL_DATA` folder.
    package let url: URL

    /// The folder of the store of a kind at a location (see ``StoreKind/supportFolder(forStore:)``).
    package init(storeURL: URL, kind: StoreKind) {
        url = kind.supportFolder(forStore: storeURL).appendingPathComponent("_EXTERNAL_DATA")
    }

    package func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The names of the files in the folder (none when it does not exist).
    package func fileNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter(ExternalDataReference.isValidName)
    }

    package func createIfNeeded() throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw QuireError(
                .fileWriteNoPermission, "Could not create the external data folder '\(url.path)'.", context: .init(file: url),
                underlying: QuireUnderlyingError(error))
        }
    }

    /// Writes a new file and fsyncs it; the folder is fsynced by ``ExternalDataWrites/finish()``.
    package func write(_ data: Data) throws -> ExternalDataReference {
        try createIfNeeded()
        let name = UUID().uuidString
        let target = file(name)
        let descriptor = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw AtomicFileWriter.error(errno, "create the external data file", target) }
        do {
            try AtomicFileWriter.writeAll(descriptor, data, target)
            guard fsync(descriptor) == 0 else { throw AtomicFileWriter.error(errno, "flush", target) }
        } catch {
            close(descriptor)
            unlink(target.path)
            throw error
        }
        close(descriptor)
        return ExternalDataReference(uuid: name, length: Int64(data.count))
    }

    /// Reads a file, checking that it is there and whole.
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when the file is missing,
    ///   ``QuireError/Code/fileReadCorruptFile`` when it is shorter or longer than recorded; both name the
    ///   object and the key.
    package func read(_ reference: ExternalDataReference, expectedLength: Int64?, object: ObjectID, key: String) throws -> Data {
        let target = file(reference.uuid)
        let what = "The external data of '\(key)' of \(object)"
        let context = QuireError.Context(file: target, entity: object.entity.name, key: key, object: object.uriRepresentation())
        _ = try check(reference, expectedLength: expectedLength, object: object, key: key)
        do {
            let data = try Data(contentsOf: target)
            if let expectedLength, Int64(data.count) != expectedLength {
                throw QuireError(.fileReadCorruptFile, "\(what) is truncated: '\(target.path)' changed while read.", context: context)
            }
            return data
        } catch let error as QuireError {
            throw error
        } catch {
            throw QuireError(.fileReadNoPermission, "\(what) cannot be read from '\(target.path)'.", context: context, underlying: QuireUnderlyingError(error))
        }
    }

    /// Checks that a file is there and has the recorded length, without reading it; returns its length.
    package func check(_ reference: ExternalDataReference, expectedLength: Int64?, object: ObjectID, key: String) throws -> Int64 {
        let target = file(reference.uuid)
        let what = "The external data of '\(key)' of \(object)"
        let context = QuireError.Context(file: target, entity: object.entity.name, key: key, object: object.uriRepresentation())
        guard ExternalDataReference.isValidName(reference.uuid) else {
            throw QuireError(.fileReadCorruptFile, "\(what) has a malformed file name.", context: context)
        }
        var status = stat()
        guard stat(target.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw QuireError(.fileReadNoSuchFile, "\(what) is missing: there is no file '\(target.path)'.", context: context)
        }
        if let expectedLength, Int64(status.st_size) != expectedLength {
            throw QuireError(
                .fileReadCorruptFile,
                "\(what) is truncated or damaged: '\(target.path)' holds \(status.st_size) bytes, not \(expectedLength).",
                context: context)
        }
        return Int64(status.st_size)
    }

    /// Removes every file not named in `referenced`; returns the names removed.
    @discardableResult
    package func collect(keeping referenced: Set<String>) -> [String] {
        var removed: [String] = []
        for name in fileNames() where !referenced.contains(name) {
            if unlink(file(name).path) == 0 { removed.append(name) }
        }
        if !removed.isEmpty { _ = quire_fsync_directory(url.path) }
        return removed
    }

    /// Removes the named files (those a store referred to and no longer does); returns the names removed.
    @discardableResult
    package func remove(_ names: Set<String>) -> [String] {
        var removed: [String] = []
        for name in names.sorted() where ExternalDataReference.isValidName(name) {
            if unlink(file(name).path) == 0 { removed.append(name) }
        }
        if !removed.isEmpty { _ = quire_fsync_directory(url.path) }
        return removed
    }

    /// Puts a file of another folder into this one under the same name: a hard link (no bytes copied), or a
    /// copy across file systems. An existing file of that name is kept.
    package func link(_ name: String, from source: ExternalDataFolder) throws {
        let from = source.file(name)
        let to = file(name)
        if Glibc.link(from.path, to.path) == 0 || errno == EEXIST { return }
        let code = errno
        guard code == EXDEV || code == EPERM || code == EMLINK || code == ENOTSUP else {
            throw AtomicFileWriter.error(code, "link the external data file '\(from.path)' to", to)
        }
        try FileClone.clone(from, to: to)
    }

}

/// The external data files one save writes: fsynced before the store commits, removed if it fails.
package final class ExternalDataWrites {
    package let folder: ExternalDataFolder
    package let threshold: Int
    package private(set) var written: [String] = []
    /// The length of each file written, by name.
    package private(set) var lengths: [String: Int64] = [:]

    package init(folder: ExternalDataFolder, threshold: Int) {
        self.folder = folder
        self.threshold = threshold
    }

    /// The value to store for an attribute: a reference to a new file for data above the threshold.
    package func stored(_ value: AttributeValue, external: Bool) throws -> AttributeValue {
        guard external, case .data(let bytes) = value, bytes.count > threshold else { return value }
        let reference = try folder.write(bytes)
        written.append(reference.uuid)
        lengths[reference.uuid] = reference.length
        return .externalData(reference)
    }

    /// Makes the new files' names durable (fsyncs the folders).
    package func finish() {
        guard !written.isEmpty else { return }
        _ = quire_fsync_directory(folder.url.path)
        _ = quire_fsync_directory(folder.url.deletingLastPathComponent().path)
        _ = quire_fsync_directory(folder.url.deletingLastPathComponent().deletingLastPathComponent().path)
    }

    /// Removes the files written, after a failed save.
    package func discard() {
        for name in written { unlink(folder.file(name).path) }
        written = []
        lengths = [:]
    }
}

extension StoreKind {
    /// The support folder beside a store of the kind. SQLite's is Core Data's, named without the file's extension
    /// (`Photos.sqlite` → `.Photos_SUPPORT`, ``supportFolderDropsExtension``); every other kind's keeps the whole
    /// file name (`Photos.xml` → `.Photos.xml_SUPPORT`; the same for a file without an extension, as in a document
    /// package), so stores of different kinds side by side never share a folder, and one's collection of
    /// unreferenced files never removes another's.
    package func supportFolder(forStore storeURL: URL) -> URL {
        let name = supportFolderDropsExtension ? storeURL.deletingPathExtension().lastPathComponent : storeURL.lastPathComponent
        return storeURL.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT")
    }
}
