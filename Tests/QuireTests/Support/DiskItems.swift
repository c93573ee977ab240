import Foundation
import Quire

#if canImport(Glibc)
import Glibc
#endif

/// What the tests see on disk, read with the system's calls rather than through Quire's own file code.
enum DiskItems {
    /// Whether nothing is at a URL, not even a symbolic link (a final link is not followed).
    static func isMissing(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) != 0
    }

    /// The paths under a folder, relative to it and sorted, folders ending in `/`.
    ///
    /// - Throws: When the tree holds anything but regular files and folders.
    static func fileSet(of root: URL) throws -> [String] {
        var paths: [String] = []
        func walk(_ relative: String) throws {
            let folder = relative.isEmpty ? root : root.appendingPathComponent(relative)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let path = relative.isEmpty ? name : relative + "/" + name
                var status = stat()
                guard lstat(root.appendingPathComponent(path).path, &status) == 0 else {
                    throw QuireError(.fileReadNoSuchFile, "'\(path)' vanished while listed.")
                }
                switch status.st_mode & S_IFMT {
                case S_IFREG: paths.append(path)
                case S_IFDIR:
                    paths.append(path + "/")
                    try walk(path)
                default: throw QuireError(.invalidPackage, "'\(path)' is not a regular file or folder.")
                }
            }
        }
        try walk("")
        return paths.sorted()
    }

    /// The hidden sibling a safe save builds a document's next version in, or moves the previous one to, as
    /// the Documents article names it: `.<name>.quire-<token>.<suffix>`.
    static func safeSaveSibling(of url: URL, token: String, suffix: String) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).quire-\(token).\(suffix)")
    }
}
