import CQuireSupport
import QuireCore
import QuireStores
import Foundation

/// The external records of one save of one store, written before the store commits and put in place after it
/// did: a failed save leaves no record behind and the previous ones as they were.
///
/// Before the commit, every record the save writes (its inserted and updated objects of entities that get
/// records) is written, flushed, into a hidden folder of the store's record folder (`.saving-<UUID>`), and the
/// entities' folders are made; nothing a reader sees changes. Once the store committed, ``commit(permanentIDs:)``
/// renames each record over its place (an atomic replacement: a reader sees the old record or the new one,
/// never a mix) and removes the records of the deleted objects. When the store's save fails,
/// ``discard()`` removes the hidden folder. A crash in between leaves the hidden folder, which the next
/// attach of the store finds: it then writes the store's records anew from the store.
final class ExternalRecordStaging {
    /// Where a staged record goes: an object saved before (its key known) or one the save inserts.
    enum Target {
        case key(Int64)
        case inserted(position: Int)
    }

    let folder: ExternalRecordFolder
    let stagingURL: URL

    private init(folder: ExternalRecordFolder, stagingURL: URL) {
        self.folder = folder
        self.stagingURL = stagingURL
    }
    private(set) var writes: [(staged: URL, entity: String, target: Target)] = []
    private(set) var removals: [URL] = []
    /// Entity folders this save made (removed again, when empty, by ``discard()``).
    private(set) var createdFolders: [URL] = []

    /// Staged records of more than this many objects are flushed with one `syncfs` instead of an fsync each.
    static let syncFileSystemThreshold = 16

    /// Writes the records of `request`'s objects saved to the folder's store, or returns nil when the save
    /// writes or removes none.
    ///
    /// - Parameters:
    ///   - request: The save (temporary IDs of inserted objects that records name are already replaced).
    ///   - folder: The store's records.
    /// - Throws: The file system's errors (out of space, permissions) and property-list encoding errors; the
    ///   staged files are removed then.
    static func stage(_ request: SaveRequest, folder: ExternalRecordFolder) throws -> ExternalRecordStaging? {
        let store = folder.store
        var staging: ExternalRecordStaging?
        func current() throws -> ExternalRecordStaging {
            if let staging { return staging }
            // A record folder removed while the store is attached holds none of the other objects' records once
            // made again: it is marked to be rebuilt when the store is next attached.
            let wasRemoved = !FileManager.default.fileExists(atPath: folder.storeFolder.path)
            let url = folder.storeFolder.appendingPathComponent(ExternalRecordLayout.savingPrefix + UUID().uuidString, isDirectory: true)
            try ExternalRecordFolder.createDirectory(url)
            if wasRemoved { folder.markStale() }
            let made = ExternalRecordStaging(folder: folder, stagingURL: url)
            staging = made
            return made
        }
        // Each record is flushed as it is written, or, for many, all at once by one `syncfs`.
        let count = (request.inserted + request.updated).reduce(0) { count, change in
            change.store === store && folder.plan(for: change.objectID.entity).writesRecords ? count + 1 : count
        }
        let flushesEach = count <= syncFileSystemThreshold
        do {
            for (position, change) in request.inserted.enumerated() where change.store === store {
                let plan = folder.plan(for: change.objectID.entity)
                guard plan.writesRecords else { continue }
                let target: Target = change.objectID.primaryKey.map { .key($0) } ?? .inserted(position: position)
                try current().write(change, plan: plan, target: target, flush: flushesEach)
            }
            for change in request.updated where change.store === store {
                let plan = folder.plan(for: change.objectID.entity)
                guard plan.writesRecords, let key = change.objectID.primaryKey else { continue }
                try current().write(change, plan: plan, target: .key(key), flush: flushesEach)
            }
            for change in request.deleted where change.store === store {
                guard folder.plan(for: change.objectID.entity).writesRecords, let key = change.objectID.primaryKey else { continue }
                try current().removals.append(folder.recordURL(entity: change.objectID.entity.name, primaryKey: key))
            }
            guard let staged = staging else { return nil }
            if !flushesEach { try ExternalRecordFolder.flushFileSystem(of: staged.stagingURL) }
            try ExternalRecordFolder.flushDirectory(staged.stagingURL)
            return staged
        } catch {
            staging?.discard()
            throw error
        }
    }

    /// Encodes one object's record into the staging folder and makes its entity's folder.
    private func write(_ change: SaveRequest.Change, plan: ExternalRecordEntityPlan, target: Target, flush: Bool) throws {
        let backend: any PersistentStoreBackend = folder.store.backend
        var related: [ExternalRecordContent.Related] = []
        for (relationship, slot) in plan.relationships where slot < change.relationships.count {
            var storage = change.relationships[slot]
            if storage.isFault {
                // A to-many never loaded: the store's members, with the changes made while it was a fault.
                let ids = try backend.relatedObjectIDs(of: change.objectID, relationship: relationship)
                storage = relationship.isOrdered ? .ordered(.init(ids)) : .toMany(Set(ids))
                if let members = change.memberChanges[slot] { storage = members.applied(to: storage) }
            }
            let ids = storage.objectIDs
            if let temporary = ids.first(where: \.isTemporaryID) {
                throw QuireError(
                    .persistentStoreSave,
                    "The external record of \(change.objectID) cannot name the new object \(temporary) in '\(relationship.name)': "
                        + "it has no permanent ID.",
                    context: .init(file: folder.directory, entity: change.objectID.entity.name, key: relationship.name))
            }
            related.append((relationship, ids))
        }
        let objectID = change.objectID
        let data = try ExternalRecordContent.encode(
            plan: plan, attributes: change.attributes, related: related, format: folder.format,
            externalData: { key, reference in try backend.readExternalData(reference, of: objectID, key: key) })
        let entity = objectID.entity.name
        let entityFolder = folder.storeFolder.appendingPathComponent(entity, isDirectory: true)
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: entityFolder.path, isDirectory: &isDirectory) || !isDirectory.boolValue {
            // Made now, so that putting the record in place after the commit is a rename alone; something else
            // at that name fails the save here, before the store commits.
            try ExternalRecordFolder.createDirectory(entityFolder)
            createdFolders.append(entityFolder)
        }
        let staged = stagingURL.appendingPathComponent(String(writes.count))
        writes.append((staged, entity, target))
        try ExternalRecordFolder.createFile(staged, data, flush: flush)
    }

    /// Puts the staged records in place and removes those of deleted objects, after the store committed.
    ///
    /// - Parameter permanentIDs: The permanent IDs of the save's inserted objects, by position in the request.
    /// - Returns: Whether everything was done. When a rename or removal fails (the folder was changed behind
    ///   Quire's back), the staging folder stays, so that the next attach of the store writes its records anew.
    @discardableResult
    func commit(permanentIDs: [ObjectID]) -> Bool {
        var touched: Set<URL> = []
        for write in writes {
            let key: Int64?
            switch write.target {
            case .key(let value): key = value
            case .inserted(let position): key = position < permanentIDs.count ? permanentIDs[position].primaryKey : nil
            }
            guard let key else { return false }
            let target = folder.recordURL(entity: write.entity, primaryKey: key)
            guard rename(write.staged.path, target.path) == 0 else { return false }
            touched.insert(target.deletingLastPathComponent())
        }
        for removal in removals {
            guard unlink(removal.path) == 0 || errno == ENOENT else { return false }
            touched.insert(removal.deletingLastPathComponent())
        }
        for folder in touched { _ = quire_fsync_directory(folder.path) }
        guard rmdir(stagingURL.path) == 0 else { return false }
        _ = quire_fsync_directory(folder.storeFolder.path)
        return true
    }

    /// Removes the staged records and the entity folders the save made (when still empty): the store did not
    /// commit, and the records stay as they were.
    func discard() {
        try? FileManager.default.removeItem(at: stagingURL)
        for created in createdFolders.reversed() { rmdir(created.path) }
    }
}
