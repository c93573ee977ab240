import QuireCore
import QuireStores
import Foundation

extension PersistentDocument {
    /// Saves the document over its file (`save(_:)`).
    ///
    /// - Throws: ``QuireError/Code/documentHasNoLocation`` for an untitled document (use Save As), or what
    ///   ``save(to:ofType:for:)`` throws.
    public func save() throws {
        guard let fileURL else {
            throw QuireError(
                .documentHasNoLocation, "The untitled document has no file yet; save it with the saveAs operation first.")
        }
        try save(to: fileURL, ofType: fileType, for: .save)
    }

    /// Saves the document to a location in a type (`save(to:ofType:for:)`): the context's changes are saved
    /// to the working store, then a new version is written with the safe-save protocol, search metadata
    /// included. The store options of the target type apply (Save As re-opens the store with them).
    ///
    /// - ``SaveOperation/save``, ``SaveOperation/autosaveInPlace``: writes over `url` (the document's file).
    /// - ``SaveOperation/saveAs``: writes to `url`, which becomes the document's file and `typeName` its type;
    ///   an autosaved copy is removed.
    /// - ``SaveOperation/saveTo``: writes a copy; the document stays where and what it is.
    /// - ``SaveOperation/autosaveElsewhere``: writes to `url`, recorded as ``autosavedContentsFileURL``.
    ///
    /// ```swift
    /// try document.save(to: URL(fileURLWithPath: "Report.notebook"), ofType: "Notebook", for: .saveAs)
    /// ```
    ///
    /// - Parameters:
    ///   - url: Where to write.
    ///   - typeName: The name of a registered ``DocumentType``.
    ///   - operation: What kind of save.
    /// - Throws: Validation and store errors from the context's save; file errors
    ///   (``QuireError/Code/fileWriteOutOfSpace``, ``QuireError/Code/fileWriteNoPermission``, …) naming the file
    ///   when the new version cannot be written. The previous version is then intact and openable.
    public func save(to url: URL, ofType typeName: String, for operation: SaveOperation) throws {
        precondition(!isClosed, "The document was closed.")
        let type = try Self.documentTypes.type(named: typeName)
        try managedObjectContext.performAndWait {
            if managedObjectContext.hasChanges { try managedObjectContext.save() }
        }
        if isUnchangedSave(to: url, ofType: typeName, for: operation) {
            // Nothing to write: the file already holds this version (no writes, no fsyncs).
            lastSaveWarnings = []
            if operation == .save { removeAutosavedContents() }
            return
        }
        if operation == .saveAs { try moveWorkingStore(to: type) }
        let metadata = try currentSearchMetadata()
        metadataForSave = metadata
        defer { metadataForSave = nil }
        let original = fileURL
        let outcome: SafeSave.Outcome
        try SafeSave.recover(at: url)
        if type.format == .package {
            outcome = try SafeSave.replacePackage(
                at: url, strategy: usesRenameExchange ? .automatic : .twoRenames, attributes: metadata.extendedAttributes
            ) { staging in
                try self.write(to: staging, ofType: typeName, for: operation, originalContentsURL: original)
            }
        } else {
            let scratch = workingFolder.appendingPathComponent("Outgoing", isDirectory: true)
            DocumentFiles.removeTree(scratch)
            try DocumentFiles.makeDirectory(scratch, mode: 0o700)
            defer { DocumentFiles.removeTree(scratch) }
            try write(to: scratch, ofType: typeName, for: operation, originalContentsURL: original)
            outcome = try SafeSave.replaceFile(at: url, attributes: metadata.extendedAttributes) { temporary in
                try FlatArchive.write(
                    tree: scratch, mimeType: type.mimeType, to: temporary, format: type.format, compression: type.compression)
            }
        }
        lastSaveWarnings = outcome.warnings
        for warning in outcome.warnings { warningHandler(warning) }
        switch operation {
        case .save, .autosaveInPlace:
            noteSavedState()
            if operation == .save { removeAutosavedContents() }
        case .saveAs:
            fileURL = url
            fileType = typeName
            noteSavedState()
            removeAutosavedContents()
        case .saveTo:
            break
        case .autosaveElsewhere:
            if let previous = autosavedContentsFileURL, previous.standardizedFileURL != url.standardizedFileURL {
                DocumentFiles.removeTree(previous)
            }
            autosavedContentsFileURL = url
        }
    }

    /// Autosaves (`autosave(withImplicitCancellability:)`): in place when the document has a file, otherwise
    /// elsewhere, into ``autosaveDirectory``.
    ///
    /// - Throws: What ``save(to:ofType:for:)`` throws.
    public func autosave() throws {
        if let fileURL {
            try save(to: fileURL, ofType: fileType, for: .autosaveInPlace)
            return
        }
        let url: URL
        if let existing = autosavedContentsFileURL {
            url = existing
        } else {
            let type = try documentType
            let folder = autosaveDirectory
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            url = folder.appendingPathComponent("Untitled \(UUID().uuidString.prefix(8)).\(type.extensions.first ?? "document")")
        }
        try save(to: url, ofType: fileType, for: .autosaveElsewhere)
    }

    /// Where untitled documents autosave: `$XDG_DATA_HOME/Quire/Autosave Information` (or
    /// `~/.local/share/…`), unless set.
    public var autosaveDirectory: URL {
        get {
            if let customAutosaveDirectory { return customAutosaveDirectory }
            let environment = ProcessInfo.processInfo.environment
            let base = environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
            return base.appendingPathComponent("Quire/Autosave Information", isDirectory: true)
        }
        set { customAutosaveDirectory = newValue }
    }

    private func removeAutosavedContents() {
        if let autosaved = autosavedContentsFileURL { DocumentFiles.removeTree(autosaved) }
        autosavedContentsFileURL = nil
    }

    // MARK: Writing a version

    /// Writes a consistent copy of the store (SQLite: its checkpointed file or the backup API's copy, no `-wal`;
    /// other stores: their file).
    func snapshotStore(to destination: URL) throws {
        guard let store = persistentStoreCoordinator.persistentStores.first else {
            throw QuireError(.document, "The document has no store to save.", context: .init(file: destination))
        }
        try persistentStoreCoordinator.writeSnapshot(of: store, to: destination)
    }

    /// Links the store's external data files into the new version: from the original package where it has
    /// the same (write-once) file, from the working copy otherwise.
    func copyExternalData(into url: URL, originalContentsURL: URL?) throws {
        let source = workingTree.appendingPathComponent(DocumentPackageLayout.externalDataPath)
        guard DocumentFiles.kind(of: source) == .directory else { return }
        let destination = url.appendingPathComponent(DocumentPackageLayout.externalDataPath)
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        let original = originalContentsURL.flatMap { DocumentFiles.kind(of: $0) == .directory ? $0 : nil }?
            .appendingPathComponent(DocumentPackageLayout.externalDataPath)
        for blob in try DocumentFiles.children(of: source) {
            guard case .file(let size) = DocumentFiles.kind(of: blob) else { continue }
            if let old = original?.appendingPathComponent(blob.lastPathComponent), DocumentFiles.kind(of: old) == .file(size: size) {
                try DocumentFiles.linkOrCopy(from: old, to: destination.appendingPathComponent(blob.lastPathComponent))
            } else {
                try DocumentFiles.linkOrCopy(from: blob, to: destination.appendingPathComponent(blob.lastPathComponent))
            }
        }
    }

    // MARK: Search metadata

    /// How many objects of an entity are read, a page at a time, for the values of indexed attributes.
    static let indexedPageSize = 1_000
    /// The most objects of an entity read for the values of indexed attributes (the text is also bounded by
    /// ``SearchMetadata``'s budget, which usually ends the reading far sooner).
    static let indexedObjectLimit = 100_000

    /// The search metadata a save writes: what the application set, the store's metadata, the number of
    /// objects and the values of attributes marked ``PropertyDescription/isIndexedBySpotlight``.
    public func currentSearchMetadata() throws -> SearchMetadata {
        var metadata = searchMetadata
        metadata.modificationDate = Date()
        let coordinator = persistentStoreCoordinator
        for store in coordinator.persistentStores {
            // Through the coordinator, under its lock: a save on another context may be writing it.
            for (key, value) in coordinator.metadata(for: store) {
                switch value {
                case .string(let text): metadata.storeMetadata[key] = text
                case .integer(let number): metadata.storeMetadata[key] = String(number)
                case .real(let number): metadata.storeMetadata[key] = String(number)
                case .boolean(let flag): metadata.storeMetadata[key] = flag ? "true" : "false"
                case .date(let date): metadata.storeMetadata[key] = date.formatted(.iso8601)
                case .array(let items) where items.allSatisfy({ $0.stringValue != nil }):
                    metadata.storeMetadata[key] = items.compactMap(\.stringValue).joined(separator: ", ")
                default: break
                }
            }
        }
        let scratch = ManagedObjectContext(concurrencyType: .privateQueue)
        scratch.persistentStoreCoordinator = persistentStoreCoordinator
        let model = managedObjectModel
        let (count, values) = try scratch.performAndWait { () throws -> (Int, [String: [String]]) in
            var count = 0
            for entity in model.entities where entity.superentity == nil {
                count += try scratch.count(for: FetchRequest<ManagedObject>(entityName: entity.name))
            }
            var values: [String: [String]] = [:]
            var budget = SearchMetadata.indexedTextLimit
            for entity in model.entities {
                let attributes = entity.properties.compactMap { $0 as? AttributeDescription }
                    .filter { $0.isIndexedBySpotlight && !$0.isTransient }
                guard !attributes.isEmpty else { continue }
                var seen = [Set<String>](repeating: [], count: attributes.count)
                var lists = [[String]](repeating: [], count: attributes.count)
                // A page at a time, forgetting each page, until the budget is spent: a large store is never
                // loaded whole for its metadata. The pages stop after a bounded number of objects, so a store
                // whose values mostly repeat is not read to its end either.
                var offset = 0
                while budget > 0 && offset < Self.indexedObjectLimit {
                    let request = FetchRequest<ManagedObject>(entityName: entity.name)
                    request.fetchLimit = Self.indexedPageSize
                    request.fetchOffset = offset
                    let page = try scratch.fetch(request)
                    for object in page where budget > 0 {
                        for (index, attribute) in attributes.enumerated() where budget > 0 {
                            guard let value = object.value(forKey: attribute.name) else { continue }
                            // Booleans as `true`/`false` (an `NSNumber` prints them as 1 and 0).
                            let boolean = attribute.attributeType == .boolean ? (value as? Bool).map { "\($0)" } : nil
                            let text = value as? String ?? boolean ?? (value as? Date)?.formatted(.iso8601) ?? "\(value)"
                            guard !text.isEmpty, seen[index].insert(text).inserted else { continue }
                            budget -= SearchMetadata.escapedSize(text)
                            lists[index].append(text)
                        }
                    }
                    scratch.reset()
                    guard page.count == Self.indexedPageSize else { break }
                    offset += page.count
                }
                for (index, attribute) in attributes.enumerated() where !lists[index].isEmpty {
                    values["\(entity.name).\(attribute.name)"] = lists[index]
                }
            }
            return (count, values)
        }
        metadata.objectCount = count
        metadata.indexedValues = values
        return metadata
    }
}
