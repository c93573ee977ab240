import Foundation
import Quire
import QuirePostgres
import QuireCore
import QuireStores

/// `quire convert` to and from a PostgreSQL database: `quire convert Report.quiredoc
/// 'postgresql://user@host/db?schema=report'` and back (`quire convert 'postgresql://…?schema=report' Copy.quiredoc`).
extension Convert {
    /// Whether an argument names a PostgreSQL store rather than a file.
    static func isDatabase(_ argument: String) -> Bool { StoreSource.isDatabase(argument) }

    /// Save As between a document or store file and a PostgreSQL store, with progress; a dry run checks the
    /// input and the output and writes nothing (no schema, no rows, no file).
    func runPostgres(input: String, output: String) throws {
        if Self.isDatabase(input) && Self.isDatabase(output) {
            throw CommandFailure(status: .usage, message: "Convert a PostgreSQL store to a file, or a file to a PostgreSQL store.")
        }
        guard let databaseURL = URL(string: Self.isDatabase(input) ? input : output) else {
            throw CommandFailure(status: .usage, message: "'\(PostgresURL.redact(Self.isDatabase(input) ? input : output))' is not a URL.")
        }
        let shown = PostgresURL.redact(databaseURL.absoluteString)
        if Self.isDatabase(output) {
            // Options about files mean nothing for a database: refused rather than ignored.
            if package || archive != nil || mimeType != nil || type != nil {
                throw CommandFailure(
                    status: .usage,
                    message: "--package, --archive, --mime-type and --to describe files; a PostgreSQL store is none of them.")
            }
            if force {
                throw CommandFailure(
                    status: .usage,
                    message: "--force cannot replace a PostgreSQL schema; convert into a new schema (?schema=name), or drop the old one first.")
            }
            if input == "-" { throw CommandFailure(status: .usage, message: "Convert a file into PostgreSQL, not standard input.") }
            try toDatabase(input: input, databaseURL: databaseURL, shown: shown)
        } else {
            if output == "-" { throw CommandFailure(status: .usage, message: "Convert PostgreSQL into a file, not standard output.") }
            try fromDatabase(databaseURL: databaseURL, shown: shown, output: output)
        }
    }

    /// A document or store file into the database.
    private func toDatabase(input: String, databaseURL: URL, shown: String) throws {
        let source = try openContents(input)
        defer { source.close() }
        let redacted = PostgresURL.redactedURL(databaseURL)
        let modelFile = self.model.url
        let model = try reading(source.url) {
            try ManagedObjectModel.forStore(at: source.storeURL, type: source.storeType, modelFile: modelFile).model
        }
        let extras = try reading(source.url) { try source.extras() }
        var notKept: [String] = []
        if !extras.searchMetadataFields.isEmpty {
            notKept.append("search metadata (\(extras.searchMetadataFields.joined(separator: ", "))): a database has none")
        }
        let files = extras.packageFiles.filter { !$0.hasSuffix("/") }
        if !files.isEmpty { notKept.append("package files \(files.prefix(3).joined(separator: ", ")): a database holds no files") }
        if !extras.extendedAttributes.isEmpty {
            notKept.append("extended attributes \(extras.extendedAttributes.keys.sorted().joined(separator: ", ")): a database has none")
        }
        if dryRun {
            report(input: input, output: shown, inputType: source.storeType, outputType: .postgres, objects: nil, notKept: notKept)
            return
        }
        let tracker = ConversionTracker(storeBytes: ConversionJob.size(of: source.storeURL), externalDataBytes: 0, writesArchive: false)
        let progress = ProgressBar(mode: ProgressBar.mode(quiet: quiet, json: json), jobs: [tracker])
        progress.begin(tracker)
        defer { progress.stop() }
        tracker.update(.init(phase: .verifying))
        // What DocumentContents.convert refuses (rows the model cannot represent, relationships that disagree with
        // their inverses) is refused here too.
        try reading(source.url) { try StoreVerification.checkConvertible(storeAt: source.storeURL, type: source.storeType, model: model) }
        let coordinator = try reading(source.url) { try PersistentStoreCoordinator(managedObjectModel: model) }
        var readOnly = StoreOptions()
        readOnly.isReadOnly = true
        let store = try reading(source.url) { try coordinator.addPersistentStore(type: source.storeType, at: source.storeURL, options: readOnly) }
        try reading(source.url) { try StoreVerification.checkConvertible(store, in: coordinator) }
        let count = try reading(source.url) { try objectCount(coordinator) }
        tracker.update(.init(phase: .copyingStore, objectCount: count))
        do {
            let target = try coordinator.migratePersistentStore(store, to: databaseURL, type: .postgres) { copied, total in
                tracker.update(.init(phase: .copyingStore, objectsCopied: copied, objectCount: total))
            }
            tracker.update(.init(phase: .finishing, objectsCopied: count, objectCount: count))
            try coordinator.remove(target)
        } catch {
            throw CommandFailure.output(error, redacted)
        }
        progress.end(tracker, line: "", succeeded: true)
        progress.stop()
        report(input: input, output: shown, inputType: source.storeType, outputType: .postgres, objects: count, notKept: notKept)
    }

    /// The database into a new document or store file, through a private SQLite file.
    private func fromDatabase(databaseURL: URL, shown: String, output: String) throws {
        let redacted = PostgresURL.redactedURL(databaseURL)
        let outputURL = fileURL(output)
        try checkOutputFree(outputURL, force: force)
        let ext = outputURL.pathExtension.lowercased()
        // The output's kind as for a file's conversion; without an extension, a document package.
        let container = try OutputKind.container(
            for: outputURL, package: package, archive: archive, input: redacted, inputContainer: .package)
        let named = container == .storeFile ? OutputKind.storeExtensions[ext] : nil
        if let asked = type?.storeType, let named, asked != named {
            throw CommandFailure(
                status: .usage,
                message: "'\(outputURL.lastPathComponent)' is named like a \(named) store, but --to asks for \(asked): name it "
                    + "'\(outputURL.deletingPathExtension().lastPathComponent).\(OutputKind.storeExtension(asked))' or drop --to.")
        }
        let storeType = type?.storeType ?? named ?? .sqlite
        let modelFile = self.model.url
        let model = try reading(redacted) { try ManagedObjectModel.forStore(at: databaseURL, type: .postgres, modelFile: modelFile).model }
        if dryRun {
            report(input: shown, output: output, inputType: .postgres, outputType: storeType, objects: nil, notKept: [])
            return
        }
        let tracker = ConversionTracker(storeBytes: 1 << 20, externalDataBytes: 0, writesArchive: container.documentFormat?.isArchive == true)
        let progress = ProgressBar(mode: ProgressBar.mode(quiet: quiet, json: json), jobs: [tracker])
        progress.begin(tracker)
        defer { progress.stop() }
        tracker.update(.init(phase: .verifying))
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("quire-convert-\(WorkingFolders.token())")
        try writing(work, shownAs: "a temporary folder") {
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        CleanupOnSignal.register(work)
        CleanupOnSignal.watch(outputURL)
        defer { try? FileManager.default.removeItem(at: work) }
        let staged = work.appendingPathComponent("Store.sqlite")
        Messages.show(staged, as: output)
        let count: Int
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            var readOnly = StoreOptions()
            readOnly.isReadOnly = true
            let store = try coordinator.addPersistentStore(type: .postgres, at: databaseURL, options: readOnly)
            count = try objectCount(coordinator)
            tracker.update(.init(phase: .copyingStore, objectCount: count))
            let copy = try coordinator.migratePersistentStore(store, to: staged, type: .sqlite) { copied, total in
                tracker.update(.init(phase: .copyingStore, objectsCopied: copied, objectCount: total))
            }
            try coordinator.remove(copy)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure.input(error, redacted)
        }
        let contents = try openContents(staged.path)
        defer { contents.close() }
        // The second pass (the private SQLite file into the output) reports only its later phases, so that the
        // bar goes on from the copy rather than starting over.
        _ = try writing(outputURL) {
            try contents.convert(
                to: outputURL, container: container, storeType: storeType, mimeType: mimeType, replacing: force,
                onProgress: { step in
                    if step.phase.rawValue >= DocumentContents.ConversionProgress.Phase.copyingExternalData.rawValue {
                        tracker.update(.init(
                            phase: step.phase, objectsCopied: count, objectCount: count, bytesDone: step.bytesDone,
                            bytesTotal: step.bytesTotal))
                    }
                })
        }
        progress.end(tracker, line: "", succeeded: true)
        progress.stop()
        report(input: shown, output: output, inputType: .postgres, outputType: storeType, objects: count, notKept: [])
    }

    private func objectCount(_ coordinator: PersistentStoreCoordinator) throws -> Int {
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            var count = 0
            for entity in coordinator.managedObjectModel.entities where entity.superentity == nil {
                count += try context.count(for: FetchRequest<ManagedObject>(entityName: entity.name))
            }
            return count
        }
    }

    private func report(input: String, output: String, inputType: StoreType, outputType: StoreType, objects: Int?, notKept: [String]) {
        if json {
            var object: [String: Any] = [
                "input": ["path": input, "storeType": inputType.rawValue],
                "output": ["path": output, "storeType": outputType.rawValue], "notKept": notKept, "dryRun": dryRun,
            ]
            if let objects { object["objects"] = objects }
            try? printJSON(object)
        } else if !quiet {
            if let objects {
                print("Converted \(input) (\(inputType)) to \(output) (\(outputType)): \(objects) objects.")
            } else {
                print("Would convert \(input) (\(inputType)) to \(output) (\(outputType)).")
            }
            for item in notKept { print("  not kept: \(item)") }
        }
    }
}
