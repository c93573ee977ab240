import CQuireSupport
import QuireCore
import QuireStores
import Foundation

/// The external records of one attached store (``StoreOptions/externalRecordsDirectory``): its options, the
/// record plan of each entity, and the files it keeps in the records directory (see ``ExternalRecordLayout``).
///
/// Used only under the coordinator's lock, like the store itself.
final class ExternalRecordFolder {
    /// The store whose records these are.
    let store: PersistentStore
    /// The records directory.
    let directory: URL
    /// The records' file name extension.
    let fileExtension: String
    /// The records' format.
    let format: StoreOptions.ExternalRecordFormat
    private var plans: [ObjectIdentifier: ExternalRecordEntityPlan] = [:]

    /// The records of a store, or nil when its options write none.
    ///
    /// - Throws: ``QuireError/Code/invalidArgument`` for options that do not go together (see
    ///   `StoreOptions.checkExternalRecordOptions()`), for an entity whose name cannot be a folder name, and for a
    ///   store that cannot give new objects their IDs before it saves (custom incremental stores) when records
    ///   hold relationships.
    init?(store: PersistentStore) throws {
        let options = store.options
        try options.checkExternalRecordOptions()
        guard let directory = options.externalRecordsDirectory, let fileExtension = options.externalRecordExtension else { return nil }
        self.store = store
        self.directory = directory.standardizedFileURL
        self.fileExtension = fileExtension
        self.format = options.externalRecordsFileFormat
        for entity in store.entities {
            let plan = self.plan(for: entity)
            guard plan.writesRecords else { continue }
            guard ExternalRecordLayout.isSafeComponent(entity.name) else {
                throw QuireError(
                    .invalidArgument,
                    "The entity '\(entity.name)' cannot have external records: its name cannot be a folder name.",
                    context: .init(file: directory, entity: entity.name))
            }
            if !plan.relationships.isEmpty, !(store.backend is any PrimaryKeyReservingBackend) {
                throw QuireError(
                    .invalidArgument,
                    "The \(store.type) store cannot keep relationships in external records: its new objects get IDs "
                        + "only as it saves (entity '\(entity.name)').",
                    context: .init(file: directory, entity: entity.name))
            }
        }
    }

    /// The plan of an entity, worked out on first use.
    func plan(for entity: EntityDescription) -> ExternalRecordEntityPlan {
        let key = ObjectIdentifier(entity)
        if let plan = plans[key] { return plan }
        let plan = ExternalRecordEntityPlan(entity)
        plans[key] = plan
        return plan
    }

    /// Whether any entity of the store gets records.
    var writesAnyRecords: Bool { store.entities.contains { plan(for: $0).writesRecords } }

    /// The folder of the store's records (named by its UUID, which Save As changes).
    var storeFolder: URL { ExternalRecordLayout.storeFolder(in: directory, identifier: store.identifier) }

    /// The file of an object's record.
    func recordURL(entity: String, primaryKey: Int64) -> URL {
        storeFolder.appendingPathComponent(entity, isDirectory: true)
            .appendingPathComponent(ExternalRecordLayout.fileName(primaryKey: primaryKey, extension: fileExtension))
    }

    // MARK: Attaching

    /// Readies the directory for a store being attached: notes the store's path, type and model in the support
    /// folder, and writes every record anew when the store's record folder is missing (a store new to the
    /// directory, or whose records were deleted to have them rebuilt, as Core Data does) or a save or rebuild
    /// was interrupted there.
    ///
    /// - Throws: The file system's error when the directory cannot be made or written; nothing is left half-made.
    func attach() throws {
        try Self.createDirectory(directory)
        try writeSupportFiles()
        if needsRebuild() { try rebuild() }
    }

    /// Writes `store.plist` and `model.json` for the store when they differ from what is there.
    func writeSupportFiles() throws {
        let support = ExternalRecordLayout.supportFolder(in: directory, identifier: store.identifier)
        try Self.createDirectory(support)
        var info: [String: PropertyListValue] = [
            ExternalRecordLayout.storeTypeKey: .string(store.type.rawValue),
            ExternalRecordLayout.storeUUIDKey: .string(store.identifier),
        ]
        if let url = store.url { info[ExternalRecordLayout.storePathKey] = .string(url.standardizedFileURL.path) }
        let infoFile = support.appendingPathComponent(ExternalRecordLayout.storeInfoName)
        try Self.writeIfChanged(try PropertyListValue.encode(info, format: .xml), to: infoFile)
        let modelFile = support.appendingPathComponent(ExternalRecordLayout.modelName)
        try Self.writeIfChanged(try store.model.serializedRepresentation(), to: modelFile)
    }

    /// Whether the store's records must be written anew: its folder is missing, or holds what an interrupted
    /// save left, or an interrupted rebuild left its folder beside it.
    func needsRebuild() -> Bool {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: storeFolder.path, isDirectory: &isDirectory), isDirectory.boolValue else { return true }
        if let names = try? manager.contentsOfDirectory(atPath: storeFolder.path),
            names.contains(where: { $0.hasPrefix(ExternalRecordLayout.savingPrefix) })
        {
            return true
        }
        let identifier = store.identifier
        if let names = try? manager.contentsOfDirectory(atPath: directory.path),
            names.contains(where: { ExternalRecordLayout.isRebuildLeftover($0, identifier: identifier) })
        {
            return true
        }
        return false
    }

    /// Removes the store's records and support files (its file was replaced by another store's).
    func removeRecords() {
        try? FileManager.default.removeItem(at: storeFolder)
        try? FileManager.default.removeItem(at: ExternalRecordLayout.supportFolder(in: directory, identifier: store.identifier))
    }

    // MARK: Files

    /// Makes a folder and the folders above it.
    static func createDirectory(_ url: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw QuireError(
                .fileWriteUnknown, "The external records folder '\(url.path)' cannot be made.", context: .init(file: url),
                underlying: QuireUnderlyingError(error))
        }
    }

    /// Writes a support file atomically unless it already holds `data`.
    static func writeIfChanged(_ data: Data, to url: URL) throws {
        if FileManager.default.contents(atPath: url.path) == data { return }
        try AtomicFileWriter.write([data], to: url)
    }

    /// Creates a file (which must not exist) with `data`, flushed to disk when `flush` is set.
    static func createFile(_ url: URL, _ data: Data, flush: Bool) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw AtomicFileWriter.error(errno, "create the external record", url) }
        do {
            try AtomicFileWriter.writeAll(descriptor, data, url)
            if flush, fsync(descriptor) != 0 { throw AtomicFileWriter.error(errno, "flush", url) }
        } catch {
            close(descriptor)
            unlink(url.path)
            throw error
        }
        guard close(descriptor) == 0 else {
            let code = errno
            unlink(url.path)
            throw AtomicFileWriter.error(code, "close", url)
        }
    }

    /// Makes what was written to the files of `folder` durable: one `syncfs` of its file system.
    static func flushFileSystem(of folder: URL) throws {
        guard quire_syncfs_of_directory(folder.path) == 0 else { throw AtomicFileWriter.error(errno, "flush the file system of", folder) }
    }

    /// Makes renames and removals in a folder durable.
    static func flushDirectory(_ folder: URL) throws {
        guard quire_fsync_directory(folder.path) == 0 else { throw AtomicFileWriter.error(errno, "flush the folder", folder) }
    }
}
