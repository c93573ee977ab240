import Foundation

/// The executables the tests run, built into the same folder as the test bundle (`swift build --build-tests`
/// builds them all; `make example-test` also builds Quire's `quire` in this package).
enum Products {
    /// The build folder (`.build/debug`).
    static var folder: URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if FileManager.default.isExecutableFile(atPath: beside.appendingPathComponent("notebook").path) { return beside }
        return Bundle.main.bundleURL.deletingLastPathComponent()
    }

    /// An executable of this package's build, or nil when it is not built.
    static func executable(_ name: String) -> URL? {
        let url = folder.appendingPathComponent(name)
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    /// Where the tests keep what they leave for people to look at (the screenshots): `.build/notebook-test`
    /// of the example's package, never committed.
    static var artifacts: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/notebook-test")
    }

    /// Runs a program to its end (two minutes at most) and returns its exit status and standard output.
    @discardableResult
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], quiet: Bool = false
    ) throws -> (status: Int32, output: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notebook-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Through a file, not a pipe: a pipe would stay open as long as any process the program left behind holds it.
        let output = folder.appendingPathComponent("out")
        try Data().write(to: output)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = quiet ? FileHandle.nullDevice : FileHandle.standardError
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: output), as: UTF8.self))
    }

    /// A program on the PATH, or nil.
    static func tool(_ name: String) -> URL? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { URL(fileURLWithPath: "\($0)/\(name)") }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
