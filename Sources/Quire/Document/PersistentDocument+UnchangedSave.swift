import QuireCore
import Foundation

extension PersistentDocument {
    /// Whether a save would write what the document's file already holds: a save (or autosave in place) over
    /// the document's own file, in its own type, of a document that is not edited (``isDocumentEdited``), whose
    /// search metadata and additional content are those last written, and whose file is still there.
    func isUnchangedSave(to url: URL, ofType typeName: String, for operation: SaveOperation) -> Bool {
        guard operation == .save || operation == .autosaveInPlace, typeName == fileType,
            let fileURL, fileURL.standardizedFileURL == url.standardizedFileURL,
            DocumentFiles.kind(of: url) != .missing, let saved = savedExtras, !isDocumentEdited
        else { return false }
        return saved.search == searchMetadata && saved.additionalContent == additionalContentFingerprint()
    }

    /// The additional content folder's files as `path size modification-time inode` lines, sorted: what
    /// tells whether the application changed a file there since the document was last written.
    func additionalContentFingerprint() -> [String] {
        let root = additionalContentURL
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var lines: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var status = stat()
            guard lstat(root.appendingPathComponent(relative).path, &status) == 0 else { continue }
            lines.append(
                "\(relative) \(status.st_size) \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec) \(status.st_ino) \(status.st_mode)")
        }
        return lines.sorted()
    }
}
