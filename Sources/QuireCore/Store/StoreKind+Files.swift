import QuireSupport
import CQuireSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension StoreKind {
    /// The store file and the side files the kind keeps beside it, as paths.
    package func filePaths(of url: URL) -> [String] {
        [url.path] + sideFileSuffixes.map { url.path + $0 }
    }

    /// Removes a store file, its side files and (unless told not to) its external data's support folder, then
    /// syncs the folder.
    ///
    /// - Throws: ``QuireError/Code/fileWriteNoPermission`` when a file cannot be removed.
    package func removeFiles(at url: URL, includingExternalData: Bool = true) throws {
        if let removeStore { return try removeStore(url) }
        for path in filePaths(of: url) {
            guard FileManager.default.fileExists(atPath: path) else { continue }
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw QuireError(
                    .fileWriteNoPermission, "Could not delete '\(path)'.", context: .init(file: url), underlying: QuireUnderlyingError(error))
            }
        }
        if includingExternalData { try? FileManager.default.removeItem(at: supportFolder(forStore: url)) }
        _ = quire_fsync_directory(url.deletingLastPathComponent().path)
    }

    /// Copies a closed store to a new location without reading its objects: its file is made whole
    /// (``prepareForCopy``), cloned (a reflink where the file system shares blocks) and synced, and its
    /// external data files are hard-linked. The target must not exist; on failure nothing is left at it.
    package func cloneFiles(from source: URL, to target: URL) throws {
        try prepareForCopy(source)
        do {
            try FileClone.clone(source, to: target)
            let from = ExternalDataFolder(storeURL: source, kind: self)
            let names = from.fileNames()
            guard !names.isEmpty else { return }
            let to = ExternalDataFolder(storeURL: target, kind: self)
            try to.createIfNeeded()
            for name in names { try to.link(name, from: from) }
            _ = quire_fsync_directory(to.url.path)
        } catch {
            try? removeFiles(at: target)
            throw error
        }
    }

    /// Moves a closed store (its file, side files and support folder) to a new location by renames, replacing
    /// what was there, and syncs the folder.
    package func moveFiles(from source: URL, to target: URL) throws {
        for suffix in sideFileSuffixes { _ = unlink(target.path + suffix) }
        guard rename(source.path, target.path) == 0 else {
            throw AtomicFileWriter.error(errno, "move the new store into", target)
        }
        for suffix in sideFileSuffixes { _ = rename(source.path + suffix, target.path + suffix) }
        let sourceSupport = supportFolder(forStore: source)
        let targetSupport = supportFolder(forStore: target)
        if FileManager.default.fileExists(atPath: sourceSupport.path) {
            try? FileManager.default.removeItem(at: targetSupport)
            _ = rename(sourceSupport.path, targetSupport.path)
        }
        _ = quire_fsync_directory(target.deletingLastPathComponent().path)
    }
}
