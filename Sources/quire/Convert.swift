import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

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

    @Argument(help: "The document or store to convert (or a postgresql:// URL).")
    var input: String

    @Argument(help: "Where to write the result (or a postgresql://…?schema=name URL).")
    var output: String

    @Option(help: "The output's store type: sqlite, xml or binary.")
    var type: StoreTypeArgument?

    @Flag(help: "Write a document package (a folder).")
    var package = false

    @Option(help: "Write a flat archive: zip or tar.")
    var archive: ArchiveArgument?

    @Option(help: "The MIME type of a new package or archive (default: the input's, else application/x-quire-document).")
    var mimeType: String?

    @OptionGroup var model: ModelOption

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
        if Self.isDatabase(input) || Self.isDatabase(output) { return try runPostgres() }
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
        let blobs = source.externalDataFiles()
        let progress = ProgressBar(
            totalBytes: Self.size(of: source.storeURL) + blobs.reduce(0) { $0 + $1.size },
            enabled: !json && isatty(STDERR_FILENO) == 1)
        let summary: DocumentContents.ConversionSummary
        do {
            summary = try source.convert(
                to: outputURL, container: container, storeType: storeType, mimeType: mimeType, replacing: force,
                modelFile: model.url,
                willCopy: { progress.start(watching: $0) }, didCopy: { progress.stop() },
                progress: { progress.objects(copied: $0, of: $1) })
        } catch let error as QuireError {
            // Errors naming the output or a file of its staging folder are output errors; the rest are the input's.
            let file = error.context.file?.standardizedFileURL.path ?? ""
            let hidden = outputURL.deletingLastPathComponent().appendingPathComponent("." + outputURL.lastPathComponent).path
            if file.hasPrefix(outputURL.path) || file.hasPrefix(hidden) {
                throw CommandFailure.output(error, outputURL)
            }
            throw CommandFailure.input(error, inputURL)
        }
        let objectCount = summary.objectCount
        let blobBytes = summary.externalDataBytes
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

    /// The size of a file, zero when unknown.
    static func size(of url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
