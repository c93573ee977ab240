import QuireCore
import Foundation

extension DocumentType.Format {
    /// The format in words, as messages name it: "package", "zip archive", "tar archive".
    package var displayName: String {
        switch self {
        case .package: return "package"
        case .zipArchive: return "zip archive"
        case .tarArchive: return "tar archive"
        }
    }
}

extension PersistentDocument {
    /// An error from reading the document's working copy, restated in the terms of the document the user
    /// opened: the working copy's private path (in `$TMPDIR`) becomes the document's, and advice given in a
    /// coordinator's terms (store options passed to `addPersistentStore`) names the document type's
    /// ``DocumentType/storeOptions`` instead.
    ///
    /// - Parameters:
    ///   - error: What opening or reverting threw.
    ///   - url: The document's location.
    /// - Returns: The error to throw.
    func documentError(_ error: any Error, openedFrom url: URL) -> any Error {
        guard var failure = error as? QuireError else { return error }
        let workingStore = workingStoreURL.path
        let working = workingFolder.path
        let typeName = fileType
        guard failure.message.contains(working) || failure.context.file?.path.hasPrefix(working) == true else { return error }
        var message = failure.message.replacingOccurrences(of: "The store '\(workingStore)'", with: "The document '\(url.path)'")
        message = message.replacingOccurrences(of: "the store '\(workingStore)'", with: "the document '\(url.path)'")
        message = message.replacingOccurrences(of: workingStore, with: url.path)
        message = message.replacingOccurrences(of: workingTree.path, with: url.path)
        let options = "the storeOptions of its document type '\(typeName)' (DocumentType.storeOptions)"
        message = message.replacingOccurrences(
            of: PersistentStoreCoordinator.migrationOptionsAdvice,
            with: "set migratesAutomatically and infersMappingModel in \(options) to migrate it when it is opened.")
        message = message.replacingOccurrences(
            of: PersistentStoreCoordinator.mappingOptionAdvice, with: "set infersMappingModel in \(options).")
        failure.message = message
        if failure.context.file?.path.hasPrefix(working) == true { failure.context.file = url }
        return failure
    }
}
