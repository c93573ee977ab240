import QuireCore
import QuireStores
import Foundation

extension DocumentContents {
    /// What a conversion copied.
    public struct ConversionSummary: Sendable, Hashable {
        /// The number of objects copied.
        public var objectCount: Int
        /// The number of external data files carried over.
        public var externalDataFiles: Int
        /// Their total size in bytes.
        public var externalDataBytes: Int64
        /// What the source had that the output could not hold, in words (`search metadata (title, keywords):
        /// a store file has none`); empty when everything was kept.
        public var notKept: [String] = []
    }

    /// Save As into any store type and container (what `quire convert` does): the store is migrated with
    /// ``PersistentStoreCoordinator/migratePersistentStore(_:to:options:type:progress:)`` into a hidden staging
    /// folder beside `output`, wrapped in a package or archive when asked, then renamed into place. Metadata and
    /// external data files are carried over; the new store gets a new UUID. So is what the document has besides
    /// its store, where the output can hold it (see ``extras()``): the search metadata's title, keywords,
    /// authors, description and indexed values, the package's other files, the extended attributes and the
    /// permission bits; ``ConversionSummary/notKept`` says what a store file output could not hold.
    ///
    /// ```swift
    /// let source = try DocumentContents(contentsOf: packageURL)
    /// defer { source.backend.close() }
    /// try source.convert(to: zipURL, container: .zipArchive, storeType: .xml)
    /// ```
    ///
    /// - Parameters:
    ///   - output: Where the result goes; for a store file, its external data goes to `.<name>_SUPPORT` beside.
    ///   - container: The output's container.
    ///   - storeType: The output's store type.
    ///   - mimeType: The MIME type of a new package or archive (default: this document's, else
    ///     `application/x-quire-document`).
    ///   - replacing: Whether an existing output is replaced (a file or a document package, never another
    ///     folder); otherwise it is an error.
    ///   - modelFile: The application's model, for a store that embeds none (a Mac store); see
    ///     ``ManagedObjectModel/forStore(at:type:modelFile:)``.
    ///   - willCopy: Called before the copy with the staging folder the new files appear in (for progress).
    ///   - didCopy: Called after the copy, whether it succeeded or not.
    ///   - progress: Called after each batch of objects copied with the number so far and the total.
    ///   - onProgress: Called at the start of each phase and as it goes (objects copied, archive bytes
    ///     written), from the calling thread or the copy's; see ``ConversionProgress``.
    /// - Returns: What was copied.
    /// - Throws: ``QuireError`` naming the file: the source's when it cannot be read or cannot be converted
    ///   faithfully (rows its model cannot represent, relationships that disagree with their inverses: what
    ///   ``StoreVerification`` reports about them), the output's (or a file in its staging folder) when the
    ///   result cannot be written. Nothing is left behind on failure.
    @discardableResult
    public func convert(
        to output: URL, container: Container, storeType: StoreType, mimeType: String? = nil, replacing: Bool = false,
        modelFile: URL? = nil,
        willCopy: (URL) -> Void = { _ in }, didCopy: () -> Void = {},
        progress: (@Sendable (_ copied: Int, _ total: Int) -> Void)? = nil,
        onProgress: (@Sendable (ConversionProgress) -> Void)? = nil
    ) throws -> ConversionSummary {
        let staging = SafeSave.sibling(of: output, token: SafeSave.newToken(), suffix: "convert")
        do {
            return try convert(
                to: output, staging: staging, container: container, storeType: storeType, mimeType: mimeType,
                replacing: replacing, modelFile: modelFile, willCopy: willCopy, didCopy: didCopy, progress: progress,
                onProgress: onProgress)
        } catch let error as QuireError {
            // The staging folder and an archive's working copy are private: errors name the output being written
            // and the document's entries instead.
            let output = Self.renamingFiles(in: error, under: staging, file: output) { _ in output.path }
            throw errorNamingDocument(output)
        }
    }

    private func convert(
        to output: URL, staging: URL, container: Container, storeType: StoreType, mimeType: String?, replacing: Bool,
        modelFile: URL?, willCopy: (URL) -> Void, didCopy: () -> Void,
        progress: (@Sendable (_ copied: Int, _ total: Int) -> Void)?,
        onProgress: (@Sendable (ConversionProgress) -> Void)?
    ) throws -> ConversionSummary {
        onProgress?(ConversionProgress(phase: .verifying))
        if !replacing && DocumentFiles.kind(of: output) != .missing {
            throw QuireError(
                .fileWriteUnknown, "'\(output.path)' already exists; replace it or choose a new location.",
                context: .init(file: output))
        }
        try Self.checkReplaceable(output)
        let (found, source) = try ManagedObjectModel.forStore(at: storeURL, type: self.storeType, modelFile: modelFile)
        let model = found
        try InspectedStore.checkModel(model, from: source, forStoreAt: storeURL, type: self.storeType)
        // A source with rows the model cannot represent, or with relationships that disagree with their
        // inverses, would be converted into a store that loses, dangles or silently settles them: refused,
        // naming the first, for every source type (what `quire verify` reports).
        try StoreVerification.checkConvertible(storeAt: storeURL, type: self.storeType, model: model)
        let inspected = try InspectedStore(at: storeURL, type: self.storeType, modelFile: modelFile)
        defer { inspected.close() }
        let coordinator = inspected.coordinator
        let store = inspected.store
        try StoreVerification.checkConvertible(store, in: coordinator)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let objectCount = try context.performAndWait {
            var count = 0
            for entity in model.entities where entity.superentity == nil {
                count += try context.count(for: FetchRequest<ManagedObject>(entityName: entity.name))
            }
            return count
        }
        let blobs = externalDataFiles()
        let blobBytes = blobs.reduce(0) { $0 + $1.size }
        let extras = try self.extras()
        var notKept: [String] = []
        if container == .storeFile {
            let fields = extras.searchMetadataFields
            if !fields.isEmpty {
                notKept.append("search metadata (\(fields.joined(separator: ", "))): a store file has none")
            }
            let files = extras.packageFiles.filter { !$0.hasSuffix("/") }
            if !files.isEmpty {
                let shown = files.prefix(3).joined(separator: ", ") + (files.count > 3 ? " and \(files.count - 3) more" : "")
                notKept.append("package files \(shown): a store file holds no other files")
            }
        }
        onProgress?(ConversionProgress(phase: .copyingStore, objectCount: objectCount))

        // Staging folders of conversions that were killed are removed first.
        WorkingFolders.collectStale(in: output.deletingLastPathComponent(), prefix: "." + output.lastPathComponent + SafeSave.marker)
        do {
            try DocumentFiles.makeDirectory(staging, mode: 0o700)
        } catch let error as QuireError {
            // The output is built beside where it goes: a folder that takes no new entry refuses it.
            let reason = (error.underlying as? SystemCallError).map { String(cString: strerror($0.code)).lowercased() }
            throw QuireError(
                error.code,
                "'\(output.path)' cannot be written: its folder '\(output.deletingLastPathComponent().path)' does not "
                    + "take new files" + (reason.map { " (\($0))" } ?? "") + ".",
                context: .init(file: output), underlying: error.underlying)
        }
        defer { DocumentFiles.removeTree(staging) }
        let work = staging.appendingPathComponent("work", isDirectory: true)
        try DocumentFiles.makeDirectory(work, mode: 0o700)
        let storeName = container == .storeFile ? output.lastPathComponent : DocumentPackageLayout.storeFileName
        let target = work.appendingPathComponent(storeName)
        var options = StoreOptions()
        options.journalMode = .delete
        willCopy(work)
        var copyProgress = progress
        if let onProgress {
            copyProgress = { copied, total in
                progress?(copied, total)
                onProgress(ConversionProgress(phase: .copyingStore, objectsCopied: copied, objectCount: total))
            }
        }
        do {
            defer { didCopy() }
            let migrated = try coordinator.migratePersistentStore(
                store, to: target, options: options, type: storeType, progress: copyProgress)
            try coordinator.remove(migrated)
        }
        let mimeType = mimeType ?? self.mimeType ?? "application/x-quire-document"
        onProgress?(
            ConversionProgress(
                phase: .copyingExternalData, objectsCopied: objectCount, objectCount: objectCount, bytesTotal: blobBytes))
        let finishing = ConversionProgress(phase: .finishing, objectsCopied: objectCount, objectCount: objectCount)
        switch container {
        case .storeFile:
            onProgress?(finishing)
            let support = StoreKinds.supportFolder(forStore: target, type: storeType)
            let outputSupport = StoreKinds.supportFolder(forStore: output, type: storeType)
            if DocumentFiles.kind(of: support) == .directory {
                if DocumentFiles.kind(of: outputSupport) != .missing {
                    // Only the folder of the store being replaced goes; without that store it is another's.
                    guard replacing, DocumentFiles.kind(of: output).isFile else {
                        throw QuireError(
                            .fileWriteUnknown,
                            "'\(outputSupport.path)' already exists" + (replacing ? " and is not the folder of a store at '\(output.path)'" : "")
                                + "; choose a new location.",
                            context: .init(file: outputSupport))
                    }
                    DocumentFiles.removeTree(outputSupport)
                }
                notKept += Self.apply(extras, to: target)
                try Self.moveIntoPlace(target, to: output)
                do {
                    try DocumentFiles.rename(support, to: outputSupport)
                } catch {
                    DocumentFiles.removeTree(output)
                    throw error
                }
            } else {
                notKept += Self.apply(extras, to: target)
                try Self.moveIntoPlace(target, to: output)
            }
        case .package:
            let built = staging.appendingPathComponent("package", isDirectory: true)
            try Self.writePackage(
                at: built, storeAt: target, mimeType: mimeType, objectCount: objectCount, storeType: storeType,
                extras: extras, extrasPackage: packageURL)
            notKept += Self.apply(extras, to: built)
            onProgress?(finishing)
            try Self.moveIntoPlace(built, to: output)
        case .zipArchive, .tarArchive:
            let built = staging.appendingPathComponent("package", isDirectory: true)
            try Self.writePackage(
                at: built, storeAt: target, mimeType: mimeType, objectCount: objectCount, storeType: storeType,
                extras: extras, extrasPackage: packageURL)
            let file = staging.appendingPathComponent("archive")
            try Self.writeArchive(
                ofPackage: built, to: file, format: container.documentFormat ?? .zipArchive,
                progress: onProgress.map { report in
                    { written, total in
                        report(
                            ConversionProgress(
                                phase: .writingArchive, objectsCopied: objectCount, objectCount: objectCount,
                                bytesDone: written, bytesTotal: total))
                    }
                })
            onProgress?(finishing)
            notKept += Self.apply(extras, to: file)
            try Self.moveIntoPlace(file, to: output)
        }
        try DocumentFiles.fsyncDirectory(output.deletingLastPathComponent())
        return ConversionSummary(
            objectCount: objectCount, externalDataFiles: blobs.count, externalDataBytes: blobBytes, notKept: notKept)
    }

    /// Renames a finished file or folder over `destination`, removing what was there (a file or a document
    /// package: see ``checkReplaceable(_:)``).
    static func moveIntoPlace(_ built: URL, to destination: URL) throws {
        try checkReplaceable(destination)
        if DocumentFiles.kind(of: destination) != .missing { DocumentFiles.removeTree(destination) }
        try DocumentFiles.rename(built, to: destination)
    }
}
