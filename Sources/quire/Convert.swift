import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores
import QuireSupport

/// `quire convert INPUT OUTPUT` and `quire convert SOURCE… OUTDIR`: Save As into another store type or
/// container, one file or many.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert documents or stores to another store type or container (Save As).",
        usage: """
            quire convert INPUT OUTPUT [--to <type>] [--package | --archive <format>] [<options>]
            quire convert SOURCE... OUTDIR [--to <type>] [--package | --archive <format>] [<options>]
            """,
        discussion: """
            With two paths, INPUT is converted into OUTPUT. With more, or when a SOURCE is a folder, or OUTDIR ends \
            in '/', every SOURCE (folders walked for documents and stores, by content) is converted into OUTDIR \
            (created when missing), keeping its name and sub-folder with the new extension, in parallel \
            (--jobs). The input's kind is read from its content. The output's container comes from --package or \
            --archive, else from its extension (.sqlite, .sqlite3, .db, .xml, .binary, .bin, .quire: a store file; \
            .zip, .tar: an archive; .quiredoc: a package; no extension: the input's container); other extensions are \
            refused. Its store type comes from --to, else a store file's extension, else the input's type. \
            Metadata and external data are carried over. Nothing is left behind on failure. Exit status 0 when \
            every conversion succeeded, else the highest status of those that failed. Either path of the two-path \
            form may be a PostgreSQL store, 'postgresql://user@host/db?schema=name' (see the PostgreSQL article), \
            or '-' for standard input or output (a store file or an archive; name a file called '-' as './-'). \
            What the input has besides its store (search metadata, other package files, extended attributes, the \
            file mode) is kept where the output can hold it; the summary says what could not be.

            Examples:
              quire convert Report.quiredoc Report.zip --to xml
              quire convert Report.zip Report.sqlite
              quire convert Mac.sqlite Copy.quiredoc --model App.xcdatamodeld
              quire convert Documents/ Converted/ --archive zip --jobs 2
              quire convert Report.quiredoc 'postgresql://me@localhost/db?schema=report' --dry-run
              cat Report.zip | quire convert - - --archive tar > Report.tar
            """)

    @Argument(help: ArgumentHelp("INPUT OUTPUT, or SOURCE... OUTDIR ('-': standard input or output).", valueName: "path"), completion: .file())
    var paths: [String] = []

    @Option(name: .customLong("to"), help: ArgumentHelp("The output's store type: sqlite, xml or binary.", valueName: "type"))
    var to: StoreTypeArgument?

    @Option(
        name: .customLong("type"),
        help: ArgumentHelp("Another name for --to (sqlite, xml or binary); give one of the two.", valueName: "type"))
    var typeAlias: StoreTypeArgument?

    /// The store type asked for with `--to` or `--type`.
    var type: StoreTypeArgument? { to ?? typeAlias }

    @Flag(help: "Write document packages (folders).")
    var package = false

    @Option(help: "Write flat archives: zip or tar.")
    var archive: ArchiveArgument?

    @Option(help: "The MIME type of a new package or archive (default: the input's, else application/x-quire-document).")
    var mimeType: String?

    @OptionGroup var model: ModelOption

    @Flag(help: "Replace outputs that exist (files and document packages, never other folders).")
    var force = false

    @Flag(name: [.customShort("n"), .long], help: "Check the inputs and outputs and say what would be done; write nothing.")
    var dryRun = false

    @Option(name: [.customShort("j"), .long], help: "How many files to convert at once (default: the number of cores).")
    var jobs: Int?

    @Flag(name: .shortAndLong, help: "Print only errors: no progress, no result lines.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Print each file's result and how long each phase took.")
    var verbose = false

    @Flag(help: "Print what was done as JSON (errors too).")
    var json = false

    func validate() throws {
        if paths.count < 2 { throw ValidationError("convert needs an input and an output (INPUT OUTPUT or SOURCE... OUTDIR).") }
        if to != nil && typeAlias != nil { throw ValidationError("--to and --type name the same thing; give one of them.") }
        if paths.dropFirst().dropLast().contains("-") || (paths.count > 2 && paths.last == "-") {
            throw ValidationError("'-' (standard input or output) works only with one input and one output.")
        }

        if package && archive != nil { throw ValidationError("--package and --archive cannot be used together.") }
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together.") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be 1 or more.") }
        if let mimeType, mimeType.isEmpty || !mimeType.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) {
            throw ValidationError("--mime-type must be one word of printable ASCII.")
        }
    }

    private var settings: ConversionJob.Settings {
        ConversionJob.Settings(
            storeType: type?.storeType, package: package, archive: archive, mimeType: mimeType, modelFile: model.url,
            force: force, dryRun: dryRun, verbose: verbose)
    }

    /// Whether the command names many inputs and an output folder.
    private var isBatch: Bool {
        guard let last = paths.last else { return false }
        return paths.count > 2 || last.hasSuffix("/") || paths.dropLast().contains { DocumentFinder.isPlainFolder(fileURL($0)) }
    }

    func run() throws {
        if paths.count == 2, Self.isDatabase(paths[0]) || Self.isDatabase(paths[1]) {
            return try runPostgres(input: paths[0], output: paths[1])
        }
        if isBatch {
            try runBatch()
            return
        }
        var job = ConversionJob(input: paths[0], output: paths[1], container: nil)
        var spooled: URL?
        defer { if let spooled { try? FileManager.default.removeItem(at: spooled.deletingLastPathComponent()) } }
        if paths[0] == "-" {
            let file = try StandardStreams.spoolInput()
            spooled = file
            Messages.show(file, as: "standard input")
            job.input = "standard input"
            job.inputFile = file.path
        }
        var streamed: URL?
        defer { if let streamed { try? FileManager.default.removeItem(at: streamed) } }
        if paths[1] == "-" {
            let folder = try StandardStreams.privateFolder()
            streamed = folder
            let name = try streamName(input: job.inputFile ?? job.input)
            Messages.show(folder.appendingPathComponent(name), as: "standard output")
            job.output = "standard output"
            job.outputFile = folder.appendingPathComponent(name).path
            job.container = try streamContainer(input: job.inputFile ?? job.input)
        }
        CleanupOnSignal.watch(fileURL(job.outputFile ?? job.output))
        let tracker = job.makeTracker(settings: settings)
        let progress = ProgressBar(mode: dryRun ? .off : ProgressBar.mode(quiet: quiet, json: json), jobs: [tracker])
        progress.begin(tracker)
        defer { progress.stop() }
        let outcome = try job.run(settings: settings, tracker: tracker)
        progress.stop()
        if let streamed, !dryRun, let file = job.outputFile {
            let support = streamed.appendingPathComponent("." + fileURL(file).lastPathComponent + "_SUPPORT")
            if FileManager.default.fileExists(atPath: support.path) {
                throw CommandFailure(
                    status: .unwritableOutput,
                    message: "standard output: the store has external data files, which a store file keeps in a folder beside it; "
                        + "write an archive instead (--archive zip).")
            }
            try StandardStreams.send(fileURL(file))
        }
        // With the document on standard output, the summary goes to standard error.
        let toStandardError = paths[1] == "-"
        if json {
            if toStandardError { printError(String(decoding: try jsonData(outcome.json), as: UTF8.self)) } else { try printJSON(outcome.json) }
        } else if !quiet {
            if toStandardError { printError(outcome.line) } else { print(outcome.line) }
        }
    }

    /// The container written to standard output: an archive or a store file, never a folder.
    private func streamContainer(input: String) throws -> DocumentContents.Container {
        if package {
            throw CommandFailure(status: .usage, message: "A package is a folder and cannot go to standard output; pass --archive zip or tar.")
        }
        if let archive { return DocumentContents.Container(archive.format) }
        if type != nil { return .storeFile }
        let container = try reading(fileURL(input)) { try DocumentContents.container(at: fileURL(input)) }
        if container == .package {
            throw CommandFailure(
                status: .usage, message: "'\(paths[0])' is a package (a folder): pass --archive zip or tar to write it to standard output.")
        }
        return container
    }

    /// The private file name of an output written to standard output.
    private func streamName(input: String) throws -> String {
        switch try streamContainer(input: input) {
        case .zipArchive: return "output.zip"
        case .tarArchive: return "output.tar"
        default: return "output." + (type.map { OutputKind.storeExtension($0.storeType) } ?? "store")
        }
    }

    // MARK: Many files

    /// Plans every conversion: inputs named directly keep their name, files found in a folder their path
    /// under it; each gets the extension of the output's kind.
    func plan() throws -> [ConversionJob] {
        guard let last = paths.last else { return [] }
        var jobs: [ConversionJob] = []
        for source in paths.dropLast() {
            let url = fileURL(source)
            if DocumentFinder.isPlainFolder(url) {
                let found = try reading(url) { try DocumentFinder.documents(in: url) }
                if found.isEmpty, verbose { printError("quire: '\(source)' holds no document or store.") }
                for item in found {
                    jobs.append(job(input: joined(source, item.relativePath), container: item.container, relativePath: item.relativePath, into: last))
                }
            } else {
                // An input that cannot be read fails on its own when converted; the others still are.
                let container = try? DocumentContents.container(at: url)
                jobs.append(job(input: source, container: container, relativePath: url.lastPathComponent, into: last))
            }
        }
        if jobs.isEmpty {
            throw CommandFailure(status: .unreadableInput, message: "No document or store found in \(paths.dropLast().map { "'\($0)'" }.joined(separator: ", ")).")
        }
        var seen: [String: String] = [:]
        for job in jobs {
            let key = fileURL(job.output).path
            if let other = seen[key] {
                throw CommandFailure(
                    status: .usage,
                    message: "'\(other)' and '\(job.input)' would both be written to '\(job.output)'; convert them apart.")
            }
            seen[key] = job.input
        }
        return jobs
    }

    private func joined(_ folder: String, _ relative: String) -> String {
        folder.hasSuffix("/") ? folder + relative : folder + "/" + relative
    }

    /// The job for one input of a run over many, whose output goes under `folder` at `relativePath` with the
    /// output kind's extension.
    private func job(
        input: String, container inputContainer: DocumentContents.Container?, relativePath: String, into folder: String
    ) -> ConversionJob {
        let container: DocumentContents.Container =
            package ? .package : archive.map { DocumentContents.Container($0.format) } ?? inputContainer ?? .storeFile
        let name = (relativePath as NSString).deletingPathExtension
        let inputExtension = (relativePath as NSString).pathExtension
        let ext: String
        switch container {
        case .package: ext = inputContainer == .package && !inputExtension.isEmpty ? inputExtension : OutputKind.packageExtension
        case .zipArchive: ext = inputContainer == .zipArchive && !inputExtension.isEmpty ? inputExtension : "zip"
        case .tarArchive: ext = "tar"
        case .storeFile:
            ext = type.map { OutputKind.storeExtension($0.storeType) } ?? (inputExtension.isEmpty ? "sqlite" : inputExtension)
        }
        return ConversionJob(input: input, output: joined(folder, name + "." + ext), container: container)
    }

    /// Converts every planned file, `--jobs` at a time, and prints one summary line.
    func runBatch() throws {
        let planned = try plan()
        try prepareOutputFolder(fileURL(paths[paths.count - 1]), jobs: planned)
        let settings = self.settings
        let trackers = planned.map { $0.makeTracker(settings: settings) }
        let progress = ProgressBar(mode: dryRun ? .off : ProgressBar.mode(quiet: quiet, json: json), jobs: trackers)
        let results = LockedValue([Result<ConversionJob.Outcome, CommandFailure>?](repeating: nil, count: planned.count))
        let next = LockedValue(0)
        let workers = min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, planned.count)
        let started = Date()
        let (quiet, verbose, json) = (self.quiet, self.verbose, self.json)
        DispatchQueue.concurrentPerform(iterations: max(workers, 1)) { _ in
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < planned.count else { return }
                let job = planned[index]
                progress.begin(trackers[index])
                let result: Result<ConversionJob.Outcome, CommandFailure>
                do {
                    result = .success(try job.run(settings: settings, tracker: trackers[index]))
                } catch let failure as CommandFailure {
                    result = .failure(failure)
                } catch {
                    result = .failure(CommandFailure.input(error, fileURL(job.input)))
                }
                results.withLock { $0[index] = result }
                switch result {
                case .success(let outcome):
                    progress.end(trackers[index], line: "\(job.input) -> \(job.output): done", succeeded: true)
                    if (verbose || settings.dryRun) && !json && !quiet {
                        progress.printAbove(outcome.line, toStandardError: false)
                    } else if !outcome.notKept.isEmpty && !json && !quiet {
                        // Never silent: what the output could not hold is said even without --verbose.
                        for item in outcome.notKept { progress.printAbove("\(job.input) -> \(job.output): not kept: \(item)", toStandardError: false) }
                    }
                case .failure(let failure):
                    progress.end(trackers[index], line: "\(job.input) -> \(job.output): failed", succeeded: false)
                    if !json { progress.printAbove("quire: \(failure.message)", toStandardError: true) }
                }
            }
        }
        progress.stop()
        let outcomes = results.withLock { $0 }.compactMap { $0 }
        let failures = outcomes.compactMap { if case .failure(let failure) = $0 { failure } else { nil } }
        let successes = outcomes.compactMap { if case .success(let outcome) = $0 { outcome } else { nil } }
        let objects = successes.reduce(0) { $0 + $1.objects }
        let files = successes.reduce(0) { $0 + $1.externalDataFiles }
        let bytes = successes.reduce(Int64(0)) { $0 + $1.externalDataBytes }
        let folder = paths[paths.count - 1]
        if json {
            var entries: [Any] = []
            for (job, outcome) in zip(planned, outcomes) {
                switch outcome {
                case .success(let result): entries.append(result.json as [String: Any])
                case .failure(let failure):
                    entries.append(["input": ["path": job.input], "output": ["path": job.output], "error": failure.jsonObject] as [String: Any])
                }
            }
            try printJSON([
                "files": entries, "succeeded": successes.count, "failed": failures.count, "objects": objects,
                "externalDataFiles": files, "externalDataBytes": bytes, "dryRun": dryRun,
            ] as [String: Any])
        } else if !quiet {
            let verb = dryRun ? "Would convert" : "Converted"
            var line = "\(verb) \(successes.count) of \(planned.count) files into \(folder)"
            if !failures.isEmpty { line += " (\(failures.count) failed)" }
            if !dryRun { line += ": \(objects) objects, \(files) external data files (\(byteCount(bytes)))" }
            if verbose { line += String(format: " in %.2f s", Date().timeIntervalSince(started)) }
            print(line + ".")
        }
        if let worst = failures.map(\.status.rawValue).max() { throw ExitCode(worst) }
    }

    /// Makes sure the output folder is a folder of the user's (created when missing, with the sub-folders the
    /// outputs need), never a document or a file.
    private func prepareOutputFolder(_ folder: URL, jobs: [ConversionJob]) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, DocumentFinder.isPlainFolder(folder) else {
                throw CommandFailure(
                    status: .usage,
                    message: "'\(folder.path)' is not a folder: when converting several files, the last path is the folder they go into.")
            }
        } else if !dryRun {
            try writing(folder) { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false) }
        }
        guard !dryRun else { return }
        for job in jobs {
            let parent = fileURL(job.output).deletingLastPathComponent()
            if parent != folder.standardizedFileURL {
                try writing(parent) { try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true) }
            }
        }
    }
}
