import Foundation
import Quire
import QuireCore
import QuireStores

/// `quire convert` to and from a PostgreSQL database: `quire convert Report.quiredoc
/// 'postgresql://user@host/db?schema=report'` and back (`quire convert 'postgresql://…?schema=report' Copy.quiredoc`).
extension Convert {
    /// Whether an argument names a PostgreSQL store rather than a file.
    static func isDatabase(_ argument: String) -> Bool {
        argument.hasPrefix("postgresql://") || argument.hasPrefix("postgres://")
    }

    /// Save As between a document or store file and a PostgreSQL store.
    func runPostgres(input: String, output: String) throws {
        if Self.isDatabase(input) && Self.isDatabase(output) {
            throw CommandFailure(status: .usage, message: "Convert a PostgreSQL store to a file, or a file to a PostgreSQL store.")
        }
        guard let databaseURL = URL(string: Self.isDatabase(input) ? input : output) else {
            throw CommandFailure(status: .usage, message: "'\(PostgresURL.redact(Self.isDatabase(input) ? input : output))' is not a URL.")
        }
        let shown = PostgresURL.redact(databaseURL.absoluteString)
        if Self.isDatabase(output) {
            // A document or store file into the database.
            let source = try openContents(input)
            defer { source.close() }
            let model = try ManagedObjectModel.forStore(at: source.storeURL, type: source.storeType, modelFile: model.url).model
            try StoreVerification.checkConvertible(storeAt: source.storeURL, type: source.storeType, model: model)
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            var readOnly = StoreOptions()
            readOnly.isReadOnly = true
            let store = try coordinator.addPersistentStore(type: source.storeType, at: source.storeURL, options: readOnly)
            try StoreVerification.checkConvertible(store, in: coordinator)
            let count = try objectCount(coordinator)
            do {
                let target = try coordinator.migratePersistentStore(store, to: databaseURL, type: .postgres)
                try coordinator.remove(target)
            } catch {
                throw CommandFailure.output(error, PostgresURL.redactedURL(databaseURL))
            }
            report(input: input, output: shown, inputType: source.storeType, outputType: .postgres, objects: count)
            return
        }
        // The database into a new document or store file, through a private SQLite file.
        let outputURL = fileURL(output)
        try checkOutputFree(outputURL, force: force)
        let model = try ManagedObjectModel.forStore(at: databaseURL, type: .postgres, modelFile: model.url).model
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("quire-convert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let staged = work.appendingPathComponent("Store.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var readOnly = StoreOptions()
        readOnly.isReadOnly = true
        let store = try coordinator.addPersistentStore(type: .postgres, at: databaseURL, options: readOnly)
        let count = try objectCount(coordinator)
        let copy = try coordinator.migratePersistentStore(store, to: staged, type: .sqlite)
        try coordinator.remove(copy)
        let ext = outputURL.pathExtension.lowercased()
        // The output's kind as for a file's conversion; without an extension, a document package.
        let container = try OutputKind.container(
            for: outputURL, package: package, archive: archive, input: staged, inputContainer: .package)
        let storeType = type?.storeType ?? (container == .storeFile ? OutputKind.storeExtensions[ext] : nil) ?? .sqlite
        let contents = try openContents(staged.path)
        defer { contents.close() }
        _ = try contents.convert(to: outputURL, container: container, storeType: storeType, mimeType: mimeType, replacing: force)
        report(input: shown, output: output, inputType: .postgres, outputType: storeType, objects: count)
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

    private func report(input: String, output: String, inputType: StoreType, outputType: StoreType, objects: Int) {
        if json {
            try? printJSON([
                "input": ["path": input, "storeType": inputType.rawValue],
                "output": ["path": output, "storeType": outputType.rawValue], "objects": objects,
            ] as [String: Any])
        } else {
            print("Converted \(input) (\(inputType)) to \(output) (\(outputType)): \(objects) objects.")
        }
    }
}
