import Foundation
import NotebookKit
import Quire
import Testing

/// The Notebook used as a person uses it, under Xvfb (`make example-test` runs the suite in `xvfb-run` and
/// `dbus-run-session`): the app runs in its own process, the test activates the actions the menus and keys
/// activate, reads what the window shows, saves, quits, checks the files with `quire verify` and `quire diff`,
/// opens them again. The screenshots (`.build/notebook-test/*.png`, also the article's pictures) are checked not
/// to be blank.
///
/// Without a display or a session bus (a plain `swift test`) these tests are skipped: they need both.
@Suite(.serialized, .enabled(if: Desktop.isAvailable, "needs DISPLAY and a D-Bus session bus: run make example-test"))
struct UserSessionTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("notebook-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: Products.artifacts, withIntermediateDirectories: true)
    }

    func quire(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let quire = try #require(Products.executable("quire"), "quire is not built in this package: run make example-test")
        return try Products.run(quire, arguments)
    }

    @Test func writeSaveQuitAndReopenANotebook() throws {
        let home = folder.appendingPathComponent("home")
        let zip = folder.appendingPathComponent("Lisbon.quirenotes")
        let package = folder.appendingPathComponent("Lisbon (package).quirenotes")
        let photo = folder.appendingPathComponent("tram.png")
        try Screenshots.writePhoto(to: photo)

        do {
            let app = try NotebookApp(home: home)
            var status = try app.waitFor("an empty notebook") { $0.notes == 0 && $0.file == nil }
            #expect(status.title == "Untitled — Notebook")
            #expect(!status.edited)

            // Title, two notes: the title shows the edited mark.
            try app.window("set-title", "'Trip to Lisbon'")
            try app.window("new-note", "'Pastel de nata'")
            try app.window("new-note", "'Tram 28'")
            status = try app.waitFor("two notes") { $0.rows.count == 2 }
            #expect(status.rows == ["Pastel de nata", "Tram 28"])
            #expect(status.edited)
            #expect(status.title == "*Untitled — Notebook")
            #expect(status.notebookTitle == "Trip to Lisbon")
            #expect(status.undoTitle == "Undo Add Note")

            // Undo and redo, as Edit ▸ Undo and Ctrl+Shift+Z do.
            try app.window("undo")
            status = try app.waitFor("the undone note gone") { $0.rows.count == 1 }
            #expect(status.rows == ["Pastel de nata"])
            #expect(status.canRedo)
            try app.window("redo")
            status = try app.waitFor("the note back") { $0.rows.count == 2 }
            #expect(status.rows == ["Pastel de nata", "Tram 28"])

            // The search field sets the controller's predicate.
            try app.window("search", "'tram'")
            status = try app.waitFor("the search's one row") { $0.rows == ["Tram 28"] }
            #expect(status.notes == 2)
            try app.window("search", "''")
            try app.waitFor("both rows again") { $0.rows.count == 2 }

            // An image for the selected note (the one just added), stored as external data.
            try app.window("new-note", "'Tram 28 photo'")
            try app.waitFor("the photo note selected") { $0.selected == "Tram 28 photo" }
            try app.window("attach-image", "'\(photo.path)'")
            status = try app.waitFor("the image attached") { $0.selectedHasImage }
            #expect(status.undoTitle == "Undo Attach Image")
            try app.app("screenshot", "'\(Products.artifacts.appendingPathComponent("notebook-editing.png").path)'")

            // A background import: the list follows the merges batch by batch while the window answers.
            let roundsBefore = status.listRounds
            try app.window("import", "uint32 1000")
            status = try app.waitFor("the import finished") { !$0.importing && $0.notes == 1003 && $0.rows.count == 1003 }
            // The rows came as the controller's changes after each merged batch (how many rounds depends on how
            // the merges fell between the loop's iterations), not from a reload.
            #expect(status.listRounds > roundsBefore)
            #expect(status.undoTitle == "Undo Import Notes")

            // Save As a zip with an SQLite store: the edited mark goes.
            try app.window("save-as-file", "('zip', 'sqlite', '\(zip.path)')")
            status = try app.waitFor("saved") { $0.file == zip.path && !$0.edited }
            #expect(status.title == "Lisbon.quirenotes — Notebook")
            try app.window("search", "'tram'")
            try app.waitFor("the search") { $0.rows.count < 1003 }
            let shot = Products.artifacts.appendingPathComponent("notebook-window.png")
            try app.app("screenshot", "'\(shot.path)'")
            try app.window("search", "''")
            try app.waitFor("all rows") { $0.rows.count == 1003 }

            // Save As again, as a package with an XML store: the same notebook in another format.
            try app.window("save-as-file", "('package', 'xml', '\(package.path)')")
            status = try app.waitFor("saved as a package") { $0.file == package.path && !$0.edited }
            #expect(status.format == "Notebook (package, XML)")
            #expect(try app.quit() == 0)
            try Screenshots.expectNotBlank(shot)
            try Screenshots.expectNotBlank(Products.artifacts.appendingPathComponent("notebook-editing.png"))
        }

        // The files, checked by Quire's own tool: sound, and the same object graph in both formats.
        for url in [zip, package] {
            let (status, output) = try quire(["verify", url.path])
            #expect(status == 0, "quire verify \(url.lastPathComponent): \(output)")
        }
        let diff = try quire(["diff", zip.path, package.path])
        #expect(diff.status == 0, "quire diff: \(diff.output)")
        // The photo is a file beside the store in the zip (_EXTERNAL_DATA), not a blob in it.
        let info = try quire(["info", zip.path])
        #expect(info.status == 0)
        #expect(info.output.contains("EXTERNAL_DATA") || info.output.lowercased().contains("external data"), "quire info: \(info.output)")

        // Reopened (as the desktop opens a file: `notebook FILE`), edited, reverted.
        do {
            let app = try NotebookApp(arguments: [zip.path], home: home)
            var status = try app.waitFor("the saved notebook") { $0.file == zip.path && $0.notes == 1003 }
            #expect(status.notebookTitle == "Trip to Lisbon")
            #expect(!status.edited)
            #expect(status.format == "Notebook (zip, SQLite)")

            // A note deleted, then File ▸ Revert to Saved, confirmed in its alert: the note is back.
            try app.window("select-note", "'Pastel de nata'")
            try app.waitFor("the note selected") { $0.selected == "Pastel de nata" }
            try app.window("delete-note")
            try app.waitFor("the note deleted") { $0.notes == 1002 && $0.edited && !$0.rows.contains("Pastel de nata") }
            try app.window("revert")
            try app.app("alert-button", "'Revert'")
            status = try app.waitFor("the revert") { $0.message == "Reverted" }
            #expect(status.notes == 1003)
            #expect(!status.edited)
            #expect(status.rows.contains("Pastel de nata"))
            #expect(try app.quit() == 0)
        }

        // Reopened with autosave every second (NOTEBOOK_AUTOSAVE_SECONDS=1): a new note is written in place without
        // a Save, and the selection survives the save (the note keeps its ID).
        do {
            let app = try NotebookApp(arguments: [zip.path], home: home, autosaveSeconds: 1)
            try app.waitFor("the saved notebook") { $0.file == zip.path && $0.notes == 1003 }
            try app.window("new-note", "'Ginjinha'")
            try app.waitFor("the new note selected") { $0.selected == "Ginjinha" }
            let status = try app.waitFor("the autosave") { $0.notes == 1004 && !$0.edited && $0.message == "Autosaved" }
            #expect(status.selected == "Ginjinha", "the autosave lost the selection")
            #expect(try app.quit() == 0)
        }
        let after = try quire(["verify", zip.path])
        #expect(after.status == 0, "quire verify after autosave: \(after.output)")
        // The autosave wrote the new note into the zip; the package saved before it does not have it.
        let changed = try quire(["diff", zip.path, package.path])
        #expect(changed.status == 1)
        #expect(changed.output.contains("Ginjinha"), "quire diff: \(changed.output)")
    }

    /// A Core Data store as a Mac's `NSPersistentDocument` saves it (a bare SQLite file of the same model,
    /// written here by Quire, whose SQLite layout is Core Data's) opens read-only with the note saying so.
    @Test func aStoreFromAMacOpensReadOnly() throws {
        let store = folder.appendingPathComponent("Recipes.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: NotebookModel.shared)
        try coordinator.addPersistentStore(type: .sqlite, at: store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let notebook = ManagedObject(entity: try #require(NotebookModel.shared.entitiesByName[NotebookModel.notebook]), insertInto: context)
            notebook.setValue("Recipes from the Mac", forKey: "title")
            for title in ["Bacalhau", "Caldo verde"] {
                let note = ManagedObject(entity: try #require(NotebookModel.shared.entitiesByName[NotebookModel.note]), insertInto: context)
                note.setValue(title, forKey: "title")
            }
            try context.save()
        }
        // The context is gone but the coordinator still holds the store open, as a running Mac app would: the
        // last transactions may still be in Recipes.sqlite-wal.
        let files = [store.path, store.path + "-wal"].filter { FileManager.default.fileExists(atPath: $0) }
        let before = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }

        let app = try NotebookApp(arguments: [store.path], home: folder.appendingPathComponent("home"))
        let status = try app.waitFor("the Mac store") { $0.readOnly && $0.notes == 2 }
        #expect(status.title == "Recipes.sqlite (read-only) — Notebook")
        #expect(status.notebookTitle == "Recipes from the Mac")
        #expect(status.rows == ["Bacalhau", "Caldo verde"])
        #expect(try !app.isEnabled("new-note"))
        #expect(try !app.isEnabled("save"))
        let shot = Products.artifacts.appendingPathComponent("notebook-read-only.png")
        try app.app("screenshot", "'\(shot.path)'")
        #expect(try app.quit() == 0)
        try Screenshots.expectNotBlank(shot)
        #expect(try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before, "the Mac's files were written")
        _ = coordinator
    }
}

/// Whether the tests can show windows and reach a session bus.
enum Desktop {
    static var isAvailable: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["DISPLAY"] != nil && environment["DBUS_SESSION_BUS_ADDRESS"] != nil
    }
}
