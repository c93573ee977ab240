import ArgumentParser
import Foundation
import Quire

/// `quire convert INPUT OUTPUT`: Save As into another store type or container.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a document or store to another store type or container (Save As).",
        discussion: """
            The input's kind is read from its content. The output's container comes from --package or --archive, \
            else from its extension (.sqlite, .xml, .binary: a store file; .zip, .tar: an archive; anything else: \
            the input's container); its store type from --type, else the extension, else the input's type. \
            Metadata and external data are carried over. Nothing is left behind on failure.
            """)

    @Argument(help: "The document or store to convert.")
    var input: String

    @Argument(help: "Where to write the result.")
    var output: String

    @Option(help: "The output's store type: sqlite, xml or binary.")
    var type: StoreTypeArgument?

    @Flag(help: "Write a document package (a folder).")
    var package = false

    @Option(help: "Write a flat archive: zip or tar.")
    var archive: ArchiveArgument?

    @Option(help: "The MIME type of a new package or archive (default: the input's, else application/x-quire-document).")
    var mimeType: String?

    @Flag(help: "Replace the output if it exists.")
    var force = false

    @Flag(help: "Print what was done as JSON.")
    var json = false

    func validate() throws {
        if package && archive != nil { throw ValidationError("--package and --archive cannot be used together.") }
        if let mimeType, mimeType.isEmpty || !mimeType.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) {
            throw ValidationError("--mime-type must be one word of printable ASCII.")
        }
    }

    /// Store types by file name extension.
    static let storeExtensions: [String: StoreType] = [
        "sqlite": .sqlite, "sqlite3": .sqlite, "db": .sqlite, "xml": .xml, "binary": .binary, "bin": .binary,
    ]

    func run() throws {
        let inputURL = fileURL(input)
        let outputURL = fileURL(output)
        let source = try openContents(input)
        defer { source.close() }
        let ext = outputURL.pathExtension.lowercased()
        let container: DocumentContents.Container
        if package {
            container = .package
        } else if let archive {
            container = DocumentContents.Container(archive.format)
        } else if ext == "zip" {
            container = .zipArchive
        } else if ext == "tar" {
            container = .tarArchive
        } else if Self.storeExtensions[ext] != nil {
            container = .storeFile
        } else {
            container = source.container
        }
        let storeType = type?.storeType ?? (container == .storeFile ? Self.storeExtensions[ext] : nil) ?? source.storeType
        guard outputURL != inputURL else {
            throw CommandFailure(status: .usage, message: "'\(outputURL.path)' is the input; convert to a new location.")
        }
        try checkOutputFree(outputURL, force: force)

        let model = try reading(inputURL) { try ManagedObjectModel.embedded(inStoreAt: source.storeURL, type: source.storeType) }
        let coordinator = try reading(inputURL) { try PersistentStoreCoordinator(managedObjectModel: model) }
        var readOnly = StoreOptions()
        readOnly.isReadOnly = true
        let store = try reading(inputURL) {
            try coordinator.addPersistentStore(type: source.storeType, at: source.storeURL, options: readOnly)
        }
        let objectCount = try reading(inputURL) { try Self.count(coordinator, model) }
        let blobs = source.externalDataFiles()

        let staging = try stagingFolder(beside: outputURL)
        defer { try? FileManager.default.removeItem(at: staging) }
        let work = staging.appendingPathComponent("work", isDirectory: true)
        let storeName = container == .storeFile ? outputURL.lastPathComponent : DocumentPackageLayout.storeFileName
        let target = work.appendingPathComponent(storeName)
        let progress = ProgressBar(
            watching: work, totalBytes: Self.size(of: source.storeURL) + blobs.reduce(0) { $0 + $1.size },
            totalObjects: objectCount, enabled: !json && isatty(STDERR_FILENO) == 1)
        try writing(outputURL) {
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: false)
            var options = StoreOptions()
            options.journalMode = .delete
            progress.start()
            defer { progress.stop() }
            let migrated = try coordinator.migratePersistentStore(store, to: target, options: options, type: storeType)
            try coordinator.remove(migrated)
        }
        let mimeType = self.mimeType ?? source.mimeType ?? "application/x-quire-document"
        try writing(outputURL) {
            switch container {
            case .storeFile:
                let support = Self.supportFolder(of: target)
                let outputSupport = Self.supportFolder(of: outputURL)
                if FileManager.default.fileExists(atPath: support.path) {
                    if FileManager.default.fileExists(atPath: outputSupport.path) {
                        guard force else {
                            throw CommandFailure(
                                status: .unwritableOutput,
                                message: "'\(outputSupport.path)' already exists; pass --force to replace it.")
                        }
                        try FileManager.default.removeItem(at: outputSupport)
                    }
                    try moveIntoPlace(target, to: outputURL, force: force)
                    do {
                        try moveIntoPlace(support, to: outputSupport, force: force)
                    } catch {
                        try? FileManager.default.removeItem(at: outputURL)
                        throw error
                    }
                } else {
                    try moveIntoPlace(target, to: outputURL, force: force)
                }
            case .package:
                let built = staging.appendingPathComponent("package", isDirectory: true)
                try DocumentContents.writePackage(at: built, storeAt: target, mimeType: mimeType, objectCount: objectCount)
                try moveIntoPlace(built, to: outputURL, force: force)
            case .zipArchive, .tarArchive:
                let built = staging.appendingPathComponent("package", isDirectory: true)
                try DocumentContents.writePackage(at: built, storeAt: target, mimeType: mimeType, objectCount: objectCount)
                let file = staging.appendingPathComponent("archive")
                try DocumentContents.writeArchive(ofPackage: built, to: file, format: container.documentFormat ?? .zipArchive)
                try moveIntoPlace(file, to: outputURL, force: force)
            }
        }
        let blobBytes = blobs.reduce(0) { $0 + $1.size }
        if json {
            try printJSON([
                "input": ["path": input, "container": source.container.rawValue, "storeType": source.storeType.rawValue],
                "output": ["path": output, "container": container.rawValue, "storeType": storeType.rawValue],
                "objects": objectCount, "externalDataFiles": blobs.count, "externalDataBytes": blobBytes,
            ] as [String: Any])
        } else {
            print(
                "Converted \(input) (\(source.container.rawValue), \(source.storeType)) to \(output) "
                    + "(\(container.rawValue), \(storeType)): \(objectCount) objects, \(blobs.count) external data files "
                    + "(\(byteCount(blobBytes))).")
        }
    }

    /// The number of saved objects of every root entity.
    static func count(_ coordinator: PersistentStoreCoordinator, _ model: ManagedObjectModel) throws -> Int {
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            var count = 0
            for entity in model.entities where entity.superentity == nil {
                count += try context.count(for: FetchRequest<ManagedObject>(entityName: entity.name))
            }
            return count
        }
    }

    /// A store file's external data folder, `.<name without extension>_SUPPORT` beside it.
    static func supportFolder(of store: URL) -> URL {
        store.deletingLastPathComponent().appendingPathComponent(".\(store.deletingPathExtension().lastPathComponent)_SUPPORT")
    }

    /// The size of a file, zero when unknown.
    static func size(of url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
