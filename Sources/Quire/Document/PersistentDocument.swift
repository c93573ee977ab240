import QuireCore
import QuireStores
import Foundation

/// A document whose content is an object graph in one store (`NSPersistentDocument`): one coordinator, one
/// store, one context, saved as a file package or a flat archive with the safe-save protocol.
///
/// ```swift
/// DocumentTypeRegistry.shared.register(
///     DocumentType(name: "Notebook", mimeType: "application/x-notebook", extensions: ["notebook"], format: .zipArchive))
///
/// let document = try PersistentDocument(type: "Notebook", model: model)
/// let context = document.managedObjectContext
/// try context.performAndWait {
///     let note = ManagedObject(entity: noteEntity, insertInto: context)
///     note.setValue("Groceries", forKey: "title")
/// }
/// document.searchMetadata.title = "My notes"
/// try document.save(to: URL(fileURLWithPath: "Notes.notebook"), ofType: "Notebook", for: .saveAs)
/// document.close()
///
/// let reopened = try PersistentDocument(contentsOf: URL(fileURLWithPath: "Notes.notebook"), ofType: "Notebook", model: model)
/// ```
///
/// The open store lives in a private working folder (mode 0700); the document on disk changes only when it is
/// saved, by building the new version beside the old and swapping it in, so a crash at any instant leaves the
/// old version or the new one. Saving the context alone (`context.save()`) writes the working store; the
/// document stays edited until ``save()``.
///
/// Subclasses override the hooks Core Data has: ``configurePersistentStoreCoordinator(for:ofType:modelConfiguration:storeOptions:)``,
/// ``persistentStoreType(forFileType:)``, ``read(from:ofType:)``, ``write(to:ofType:for:originalContentsURL:)``,
/// and ``writeAdditionalContent(to:originalContentsURL:)`` / ``readAdditionalContent(from:)`` for content
/// beside the store (like `UIManagedDocument`'s).
///
/// A document, like its context, is used from one thread at a time; it is not `Sendable`.
open class PersistentDocument {
    /// What a save does (`NSDocument.SaveOperationType`).
    public enum SaveOperation: Sendable, Hashable {
        /// Writes the document over its file.
        case save
        /// Writes the document to a new location and type, which become the document's.
        case saveAs
        /// Writes a copy; the document stays where it is.
        case saveTo
        /// Writes the document over its file, as an autosave.
        case autosaveInPlace
        /// Writes the document to a separate autosave location (``autosavedContentsFileURL``).
        case autosaveElsewhere
    }

    /// The model of the document's store.
    public let managedObjectModel: ManagedObjectModel
    /// The document's context (a private-queue context; use `performAndWait`).
    public let managedObjectContext: ManagedObjectContext
    /// The document's coordinator.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// Where the document lives; `nil` until a new document is first saved.
    public internal(set) var fileURL: URL?
    /// The name of the document's type (a ``DocumentType/name``).
    public internal(set) var fileType: String
    /// Where the last autosave elsewhere wrote the document, if any.
    public internal(set) var autosavedContentsFileURL: URL?
    /// The title, keywords, authors and comment written into the search metadata at every save.
    public var searchMetadata = SearchMetadata()
    /// The limits on what opening or reverting a flat archive may expand to.
    public var archiveLimits = ArchiveLimits()
    /// Warnings of the last save (such as a filesystem refusing extended attributes); the save succeeded.
    public internal(set) var lastSaveWarnings: [String] = []
    /// Called with each warning of a save (by default printed to standard error).
    public var warningHandler: @Sendable (String) -> Void = { message in
        FileHandle.standardError.write(Data("Quire warning: \(message)\n".utf8))
    }

    /// The private folder holding the working copy of the document (removed by ``close()``).
    let workingFolder: URL
    /// The working copy's package tree.
    var workingTree: URL { workingFolder.appendingPathComponent("Document", isDirectory: true) }
    /// The working store.
    var workingStoreURL: URL { workingTree.appendingPathComponent(DocumentPackageLayout.storePath) }
    /// The context's save count when the document was last written to its file.
    var savedGeneration = 0
    /// The undo manager and its ``UndoManager/changePosition`` when the document was last written to its
    /// file (or opened): while the same undo manager is set, the document is edited when its position differs.
    var savedUndoPosition: (manager: ObjectIdentifier, position: Int)?
    /// Whether package saves swap versions with `renameat2(RENAME_EXCHANGE)` (the default, falling back to
    /// two renames where the filesystem cannot exchange). Set it to `false` to always use two renames, whose
    /// interruption the next open recovers from.
    public var usesRenameExchange = true
    /// The search metadata and the additional content's fingerprint when the document was last written to its
    /// file (or opened): a save that finds both, and the objects, unchanged writes nothing.
    var savedExtras: (search: SearchMetadata, additionalContent: [String])?
    /// The search metadata of the save in progress, gathered once for the files and the attributes.
    var metadataForSave: SearchMetadata?
    /// The autosave folder, when set.
    var customAutosaveDirectory: URL?
    /// Whether ``close()`` ran.
    public private(set) var isClosed = false

    /// The registry of document types this class reads and writes; override to use another.
    open class var documentTypes: DocumentTypeRegistry { .shared }

    // MARK: Creating and opening

    /// Creates a new, untitled document of a type (`init(type:)`), with an empty store.
    ///
    /// - Parameters:
    ///   - typeName: The name of a registered ``DocumentType``.
    ///   - model: The model of the document's objects.
    /// - Throws: ``QuireError/Code/unknownDocumentType``, ``QuireError/Code/invalidModel``, or a store error.
    public init(type typeName: String, model: ManagedObjectModel) throws {
        let type = try Self.documentTypes.type(named: typeName)
        managedObjectModel = model
        persistentStoreCoordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        managedObjectContext = ManagedObjectContext(concurrencyType: .privateQueue)
        fileType = typeName
        workingFolder = try Self.makeWorkingFolder()
        managedObjectContext.persistentStoreCoordinator = persistentStoreCoordinator
        managedObjectContext.undoManager = UndoManager()
        do {
            try makeEmptyWorkingTree()
            try configurePersistentStoreCoordinator(
                for: workingStoreURL, ofType: typeName, modelConfiguration: type.modelConfiguration, storeOptions: type.storeOptions)
        } catch {
            DocumentFiles.removeTree(workingFolder)
            throw error
        }
        noteSavedState()
    }

    /// Opens a document (`init(contentsOf:ofType:)`): finishes an interrupted save if there was one, checks
    /// the content against the type (a package's `mimetype`, an archive's first entry), copies a package or
    /// extracts an archive into a private working folder, and adds the store.
    ///
    /// - Parameters:
    ///   - url: The document package or archive.
    ///   - typeName: The name of a registered ``DocumentType``.
    ///   - model: The model of the document's objects.
    ///   - archiveLimits: What opening a flat archive may expand to (also used by ``revert()``).
    /// - Throws: ``QuireError/Code/documentTypeMismatch`` when the content is another type's,
    ///   ``QuireError/Code/invalidPackage``, ``QuireError/Code/invalidArchive``,
    ///   ``QuireError/Code/archiveUnsafeEntry``, ``QuireError/Code/archiveLimitExceeded``, or a store error;
    ///   nothing is written outside the working folder, which is removed.
    public init(
        contentsOf url: URL, ofType typeName: String, model: ManagedObjectModel, archiveLimits: ArchiveLimits = ArchiveLimits()
    ) throws {
        _ = try Self.documentTypes.type(named: typeName)
        self.archiveLimits = archiveLimits
        managedObjectModel = model
        persistentStoreCoordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        managedObjectContext = ManagedObjectContext(concurrencyType: .privateQueue)
        fileType = typeName
        fileURL = url
        workingFolder = try Self.makeWorkingFolder()
        managedObjectContext.persistentStoreCoordinator = persistentStoreCoordinator
        managedObjectContext.undoManager = UndoManager()
        do {
            try loadWorkingTree(from: url, typeName: typeName)
            try read(from: workingTree, ofType: typeName)
        } catch {
            DocumentFiles.removeTree(workingFolder)
            throw documentError(error, openedFrom: url)
        }
        noteSavedState()
    }

    deinit {
        if !isClosed { DocumentFiles.removeTree(workingFolder) }
    }

    static func makeWorkingFolder() throws -> URL {
        try WorkingFolders.makeTemporary(prefix: WorkingFolders.documentPrefix)
    }

    private func makeEmptyWorkingTree() throws {
        try DocumentFiles.makeDirectory(workingTree, mode: 0o700)
        try DocumentFiles.makeDirectory(workingTree.appendingPathComponent(DocumentPackageLayout.storeContent), mode: 0o700)
    }

    /// Fills the working tree from the document at `url`.
    func loadWorkingTree(from url: URL, typeName: String) throws {
        let type = try Self.documentTypes.type(named: typeName)
        // Finish or undo a save a crash interrupted; for flat archives, remove the temporary file it left.
        try SafeSave.recover(at: url)
        let sniffed = try DocumentSniffer.sniff(url)
        guard sniffed.format == type.format, sniffed.mimeType == type.mimeType else {
            throw QuireError(
                .documentTypeMismatch,
                "The document '\(url.path)' is a \(sniffed.format.displayName) of MIME type '\(sniffed.mimeType)', not a "
                    + "\(type.format.displayName) of type '\(type.name)' (\(type.mimeType)).",
                context: .init(file: url))
        }
        DocumentFiles.removeTree(workingTree)
        try DocumentFiles.makeDirectory(workingTree, mode: 0o700)
        if type.format == .package {
            try DocumentPackage.copyForWorking(from: url, to: workingTree)
        } else {
            try FlatArchive.extract(url, into: workingTree, limits: archiveLimits)
            DocumentFiles.removeTree(workingTree.appendingPathComponent(DocumentPackageLayout.metadata))
        }
        try DocumentPackage.validate(workingTree)
        let stored = try? SearchMetadata(contentsOf: url)
        searchMetadata = SearchMetadata(
            title: stored?.title, keywords: stored?.keywords ?? [], authors: stored?.authors ?? [], comment: stored?.comment)
    }

    // MARK: Hooks (override in subclasses)

    /// Adds the document's store to its coordinator
    /// (`configurePersistentStoreCoordinator(for:ofType:modelConfiguration:storeOptions:)`).
    ///
    /// - Parameters:
    ///   - url: The working store's file.
    ///   - fileType: The document's type name.
    ///   - modelConfiguration: The model configuration of the store.
    ///   - storeOptions: The document type's store options.
    /// - Throws: A store error.
    open func configurePersistentStoreCoordinator(
        for url: URL, ofType fileType: String, modelConfiguration: String?, storeOptions: StoreOptions?
    ) throws {
        try persistentStoreCoordinator.addPersistentStore(
            type: persistentStoreType(forFileType: fileType), configuration: modelConfiguration, at: url,
            options: storeOptions ?? StoreOptions())
    }

    /// The store type of a document type (`persistentStoreType(forFileType:)`): the registered type's
    /// ``DocumentType/storeType``, SQLite for an unknown type.
    open func persistentStoreType(forFileType fileType: String) -> StoreType {
        (try? Self.documentTypes.type(named: fileType).storeType) ?? .sqlite
    }

    /// Reads the document from its working package tree (`read(from:ofType:)`): the additional content, then
    /// the store through ``configurePersistentStoreCoordinator(for:ofType:modelConfiguration:storeOptions:)``.
    ///
    /// - Parameters:
    ///   - url: The working package tree (a folder in the document's layout).
    ///   - typeName: The document's type name.
    open func read(from url: URL, ofType typeName: String) throws {
        let type = try Self.documentTypes.type(named: typeName)
        let additional = url.appendingPathComponent(DocumentPackageLayout.additionalContent)
        if DocumentFiles.kind(of: additional) == .directory { try readAdditionalContent(from: additional) }
        try configurePersistentStoreCoordinator(
            for: url.appendingPathComponent(DocumentPackageLayout.storePath), ofType: typeName,
            modelConfiguration: type.modelConfiguration, storeOptions: type.storeOptions)
    }

    /// Reads content the application keeps beside the store (`readAdditionalContent(from:)`); does nothing by
    /// default.
    ///
    /// - Parameter url: The working copy's `AdditionalContent` folder.
    open func readAdditionalContent(from url: URL) throws {}

    /// Writes content the application keeps beside the store into a new version of the document
    /// (`writeAdditionalContent(_:to:originalContentsURL:)`). By default copies the working copy's
    /// `AdditionalContent` folder (which ``additionalContentURL`` names), if the application put files there.
    ///
    /// - Parameters:
    ///   - url: The new version's `AdditionalContent` folder (created; removed again if left empty).
    ///   - originalContentsURL: The document's current file, if any.
    open func writeAdditionalContent(to url: URL, originalContentsURL: URL?) throws {
        let source = additionalContentURL
        guard DocumentFiles.kind(of: source) == .directory else { return }
        try DocumentPackage.walk(source, relative: "") { path, kind in
            if kind == .directory {
                try DocumentFiles.makeDirectory(url.appendingPathComponent(path))
            } else {
                try DocumentFiles.copyFile(from: source.appendingPathComponent(path), to: url.appendingPathComponent(path))
            }
        }
    }

    /// Writes the document's package tree into the empty folder `url` (`write(to:ofType:for:originalContentsURL:)`):
    /// `mimetype`, a snapshot of the store, its external data (hard-linked from the original where unchanged),
    /// the search metadata, and the additional content. Flat archives are made from the same tree.
    ///
    /// - Parameters:
    ///   - url: The new version's folder.
    ///   - typeName: The type being written.
    ///   - operation: What kind of save.
    ///   - originalContentsURL: The document's current file, if any.
    open func write(to url: URL, ofType typeName: String, for operation: SaveOperation, originalContentsURL: URL?) throws {
        let type = try Self.documentTypes.type(named: typeName)
        try DocumentFiles.writeNewFile(Data((type.mimeType + "\n").utf8), to: url.appendingPathComponent(DocumentPackageLayout.mimetype))
        try DocumentFiles.makeDirectory(url.appendingPathComponent(DocumentPackageLayout.storeContent))
        try snapshotStore(to: url.appendingPathComponent(DocumentPackageLayout.storePath))
        try copyExternalData(into: url, originalContentsURL: originalContentsURL)
        let metadata = try metadataForSave ?? currentSearchMetadata()
        try DocumentFiles.makeDirectory(url.appendingPathComponent(DocumentPackageLayout.metadata))
        try DocumentFiles.writeNewFile(metadata.metaXML(), to: url.appendingPathComponent(DocumentPackageLayout.metaXML))
        try DocumentFiles.writeNewFile(metadata.summaryText(), to: url.appendingPathComponent(DocumentPackageLayout.summary))
        let additional = url.appendingPathComponent(DocumentPackageLayout.additionalContent)
        try DocumentFiles.makeDirectory(additional)
        try writeAdditionalContent(to: additional, originalContentsURL: originalContentsURL)
        if (try? DocumentFiles.children(of: additional).isEmpty) == true { rmdir(additional.path) }
    }

    /// The working copy's folder of additional content: files the application puts here are written into
    /// every saved version by the default ``writeAdditionalContent(to:originalContentsURL:)``.
    public var additionalContentURL: URL { workingTree.appendingPathComponent(DocumentPackageLayout.additionalContent) }

    // MARK: State

    /// The context's undo manager.
    public var undoManager: UndoManager? { managedObjectContext.undoManager }

    /// Whether the document has changes its file does not have (`isDocumentEdited`).
    ///
    /// With the undo manager the document was saved with, as `NSDocument` counts changes: the document is
    /// edited while the undo history stands elsewhere than where it stood at the last save, or the current
    /// event has recorded changes, so undoing back to the saved state makes it clean again and redoing makes
    /// it edited. Without one (or with a different one), it is edited while the context has unsaved changes or
    /// changes were saved to the working store since the document was last written.
    public var isDocumentEdited: Bool {
        managedObjectContext.performAndWait {
            if let undoManager = managedObjectContext.undoManager, let saved = savedUndoPosition,
                saved.manager == ObjectIdentifier(undoManager)
            {
                return undoManager.changePosition != saved.position || undoManager.hasOpenChanges
            }
            return managedObjectContext.hasChanges || managedObjectContext.undoState.saveCount != savedGeneration
        }
    }

    /// Remembers the context's save count and the undo position as those of the document's file.
    func noteSavedState() {
        managedObjectContext.performAndWait {
            savedGeneration = managedObjectContext.undoState.saveCount
            savedUndoPosition = managedObjectContext.undoManager.map { (ObjectIdentifier($0), $0.changePosition) }
        }
        savedExtras = (searchMetadata, additionalContentFingerprint())
    }

    /// The document's registered type.
    public var documentType: DocumentType {
        get throws { try Self.documentTypes.type(named: fileType) }
    }

    // MARK: Reverting and closing

    /// Discards every change since the document was last saved (`revert(toContentsOf:ofType:)`): the context
    /// forgets its objects, the store is read again from the file (an untitled document becomes empty), and
    /// the undo history is cleared. Objects fetched before are no longer valid.
    ///
    /// - Throws: What opening the document throws; the document then has no store until reverted again.
    public func revert() throws {
        precondition(!isClosed, "The document was closed.")
        managedObjectContext.performAndWait {
            managedObjectContext.reset()
            managedObjectContext.undoManager?.removeAllActions()
        }
        for store in persistentStoreCoordinator.persistentStores { try persistentStoreCoordinator.remove(store) }
        DocumentFiles.removeTree(workingTree)
        if let fileURL {
            do {
                try loadWorkingTree(from: fileURL, typeName: fileType)
                try read(from: workingTree, ofType: fileType)
            } catch {
                throw documentError(error, openedFrom: fileURL)
            }
        } else {
            let type = try documentType
            try makeEmptyWorkingTree()
            try configurePersistentStoreCoordinator(
                for: workingStoreURL, ofType: fileType, modelConfiguration: type.modelConfiguration,
                storeOptions: type.storeOptions)
        }
        noteSavedState()
    }

    /// Closes the document (`close()`): unsaved changes are discarded, the store is closed and the working
    /// folder removed. The document cannot be used afterwards.
    public func close() {
        guard !isClosed else { return }
        managedObjectContext.performAndWait {
            managedObjectContext.reset()
            managedObjectContext.undoManager?.removeAllActions()
        }
        for store in persistentStoreCoordinator.persistentStores { try? persistentStoreCoordinator.remove(store) }
        DocumentFiles.removeTree(workingFolder)
        isClosed = true
    }
}
