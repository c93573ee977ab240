import QuireCore
import Foundation

extension DocumentContents {
    /// Checks that what is at `output` may be replaced by a new document (`quire convert --force`, `pack` and
    /// `unpack`): nothing, a file (a store file or an archive) or a link, or a Quire document package (a folder
    /// with a `mimetype` file and a `StoreContent` folder). A folder of any other kind is the user's and is
    /// never removed: write the output inside it by naming it there.
    ///
    /// - Throws: ``QuireError/Code/fileWriteUnknown`` naming the folder when it is not a document package.
    package static func checkReplaceable(_ output: URL) throws {
        switch DocumentFiles.kind(of: output) {
        case .missing, .file, .symbolicLink:
            return
        case .directory:
            let isPackage = DocumentFiles.kind(of: output.appendingPathComponent(DocumentPackageLayout.mimetype)).isFile
                && DocumentFiles.kind(of: output.appendingPathComponent(DocumentPackageLayout.storeContent)) == .directory
            if isPackage { return }
            throw QuireError(
                .fileWriteUnknown,
                "'\(output.path)' is a folder, not a document package (it has no mimetype and StoreContent/); it is "
                    + "never replaced: name the output inside it instead.",
                context: .init(file: output))
        case .other:
            throw QuireError(
                .fileWriteUnknown, "'\(output.path)' is neither a file nor a document package; it is never replaced.",
                context: .init(file: output))
        }
    }
}

extension DocumentFiles.Kind {
    /// Whether the path is a regular file.
    var isFile: Bool {
        if case .file = self { return true }
        return false
    }
}
