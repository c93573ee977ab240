import Foundation
import Testing

/// The Notebook app running in a process of its own, driven like a user would drive it but without a mouse:
/// through the actions its menus and keys activate, which GApplication exports on the session bus
/// (`org.gtk.Actions` at `/org/quire/Notebook` for the app, `/org/quire/Notebook/window/1` for the first
/// window), called with `gdbus`. The window's `status` action holds a JSON summary of what it shows.
final class NotebookApp {
    /// What the window's `status` action reports (`DocumentWindow.Status`).
    struct Status: Decodable {
        var title: String
        var notebookTitle: String
        var file: String?
        var format: String
        var edited: Bool
        var readOnly: Bool
        var notes: Int
        var rows: [String]
        var selected: String?
        var selectedHasImage: Bool
        var canUndo: Bool
        var canRedo: Bool
        var undoTitle: String
        var importing: Bool
        var listRounds: Int
        var message: String
        var autosaved: String?
    }

    let process = Process()
    let gdbus: URL

    /// Starts the app with a private home (settings, recent files, autosaves) and waits for its first window.
    init(arguments: [String] = [], home: URL, autosaveSeconds: Int = 3600) throws {
        let notebook = try #require(Products.executable("notebook"), "notebook is not built; run swift build --build-tests")
        gdbus = try #require(Products.tool("gdbus"), "gdbus (libglib2.0-bin) is missing")
        for folder in ["data", "config", "cache"] {
            try FileManager.default.createDirectory(at: home.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        process.executableURL = notebook
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging([
            "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            "NOTEBOOK_AUTOSAVE_SECONDS": "\(autosaveSeconds)",
            // Xvfb has no GPU: GTK's cairo renderer draws in software, the same on every machine.
            "GSK_RENDERER": "cairo", "GDK_BACKEND": "x11", "GTK_A11Y": "none",
        ]) { $1 }
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try waitFor("the first window") { _ in true }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Runs `gdbus call` on the app's bus name; returns its output, or nil when the call failed.
    @discardableResult
    func call(_ path: String, _ method: String, _ arguments: [String]) throws -> String? {
        let (status, output) = try Products.run(
            gdbus, ["call", "--session", "--dest", "org.quire.Notebook", "--object-path", path, "--method", method] + arguments,
            quiet: true)
        return status == 0 ? output : nil
    }

    /// Activates a window action (`parameter` in GVariant text, such as `'Tram 28'` or `uint32 500`).
    func window(_ action: String, _ parameter: String? = nil) throws {
        let done = try call("/org/quire/Notebook/window/1", "org.gtk.Actions.Activate", [action, parameter.map { "[<\($0)>]" } ?? "[]", "{}"])
        try #require(done != nil, "win.\(action) failed")
    }

    /// Activates an app action.
    func app(_ action: String, _ parameter: String? = nil) throws {
        let done = try call("/org/quire/Notebook", "org.gtk.Actions.Activate", [action, parameter.map { "[<\($0)>]" } ?? "[]", "{}"])
        try #require(done != nil, "app.\(action) failed")
    }

    /// Whether a window action is enabled now.
    func isEnabled(_ action: String) throws -> Bool {
        let text = try #require(try call("/org/quire/Notebook/window/1", "org.gtk.Actions.Describe", [action]))
        return text.hasPrefix("((true,")
    }

    /// The window's status, or nil while there is no window.
    func status() throws -> Status? {
        guard let text = try call("/org/quire/Notebook/window/1", "org.gtk.Actions.Describe", ["status"]),
            let start = text.range(of: "[<'"), let end = text.range(of: "'>]", options: .backwards)
        else { return nil }
        // gdbus prints the string in GVariant text: ' and \ are escaped with \.
        var json = String(text[start.upperBound..<end.lowerBound])
        json = json.replacingOccurrences(of: "\\'", with: "'").replacingOccurrences(of: "\\\\", with: "\\")
        return try? JSONDecoder().decode(Status.self, from: Data(json.utf8))
    }

    /// Waits (a minute at most) until the status satisfies `condition`, and returns it. Polling, not timing:
    /// the app does each thing as soon as it can; the test only waits to see it.
    @discardableResult
    func waitFor(_ what: String, _ condition: (Status) -> Bool) throws -> Status {
        let deadline = Date().addingTimeInterval(60)
        var last: Status?
        while Date() < deadline {
            if let status = try status() {
                last = status
                if condition(status) { return status }
            }
            try #require(process.isRunning, "the app exited (\(process.terminationStatus)) while waiting for \(what)")
            Thread.sleep(forTimeInterval: 0.1)
        }
        Issue.record("Waited a minute for \(what); the window last said \(String(describing: last))")
        throw CancellationError()
    }

    /// Quits through the app's Quit action and waits for the process to end.
    func quit() throws -> Int32 {
        try app("quit")
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        try #require(!process.isRunning, "the app did not quit")
        return process.terminationStatus
    }
}
