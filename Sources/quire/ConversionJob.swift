import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// One conversion of `quire convert`: an input as the user named it (or as found in a folder they named) and
/// the output it goes to.
struct ConversionJob: Sendable {
    /// The input as printed (the user's path, or the folder's path joined with the file's).
    var input: String
    /// The output as printed.
    var output: String
    /// The container asked for, nil to choose it from the output's name (the single-file form).
    var container: DocumentContents.Container?
    /// The file read when it is not `input` (a private copy of standard input).
    var inputFile: String? = nil
    /// The file written when it is not `output` (a private file streamed to standard output).
    var outputFile: String? = nil

    /// What a conversion did, for the summary.
    struct Outcome: Sendable {
        var objects: Int
        var externalDataFiles: Int
        var externalDataBytes: Int64
        var json: [String: any Sendable]
        var line: String
        /// What the source had that the output could not hold, in words.
        var notKept: [String] = []
    }

    /// The choices of the command line that apply to every file.
    struct Settings: Sendable {
        var storeType: StoreType?
        var package: Bool
        var archive: ArchiveArgument?
        var mimeType: String?
        var modelFile: URL?
        var force: Bool
        var dryRun: Bool
        var verbose: Bool
    }

    /// A tracker for the progress bar, sized from the input's files (before it is opened).
    func makeTracker(settings: Settings) -> ConversionTracker {
        let url = fileURL(inputFile ?? input)
        let container = try? DocumentContents.container(at: url)
        var storeBytes = Self.size(of: url)
        if container == .package {
            storeBytes = Self.treeSize(url)
        }
        let archive = self.container?.documentFormat?.isArchive
            ?? (settings.archive != nil || OutputKind.archiveExtensions[fileURL(outputFile ?? output).pathExtension.lowercased()] != nil)
        return ConversionTracker(storeBytes: storeBytes, externalDataBytes: 0, writesArchive: archive)
    }

    /// Converts (or, for a dry run, checks that it could), reporting progress to `tracker`.
    ///
    /// - Throws: ``CommandFailure`` with the input status (3) or the output status (4), or a usage failure.
    func run(settings: Settings, tracker: ConversionTracker) throws -> Outcome {
        let inputURL = fileURL(inputFile ?? input)
        let outputURL = fileURL(outputFile ?? output)
        let source = try openContents(inputFile ?? input)
        defer { source.close() }
        let container = try self.container
            ?? OutputKind.container(
                for: outputURL, package: settings.package, archive: settings.archive, input: inputURL,
                inputContainer: source.container)
        let ext = outputURL.pathExtension.lowercased()
        let named = container == .storeFile ? OutputKind.storeExtensions[ext] : nil
        if let asked = settings.storeType, let named, asked != named, outputFile == nil {
            // `--to xml o.sqlite` would put XML in a file every tool takes for SQLite.
            throw CommandFailure(
                status: .usage,
                message: "'\(outputURL.lastPathComponent)' is named like a\(named == .xml ? "n" : "") \(named) store, but --to asks for "
                    + "\(asked): name it '\(outputURL.deletingPathExtension().lastPathComponent).\(OutputKind.storeExtension(asked))' "
                    + "or drop --to.")
        }
        let storeType = settings.storeType ?? named ?? source.storeType
        guard outputURL != inputURL else {
            throw CommandFailure(status: .usage, message: "'\(outputURL.path)' is the input; convert to a new location.")
        }
        // A run over many files creates the output's folders; a dry run has not made them yet.
        try checkOutputFree(outputURL, force: settings.force, folderMayBeMissing: settings.dryRun && self.container != nil)
        let blobs = source.externalDataFiles()
        tracker.setCopyBytes(Self.size(of: source.storeURL) + blobs.reduce(0) { $0 + $1.size })
        let inputJSON: [String: any Sendable] = [
            "path": input, "container": source.container.rawValue, "storeType": source.storeType.rawValue,
        ]
        let outputJSON: [String: any Sendable] = ["path": output, "container": container.rawValue, "storeType": storeType.rawValue]
        let from = "\(input) (\(source.container.rawValue), \(source.storeType))"
        let to = "\(output) (\(container.rawValue), \(storeType))"
        if settings.dryRun {
            return Outcome(
                objects: 0, externalDataFiles: blobs.count, externalDataBytes: blobs.reduce(0) { $0 + $1.size },
                json: ["input": inputJSON, "output": outputJSON, "dryRun": true],
                line: "Would convert \(from) to \(to).")
        }
        let started = Date()
        let summary: DocumentContents.ConversionSummary
        do {
            summary = try source.convert(
                to: outputURL, container: container, storeType: storeType, mimeType: settings.mimeType,
                replacing: settings.force, modelFile: settings.modelFile,
                willCopy: { tracker.watch($0) },
                onProgress: { tracker.update($0) })
        } catch let error as QuireError {
            // Errors naming the output or a file of its staging folder are output errors; the rest are the input's.
            let file = error.context.file?.standardizedFileURL.path ?? ""
            let hidden = outputURL.deletingLastPathComponent().appendingPathComponent("." + outputURL.lastPathComponent).path
            if file.hasPrefix(outputURL.path) || file.hasPrefix(hidden) {
                throw CommandFailure.output(error, outputURL)
            }
            throw CommandFailure.input(error, inputURL)
        }
        var line = "Converted \(from) to \(to): \(summary.objectCount) objects, \(blobs.count) external data files "
            + "(\(byteCount(summary.externalDataBytes)))."
        for item in summary.notKept { line += "\n  not kept: \(item)" }
        if settings.verbose {
            line += "\n" + tracker.phaseTimes(until: Date()).map { "  \($0.phase): \(String(format: "%.2f", $0.seconds)) s" }
                .joined(separator: "\n")
            line += String(format: "\n  total: %.2f s", Date().timeIntervalSince(started))
        }
        return Outcome(
            objects: summary.objectCount, externalDataFiles: blobs.count, externalDataBytes: summary.externalDataBytes,
            json: [
                "input": inputJSON, "output": outputJSON, "objects": summary.objectCount,
                "externalDataFiles": blobs.count, "externalDataBytes": summary.externalDataBytes,
            ].merging(summary.notKept.isEmpty ? [:] : ["notKept": summary.notKept]) { a, _ in a },
            line: line, notKept: summary.notKept)
    }

    /// The size of a file, zero when unknown.
    static func size(of url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }

    /// The size of a folder's files.
    static func treeSize(_ url: URL) -> Int64 {
        guard let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey]) else {
            return 0
        }
        var total: Int64 = 0
        for case let file as URL in enumerator {
            total += Int64((try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
        }
        return total
    }
}
