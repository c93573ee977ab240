import Foundation

/// Files and folders made immutable with `chattr +i`, which refuses every change with `EPERM` ("operation not
/// permitted") even to root: how a test run as root (as CI runs) meets a folder that takes no new files or a
/// store that cannot be written, where permission bits would not stop it.
///
/// ```swift
/// @Test(.enabled(if: ImmutableFiles.available)) func aLockedFolderIsNamed() throws {
///     try ImmutableFiles.while(folder.url) { /* … a write into it fails … */ }
/// }
/// ```
public enum ImmutableFiles {
    /// Whether `chattr` can make files immutable here: the program is installed, the process may set the flag
    /// (root, or `CAP_LINUX_IMMUTABLE`) and the temporary folder's file system keeps it (ext4 and most disk file
    /// systems do; tmpfs and overlayfs do not).
    public static let available: Bool = {
        guard let folder = try? TemporaryFolder(prefix: "quire-chattr-probe") else { return false }
        let probe = folder.file("probe")
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: false)) != nil,
            (try? set(probe, immutable: true)) != nil
        else { return false }
        defer { try? set(probe, immutable: false) }
        // Immutable means a new file cannot be made in it.
        return !FileManager.default.createFile(atPath: probe.appendingPathComponent("x").path, contents: nil)
    }()

    /// Sets or clears the immutable flag of a file or folder.
    ///
    /// - Throws: An error naming the file when `chattr` fails.
    public static func set(_ url: URL, immutable: Bool) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [immutable ? "+i" : "-i", url.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    /// Runs `body` while `url` is immutable, clearing the flag afterwards (also when `body` throws), so that the
    /// test's folder can be removed.
    public static func `while`<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        try set(url, immutable: true)
        defer { try? set(url, immutable: false) }
        return try body()
    }
}
