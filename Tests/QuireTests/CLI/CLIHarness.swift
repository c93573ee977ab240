import Foundation
import Quire
import QuireTestSupport

/// Runs the built `quire` executable as a child process in a folder and captures what it prints, with the
/// folder's path replaced by `$TMP` so that outputs compare with golden text.
struct CLIHarness {
    /// What a run printed and how it ended.
    struct Result: Equatable, CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String

        var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    /// The `quire` executable next to the test bundle, nil when it was not built.
    static var executable: URL? {
        // QUIRE_TEST_EXECUTABLE runs the CLI tests against another build (an older one, to see a test fail).
        if let path = ProcessInfo.processInfo.environment["QUIRE_TEST_EXECUTABLE"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("quire"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("quire"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The checked-in sample documents.
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("SampleDocuments")

    /// Every sample document's file name.
    static var sampleNames: [String] {
        ["Runs", "Library"].flatMap { name in
            ["sqlite", "xml", "binary"].flatMap { type in ["quiredoc", "zip", "tar"].map { "\(name)-\(type).\($0)" } }
        }
    }

    /// Whether tools can read stores of a type yet (the model they embed is reachable through
    /// `ManagedObjectModel.embedded(inStoreAt:type:)`; XML and binary need their stores' file operations).
    static func canRead(_ type: StoreType) -> Bool {
        let name = type == .sqlite ? "sqlite" : type == .xml ? "xml" : "binary"
        let store = samples.appendingPathComponent("Runs-\(name).quiredoc/StoreContent/persistentStore")
        return (try? ManagedObjectModel.embedded(inStoreAt: store, type: type)) != nil
    }

    let folder: TemporaryFolder
    let executable: URL

    init(executable: URL) throws {
        folder = try TemporaryFolder(prefix: "quire-cli")
        self.executable = executable
    }

    /// A harness running in a folder the caller made.
    init(folder: TemporaryFolder, executable: URL) {
        self.folder = folder
        self.executable = executable
    }

    /// Copies a sample document into the folder.
    func copySample(_ name: String, as newName: String? = nil) throws {
        try FileManager.default.copyItem(
            at: Self.samples.appendingPathComponent(name), to: folder.file(newName ?? name))
    }

    /// Runs `quire` with arguments in the folder.
    func run(_ arguments: String...) throws -> Result { try run(arguments) }

    /// Runs `quire` with arguments in the folder, every file it writes limited to `blocks` blocks of 1024 bytes
    /// (the shell's `ulimit -f`, with `SIGXFSZ` ignored so that a write past it fails with `EFBIG` instead of
    /// ending the process): a real write failure in the middle of building an output.
    func run(fileSizeLimit blocks: Int, _ arguments: [String]) throws -> Result {
        try run(arguments, shell: "trap '' XFSZ; ulimit -f \(blocks); exec \"$0\" \"$@\"")
    }

    /// Runs `quire` with arguments in the folder, with `environment` added to this process's; through
    /// `/bin/sh -c shell` when given (the script gets the executable as `$0` and the arguments as `$@`).
    func run(_ arguments: [String], environment: [String: String] = [:], shell: String? = nil) throws -> Result {
        let process = Process()
        if let shell {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shell, executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.currentDirectoryURL = folder.url
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: normalize(stdout), stderr: normalize(stderr))
    }

    /// The folder's names, hidden ones included, sorted.
    func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    private func normalize(_ data: Data) -> String {
        var text = String(decoding: data, as: UTF8.self)
        text = text.replacingOccurrences(of: folder.url.resolvingSymlinksInPath().path, with: "$TMP")
        text = text.replacingOccurrences(of: folder.url.path, with: "$TMP")
        return text.replacingOccurrences(
            of: "[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}", with: "<UUID>", options: .regularExpression)
    }
}
