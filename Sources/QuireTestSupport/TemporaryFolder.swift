import Foundation

/// A fresh folder under the system's temporary directory for one test, removed with everything in it when the
/// value is released.
///
/// ```swift
/// @Test func savesRuns() throws {
///     let folder = try TemporaryFolder()
///     let url = folder.file("Runs.sqlite")
///     // … create a store at url …
/// }
/// ```
public final class TemporaryFolder: @unchecked Sendable {
    /// The folder.
    public let url: URL

    /// Creates the folder (named `quire-tests-<UUID>`).
    ///
    /// - Throws: The file manager's error when the folder cannot be created.
    public init(prefix: String = "quire-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The URL of a file (or folder) inside the folder; nothing is created.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}
