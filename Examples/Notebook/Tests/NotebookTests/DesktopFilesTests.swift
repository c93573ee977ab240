import Foundation
import NotebookKit
import Quire
import Testing

/// The desktop files of `Desktop/` (what the example's `make install` installs) do what they are for: the
/// shared-mime-info type recognises a saved notebook by its content, and Tracker, with the extract rule, reads the
/// notebook's title, tags and note titles, which is how the desktop's search finds it. Everything is installed in
/// a private folder (never the machine's), as the main suite's TrackerExtractTests does for Quire's own type.
@Suite(.enabled(if: TrackerTools.areInstalled, "needs tracker3, gio, update-mime-database and a session bus: run make example-test"))
struct DesktopFilesTests {
    static let desktop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Desktop")
    static let systemRules = TrackerTools.systemRules

    /// A notebook saved by the app's document class, as Save writes it (zip, SQLite).
    func saveNotebook(in folder: URL) throws -> URL {
        let document = try NotebookDocument.makeUntitled()
        document.managedObjectContext.performAndWait {
            document.setNotebookTitle("Trip to Lisbon")
            document.addNote(title: "Tram 28", tags: ["travel"])
            document.addNote(title: "Pastel de nata", tags: ["food"])
        }
        // A name that says nothing: the type must come from the content, as for a file sent by mail.
        let url = folder.appendingPathComponent("notes-backup")
        try document.save(to: url, format: .standard)
        document.close()
        return url
    }

    @Test func theMimeTypeAndTrackerRecogniseASavedNotebook() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notebook-desktop-\(UUID().uuidString)")
        let mime = folder.appendingPathComponent("share/mime")
        let rules = folder.appendingPathComponent("extract-rules")
        try FileManager.default.createDirectory(at: mime.appendingPathComponent("packages"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: Self.desktop.appendingPathComponent("org.quire.Notebook.mime.xml"),
            to: mime.appendingPathComponent("packages/org.quire.Notebook.mime.xml"))
        // TRACKER_EXTRACTOR_RULES_DIR replaces the whole folder: Debian's rules beside the Notebook's.
        for rule in try FileManager.default.contentsOfDirectory(atPath: Self.systemRules.path) where rule.hasSuffix(".rule") {
            try FileManager.default.copyItem(at: Self.systemRules.appendingPathComponent(rule), to: rules.appendingPathComponent(rule))
        }
        try FileManager.default.copyItem(at: Self.desktop.appendingPathComponent("10-quire-notes.rule"), to: rules.appendingPathComponent("10-quire-notes.rule"))
        let update = try Products.run(try #require(Products.tool("update-mime-database")), [mime.path])
        try #require(update.status == 0)
        let url = try saveNotebook(in: folder)
        let environment = ["XDG_DATA_HOME": folder.appendingPathComponent("share").path, "TRACKER_EXTRACTOR_RULES_DIR": rules.path]

        // GIO (what file managers and GTK's file chooser ask) types it by its magic.
        let info = try Products.run(try #require(Products.tool("gio")), ["info", "-a", "standard::content-type", url.path], environment: environment)
        #expect(info.output.contains("standard::content-type: application/x-quire-notes"), "gio info: \(info.output)")

        // Tracker's extractor reads the title (what a search for "Lisbon" finds), the tags and the note titles.
        let extract = try Products.run(
            try #require(Products.tool("tracker3")), ["extract", "--output-format", "json-ld", url.path], environment: environment)
        #expect(extract.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(extract.output.utf8)) as? [String: Any], "tracker3 extract: \(extract.output)")
        #expect(json["nie:title"] as? String == "Trip to Lisbon")
        let keywords = (json["nie:keyword"] as? [String]) ?? [json["nie:keyword"] as? String].compactMap { $0 }
        #expect(Set(keywords) == ["food", "travel"])
        let subject = try #require(json["nie:subject"] as? String)
        #expect(subject.components(separatedBy: "\n").sorted() == ["Pastel de nata", "Tram 28"])
    }
}

/// Whether Tracker's extractor and its helpers can run here.
enum TrackerTools {
    /// Debian's extract rules.
    static let systemRules = URL(fileURLWithPath: "/usr/share/tracker3-miners/extract-rules")
    static var areInstalled: Bool {
        ["tracker3", "gio", "update-mime-database"].allSatisfy { Products.tool($0) != nil }
            && FileManager.default.fileExists(atPath: systemRules.path)
            && ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil
    }
}
