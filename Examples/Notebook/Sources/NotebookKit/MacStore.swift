import Foundation
import Quire

/// Stores from a Mac: a Mac app with the Notebook's model (the same entities, attributes and relationships)
/// saves its documents as bare Core Data stores (`NSPersistentDocument` writes the store file itself, SQLite, XML
/// or binary). The Notebook opens such a file read-only (``NotebookDocument/open(_:)``): it never writes to
/// the Mac's file, and Save As makes a notebook of its content.
public enum MacStore {
    /// The note the window shows above a document opened from a Mac store.
    public static func note(for url: URL) -> String {
        "“\(url.lastPathComponent)” is a Core Data store from a Mac. It is open read-only: "
            + "use Save As to keep it as a notebook you can edit."
    }
}
