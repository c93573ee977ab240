import QuireCore
import Foundation
import Glibc

/// Names for the working and staging folders Quire makes (archive working copies in the temporary folder,
/// save and conversion siblings beside a document) that carry the owning process's ID, and the collection of
/// those a dead process left behind (a killed `quire convert`, a crash).
///
/// A name holds `p<pid>-<random>`. A folder is stale when no process has that ID, or when the process that has
/// it now started after the folder was last changed (the ID was reused); a folder of a live owner is never
/// touched.
package enum WorkingFolders {
    /// A new token for this process: `p<pid>-<8 hex digits>`.
    package static func token() -> String {
        "p\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// The owner's process ID in a name whose token starts right after `prefix`; nil for other names (those of
    /// older versions among them, which are left alone).
    static func owner(of name: String, prefix: String) -> pid_t? {
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        guard rest.first == "p" else { return nil }
        let digits = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, rest.dropFirst(1 + digits.count).first == "-", let pid = pid_t(digits), pid > 0 else {
            return nil
        }
        return pid
    }

    /// When the process `pid` started (seconds since 1970), from `/proc`; nil when there is no such process or
    /// `/proc` cannot tell.
    static func startTime(of pid: pid_t) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name: state is field 3, start time (clock ticks after boot) field 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]),
            let system = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = system.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
            let boot = Double(line.dropFirst("btime ".count))
        else { return nil }
        let hertz = Double(sysconf(Int32(_SC_CLK_TCK)))
        return boot + ticks / (hertz > 0 ? hertz : 100)
    }

    /// Whether the folder (or file) at `url`, owned by `pid`, was left by a process that is gone.
    static func isStale(_ url: URL, owner pid: pid_t) -> Bool {
        guard pid != getpid() else { return false }
        if kill(pid, 0) != 0 && errno == ESRCH { return true }
        // The ID is in use: stale only if that process started after the folder was last changed.
        var status = stat()
        guard lstat(url.path, &status) == 0, let started = startTime(of: pid) else { return false }
        let changed = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
        return started > changed + 1
    }

    /// Removes the items of `folder` whose names start with `prefix` followed by a token of a process that is
    /// gone; returns how many were removed. Errors are ignored: collection is best effort. A save's `.old` and
    /// `.new` siblings are left to ``SafeSave/recover(at:)``: one may be the only copy of an interrupted save.
    @discardableResult
    package static func collectStale(in folder: URL, prefix: String) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return 0 }
        var removed = 0
        for name in names {
            guard !name.hasSuffix(".old"), !name.hasSuffix(".new"), let pid = owner(of: name, prefix: prefix) else { continue }
            let url = folder.appendingPathComponent(name)
            if isStale(url, owner: pid) {
                DocumentFiles.removeTree(url)
                removed += 1
            }
        }
        return removed
    }

    /// The prefix of the archive working copies ``DocumentContents`` makes in the temporary folder.
    static let contentsPrefix = "quire-contents-"
    /// The prefix of the working folders ``PersistentDocument`` makes in the temporary folder.
    static let documentPrefix = "quire-document-"

    /// A new private working folder in the temporary folder, named `<prefix>p<pid>-<uuid>`, after removing those
    /// of dead processes.
    static func makeTemporary(prefix: String) throws -> URL {
        let temporary = FileManager.default.temporaryDirectory
        collectStale(in: temporary, prefix: prefix)
        let folder = temporary.appendingPathComponent("\(prefix)p\(getpid())-\(UUID().uuidString)", isDirectory: true)
        try DocumentFiles.makeDirectory(folder, mode: 0o700)
        return folder
    }
}
