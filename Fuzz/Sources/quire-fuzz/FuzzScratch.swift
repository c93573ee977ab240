import Foundation

/// The process's scratch folder: each input is written below it and removed before the next one.
enum FuzzScratch {
    /// A folder of this process, made on first use.
    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("quire-fuzz-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Runs `body` with an empty folder, removed afterwards with whatever the reader left in it.
    static func withEmptyFolder(_ body: (URL) throws -> Void) {
        let url = folder.appendingPathComponent("input", isDirectory: true)
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        do { try body(url) } catch {}
    }

    /// Writes the bytes to a file of that name in an empty folder and runs `body` with it.
    static func withFile(named name: String, _ data: Data, _ body: (URL) throws -> Void) {
        withEmptyFolder { folder in
            let file = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file)
            try body(file)
        }
    }
}
