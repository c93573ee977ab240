import Dispatch
import Foundation
import Quire
import QuireSupport

/// Removes the tool's private and staging folders when it is interrupted (SIGINT, Ctrl-C) or told to stop
/// (SIGTERM), then ends with the conventional status 128 + the signal's number. Folders are registered as
/// they are made; the library's own staging folders beside an output (`.NAME.quire-TOKEN.*`) are found by
/// their name in the folders registered with ``watch(_:)``.
enum CleanupOnSignal {
    private static let state = LockedValue<(folders: [URL], watched: [URL], sources: [any DispatchSourceSignal])>(([], [], []))

    /// Installs the handlers (once, at start).
    static func install() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global(qos: .userInitiated))
            source.setEventHandler { cleanUpAndExit(number) }
            source.resume()
            state.withLock { $0.sources.append(source) }
        }
    }

    /// Removes `folder` on a signal.
    static func register(_ folder: URL) {
        state.withLock { $0.folders.append(folder) }
    }

    /// Removes the staging folders a conversion makes beside `output` on a signal.
    static func watch(_ output: URL) {
        state.withLock { $0.watched.append(output) }
    }

    private static func cleanUpAndExit(_ number: Int32) {
        let (folders, watched) = state.withLock { ($0.folders, $0.watched) }
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
        for output in watched {
            let parent = output.deletingLastPathComponent()
            let prefix = "." + output.lastPathComponent + ".quire-"
            let token = "p\(getpid())-"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] where name.hasPrefix(prefix) {
                // Only this process's own folders (their token starts with its process ID).
                if name.dropFirst(prefix.count).hasPrefix(token) {
                    try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
                }
            }
        }
        if isatty(STDERR_FILENO) == 1 { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
        printError("quire: interrupted; nothing was written.")
        _exit(128 + number)
    }
}
