import Foundation
import Quire

/// `-` for standard input and output: a document read from standard input is spooled into a private file
/// first (a store or an archive must be seekable); an output written to standard output is built in a private
/// folder, then streamed out.
enum StandardStreams {
    /// A private folder for a spooled stream (mode 0700, in the temporary folder), removed by the caller.
    static func privateFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-stream-\(WorkingFolders.token())")
        try writing(folder, shownAs: "a temporary folder") {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        CleanupOnSignal.register(folder)
        return folder
    }

    /// Copies standard input into a new private file and returns it (its folder is the caller's to remove).
    ///
    /// - Throws: A usage failure when standard input is a terminal, an input failure when it cannot be read.
    static func spoolInput() throws -> URL {
        if isatty(STDIN_FILENO) == 1 {
            throw CommandFailure(status: .usage, message: "'-' reads a document from standard input, which is a terminal; pipe one in.")
        }
        let folder = try privateFolder()
        let file = folder.appendingPathComponent("input")
        do {
            guard FileManager.default.createFile(atPath: file.path, contents: nil),
                let handle = try? FileHandle(forWritingTo: file)
            else {
                throw CommandFailure(status: .unwritableOutput, message: "Unable to keep standard input in a temporary file.")
            }
            defer { try? handle.close() }
            while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
                try handle.write(contentsOf: chunk)
            }
        } catch let failure as CommandFailure {
            try? FileManager.default.removeItem(at: folder)
            throw failure
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw CommandFailure(status: .unreadableInput, message: "standard input: \(plainReason(error)).")
        }
        return file
    }

    /// Writes a finished file to standard output.
    static func send(_ file: URL) throws {
        guard let handle = try? FileHandle(forReadingFrom: file) else {
            throw CommandFailure(status: .unwritableOutput, message: "standard output: the result could not be read back.")
        }
        defer { try? handle.close() }
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                try FileHandle.standardOutput.write(contentsOf: chunk)
            }
        } catch {
            throw CommandFailure(status: .unwritableOutput, message: "standard output: \(plainReason(error)).")
        }
    }
}
