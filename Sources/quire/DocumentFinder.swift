import Foundation
import Quire
import QuireStores

/// Finds the documents and stores in a folder `quire convert` was given: packages (not entered), zip and tar
/// document archives, and store files, recognized by their content; hidden files and folders (staging
/// folders, external data folders) and the side files stores keep (SQLite's `-wal`, `-shm`, `-journal`:
/// `StoreKind.sideFileSuffixes`) are skipped.
enum DocumentFinder {
    /// A document found in a folder.
    struct Found: Equatable {
        /// Its path under the folder, with `/` between components.
        var relativePath: String
        /// Its container.
        var container: DocumentContents.Container
    }

    /// Whether a path names a folder that is not a document package (a folder to walk).
    static func isPlainFolder(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return false
        }
        return (try? DocumentContents.container(at: url)) != .package
    }

    /// The documents under `folder`, in path order.
    static func documents(in folder: URL) throws -> [Found] {
        var found: [Found] = []
        try walk(folder, relative: "", into: &found)
        return found.sorted { $0.relativePath < $1.relativePath }
    }

    private static func walk(_ folder: URL, relative: String, into found: inout [Found]) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let sideFileSuffixes = StoreKinds.sideFileSuffixes
        for name in names where !name.hasPrefix(".") {
            if sideFileSuffixes.contains(where: { name.hasSuffix($0) }) { continue }
            let url = folder.appendingPathComponent(name)
            let path = relative.isEmpty ? name : relative + "/" + name
            // Xcode models (their `contents` files are XML, but not stores) are never walked into.
            if ["xcdatamodeld", "xcdatamodel", "momd"].contains(url.pathExtension.lowercased()) { continue }
            if let container = try? DocumentContents.container(at: url) {
                guard container != .storeFile || isStore(url) else { continue }
                found.append(Found(relativePath: path, container: container))
            } else if isPlainFolder(url), (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) == nil {
                try walk(url, relative: path, into: &found)
            }
        }
    }

    /// Whether a file taken for a store is one: an XML file is a store only when its root is Core Data's
    /// `<database>` (any other XML, such as an Xcode model's `contents`, is not).
    static func isStore(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 4096)) ?? Data(), as: UTF8.self)
        guard head.hasPrefix("<?xml") || head.hasPrefix("<") else { return true }
        return head.contains("<database") || head.contains("<!DOCTYPE database")
    }
}
