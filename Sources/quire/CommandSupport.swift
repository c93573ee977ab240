import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// The exit statuses every `quire` command documents (the CLI article).
enum ExitStatus: Int32 {
    /// The command did what was asked (for `diff`: the graphs are equal).
    case success = 0
    /// `quire diff` found differences.
    case differences = 1
    /// The command line was wrong.
    case usage = 2
    /// An input could not be read or is not a valid store, package or archive.
    case unreadableInput = 3
    /// The output could not be written.
    case unwritableOutput = 4
}

/// A failure that ends a command: one line on standard error and an exit status.
struct CommandFailure: Error {
    var status: ExitStatus
    var message: String
    /// The library's error behind the failure, when there is one (its code and file go into the JSON form).
    var error: QuireError? = nil

    /// A failure reading or understanding an input.
    static func input(_ error: any Error, _ url: URL) -> CommandFailure {
        if let failure = error as? CommandFailure { return failure }
        return CommandFailure(status: .unreadableInput, message: describe(error, url), error: error as? QuireError)
    }

    /// A failure writing an output.
    static func output(_ error: any Error, _ url: URL) -> CommandFailure {
        if let failure = error as? CommandFailure { return failure }
        return CommandFailure(status: .unwritableOutput, message: describe(error, url), error: error as? QuireError)
    }

    /// One line naming the file and the problem.
    static func describe(_ error: any Error, _ url: URL) -> String {
        var text: String
        if let failure = error as? CommandFailure {
            text = failure.message
        } else if let error = error as? QuireError, let words = Messages.words(for: error) {
            text = words
        } else if let error = error as? QuireError {
            text = error.message.contains(url.path) || error.context.file != nil ? error.message : "'\(url.path)': \(error.message)"
            // A system error's reason, when the sentence does not give it (permission denied, no space left).
            if let cause = error.underlying as? SystemCallError {
                let reason = String(cString: strerror(cause.code)).lowercased()
                if !text.lowercased().contains(reason) {
                    text = (text.hasSuffix(".") ? String(text.dropLast()) : text) + ": \(reason)."
                }
            } else if let cause = error.underlying, [NSCocoaErrorDomain, NSPOSIXErrorDomain].contains((cause as NSError).domain) {
                let reason = plainReason(cause)
                if !text.lowercased().contains(reason) {
                    text = (text.hasSuffix(".") ? String(text.dropLast()) : text) + ": \(reason)."
                }
            }
        } else {
            text = "'\(url.path)': \(plainReason(error))."
        }
        text = Messages.naming(text)
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

/// Runs `body`, which works on a document's files (an archive's are in a private working copy), with its errors
/// naming the document and its entries instead (see ``DocumentContents/errorNamingDocument(_:)``).
func naming<T>(_ contents: DocumentContents?, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let failure as CommandFailure {
        throw failure
    } catch {
        throw contents?.errorNamingDocument(error) ?? error
    }
}

/// Runs `body`, which reads `source` and writes the output (in its staging folder): an error about the source is
/// an input failure, one about any other file, or a write error, an output failure naming `output`.
func copying<T>(from source: URL, to output: URL, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let failure as CommandFailure {
        throw failure
    } catch {
        let failure = error as? QuireError
        let write = failure.map { (512...642).contains($0.code.rawValue) } ?? false
        if let file = failure?.context.file?.standardizedFileURL.path {
            let ofSource = file == source.standardizedFileURL.path || file.hasPrefix(source.standardizedFileURL.path + "/")
            throw ofSource && !write ? CommandFailure.input(error, source) : CommandFailure.output(error, output)
        }
        throw write ? CommandFailure.output(error, output) : CommandFailure.input(error, source)
    }
}

/// Runs `body`, turning any error into an input failure naming `url`.
func reading<T>(_ url: URL, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let failure as CommandFailure {
        throw failure
    } catch {
        throw CommandFailure.input(error, url)
    }
}

/// Runs `body`, turning any error into an output failure naming `url`.
func writing<T>(_ url: URL, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let failure as CommandFailure {
        throw failure
    } catch {
        throw CommandFailure.output(error, url)
    }
}

/// A file URL for a command-line path.
func fileURL(_ path: String) -> URL {
    URL(fileURLWithPath: path).standardizedFileURL
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Prints JSON with sorted keys.
func printJSON(_ value: Any) throws {
    print(String(decoding: try jsonData(value), as: UTF8.self))
}

/// JSON with sorted keys, as ``printJSON(_:)`` prints it.
func jsonData(_ value: Any) throws -> Data {
    try JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
}

/// The store types the command line names.
enum StoreTypeArgument: String, ExpressibleByArgument, CaseIterable {
    case sqlite, xml, binary

    var storeType: StoreType {
        switch self {
        case .sqlite: return .sqlite
        case .xml: return .xml
        case .binary: return .binary
        }
    }
}

/// The archive formats the command line names.
enum ArchiveArgument: String, ExpressibleByArgument, CaseIterable {
    case zip, tar

    var format: DocumentType.Format { self == .zip ? .zipArchive : .tarArchive }
}

/// A JSON-friendly rendering of a metadata value.
func jsonValue(_ value: PropertyListValue) -> Any {
    switch value {
    case .string(let v): return v
    case .integer(let v): return v
    case .real(let v): return v
    case .boolean(let v): return v
    case .date(let v): return v.formatted(.iso8601)
    case .data(let v): return v.base64EncodedString()
    case .array(let v): return v.map(jsonValue)
    case .dictionary(let v): return v.mapValues(jsonValue)
    }
}

/// A one-line rendering of a metadata value.
func textValue(_ value: PropertyListValue) -> String {
    switch value {
    case .string(let v): return v
    case .integer(let v): return String(v)
    case .real(let v): return "\(v)"
    case .boolean(let v): return v ? "true" : "false"
    case .date(let v): return v.formatted(.iso8601)
    case .data(let v): return "<\(v.count) bytes> " + v.base64EncodedString()
    case .array(let v): return "[" + v.map(textValue).joined(separator: ", ") + "]"
    case .dictionary(let v):
        return "{" + v.sorted { $0.key < $1.key }.map { "\($0.key): \(textValue($0.value))" }.joined(separator: ", ") + "}"
    }
}

/// Bytes as a short human figure.
func byteCount(_ bytes: Int64) -> String {
    if bytes < 1024 { return "\(bytes) bytes" }
    let units = ["KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes) / 1024
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return String(format: "%.1f %@", value, units[unit])
}

/// A hidden sibling folder for building an output before it is renamed into place, named with this process's
/// ID; those that killed runs left beside the same output are removed first.
func stagingFolder(beside output: URL) throws -> URL {
    let parent = output.deletingLastPathComponent()
    WorkingFolders.collectStale(in: parent, prefix: ".\(output.lastPathComponent).quire-")
    let folder = parent.appendingPathComponent(".\(output.lastPathComponent).quire-\(WorkingFolders.token()).staging")
    // The output is built beside where it goes: a folder that takes no new entry refuses it (said as the library
    // says it for a conversion).
    guard mkdir(folder.path, 0o755) == 0 else {
        let reason = String(cString: strerror(errno)).lowercased()
        throw CommandFailure(
            status: .unwritableOutput,
            message: "'\(output.path)' cannot be written: its folder '\(parent.path)' does not take new files (\(reason)).")
    }
    // What is built in it is the output: messages about its files name the output.
    Messages.show(folder, as: output.path)
    return folder
}

/// Moves a finished output into place: refuses to overwrite unless `force`, then renames.
func moveIntoPlace(_ built: URL, to output: URL, force: Bool) throws {
    try writing(output) {
        if FileManager.default.fileExists(atPath: output.path) || (try? FileManager.default.destinationOfSymbolicLink(atPath: output.path)) != nil {
            guard force else {
                throw CommandFailure(
                    status: .unwritableOutput, message: "'\(output.path)' already exists; pass --force to replace it.")
            }
            try DocumentContents.checkReplaceable(output)
            try FileManager.default.removeItem(at: output)
        }
        guard rename(built.path, output.path) == 0 else {
            throw CommandFailure(
                status: .unwritableOutput,
                message: "Unable to move the result into '\(output.path)': \(String(cString: strerror(errno))).")
        }
    }
}

/// Refuses an existing output up front (before any work) unless `force`; and one whose folder does not exist
/// unless `folderMayBeMissing` (a dry run over many files, whose folders are made only when converting).
func checkOutputFree(_ output: URL, force: Bool, folderMayBeMissing: Bool = false) throws {
    if !force && FileManager.default.fileExists(atPath: output.path) {
        throw CommandFailure(status: .unwritableOutput, message: "'\(output.path)' already exists; pass --force to replace it.")
    }
    try writing(output) { try DocumentContents.checkReplaceable(output) }
    var isDirectory: ObjCBool = false
    let parent = output.deletingLastPathComponent()
    if folderMayBeMissing && !FileManager.default.fileExists(atPath: parent.path) { return }
    guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory) else {
        throw CommandFailure(status: .unwritableOutput, message: "The folder of '\(output.path)' does not exist.")
    }
    guard isDirectory.boolValue else {
        throw CommandFailure(
            status: .unwritableOutput, message: "'\(output.path)' cannot be written: '\(parent.path)' is a file, not a folder.")
    }
}

/// Opens a document or store for reading, mapping failures to the input exit status.
func openContents(_ path: String) throws -> DocumentContents {
    let url = fileURL(path)
    let contents = try reading(url) { try DocumentContents(contentsOf: url) }
    if contents.container == .zipArchive || contents.container == .tarArchive, let work = contents.packageURL {
        CleanupOnSignal.register(work)
    }
    return contents
}

/// The canonical dump of a document or store.
func dumpContents(_ contents: DocumentContents, model: ModelOption = ModelOption()) throws -> ObjectGraphDump {
    try reading(contents.url) { try ObjectGraphDump(storeAt: contents.storeURL, type: contents.storeType, modelFile: model.url) }
}

/// `--model PATH`: the application's model, for a store Quire did not write (a Mac app's store).
struct ModelOption: ParsableArguments {
    @Option(
        name: .customLong("model"),
        help: ArgumentHelp(
            "The application's model (.xcdatamodeld, .xcdatamodel, .mom or .momd), for a store Quire did not write.",
            discussion: "Used when the store embeds no Quire model; without it, the model Core Data cached in the store.",
            valueName: "path"),
        completion: .file(extensions: ["xcdatamodeld", "xcdatamodel", "mom", "momd"]))
    var path: String?

    /// The model file's URL, when one was named.
    var url: URL? { path.map(fileURL) }
}
