import Foundation
import Quire
import QuireCore
import QuireStores

/// The store rows: saving and loading 100,000 objects in the binary and XML stores, reading metadata
/// without the graph, and Save As of a store with a gigabyte of external data.
enum StoreBench {
    /// Removes a store file and everything beside it that belongs to it.
    static func removeStore(_ url: URL) {
        try? StoreKind.sqlite.removeFiles(at: url)
    }

    /// A stack on a new store of a type.
    static func openStack(_ url: URL, type: StoreType, model: ManagedObjectModel = benchModel()) throws
        -> (PersistentStoreCoordinator, ManagedObjectContext)
    {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// The 100,000 benchmark rows as inserted objects of a context (not timed).
    static func fill(_ context: ManagedObjectContext, _ coordinator: PersistentStoreCoordinator, count: Int = BenchData.rowCount) {
        guard let entity = coordinator.managedObjectModel.entitiesByName["Item"] else { return }
        context.performAndWait { insertBenchItems(into: context, entity: entity, count: count) }
    }

    /// The fastest of `runs` saves of 100,000 inserted objects into a new store of `type`: the context's save
    /// (validation, the store's encoding, the atomic write and its fsyncs) and closing the store.
    static func save(_ url: URL, type: StoreType, runs: Int) throws -> Double {
        var best = Double.infinity
        for _ in 0..<runs {
            removeStore(url)
            let (coordinator, context) = try openStack(url, type: type)
            fill(context, coordinator)
            let elapsed = try measure {
                try context.performAndWait { try context.save() }
                for store in coordinator.persistentStores { try coordinator.remove(store) }
            }
            best = min(best, elapsed)
        }
        return best
    }

    /// The fastest of `runs` loads: a new coordinator adds the store (the atomic store reads and decodes every
    /// record into rows) and counts the items. Removing the store comes after the clock stops, as the
    /// baseline frees its rows after its clock stops; the store frees its records on a background queue,
    /// so each run first waits a moment for the previous run's to be gone rather than compete with them.
    static func load(_ url: URL, type: StoreType, runs: Int) throws -> Double {
        var best = Double.infinity
        for _ in 0..<runs {
            Thread.sleep(forTimeInterval: 0.25)
            var coordinator: PersistentStoreCoordinator?
            let elapsed = try measure {
                let (loaded, context) = try openStack(url, type: type)
                let count = try context.count(for: FetchRequest<ManagedObject>(entityName: "Item"))
                precondition(count == BenchData.rowCount, "loaded \(count) items")
                coordinator = loaded
            }
            for store in coordinator?.persistentStores ?? [] { try coordinator?.remove(store) }
            best = min(best, elapsed)
        }
        return best
    }

    /// Reads the metadata of each store, `repeats` times.
    static func readMetadata(_ urls: [URL], repeats: Int = 20) throws {
        for _ in 0..<repeats {
            for url in urls {
                let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
                precondition(metadata[StoreMetadataKey.storeUUID] != nil, "no UUID in \(url.path)")
            }
        }
    }

    /// Stores of each type with one object, beside `folder`'s others.
    static func oneObjectStores(in folder: URL) throws -> [URL] {
        var urls: [URL] = []
        for (type, name) in [(StoreType.sqlite, "one.sqlite"), (.xml, "one.xml"), (.binary, "one.quire")] {
            let url = folder.appendingPathComponent(name)
            removeStore(url)
            let (coordinator, context) = try openStack(url, type: type)
            fill(context, coordinator, count: 1)
            try context.performAndWait { try context.save() }
            for store in coordinator.persistentStores { try coordinator.remove(store) }
            urls.append(url)
        }
        return urls
    }

    // MARK: Save As with a gigabyte of external data

    static func scanModel() -> ManagedObjectModel {
        let image = AttributeDescription(name: "image", type: .binaryData)
        image.allowsExternalBinaryDataStorage = true
        let scan = EntityDescription(name: "Scan", properties: [AttributeDescription(name: "title", type: .string), image])
        return ManagedObjectModel(entities: [scan])
    }

    /// Free bytes on the volume holding `url`.
    static func freeBytes(_ url: URL) -> Int64 {
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: url.path)
        return (attributes?[.systemFreeSize] as? NSNumber)?.int64Value ?? 0
    }

    /// An SQLite store of 10,000 scans of which `withImages` carry a 1 MiB image (kept in files beside it).
    static func makeScanStore(_ url: URL, withImages: Int) throws {
        removeStore(url)
        let (coordinator, context) = try openStack(url, type: .sqlite, model: scanModel())
        guard let entity = coordinator.managedObjectModel.entitiesByName["Scan"] else { return }
        var image = Data(count: 1_048_577)
        try context.performAndWait {
            for index in 0..<10_000 {
                let scan = ManagedObject(entity: entity, insertInto: context)
                scan.setValue("scan \(index)", forKey: "title")
                if index < withImages {
                    image[index % image.count] &+= 1
                    image[0] = UInt8(truncatingIfNeeded: index)
                    scan.setValue(image, forKey: "image")
                }
                if index % 1000 == 999 { try context.save() }
            }
            try context.save()
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    /// Copies a store and its support folder, as a file manager would (the baseline).
    static func copyFolder(_ url: URL, to target: URL) throws {
        try FileManager.default.copyItem(at: url, to: target)
        let support = url.deletingLastPathComponent().appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT")
        let targetSupport = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.deletingPathExtension().lastPathComponent)_SUPPORT")
        try FileManager.default.copyItem(at: support, to: targetSupport)
    }

    /// The fastest of `runs` Save As of the scan store into a new SQLite store (the stack is open beforehand).
    static func saveAs(_ url: URL, to target: URL, runs: Int) throws -> Double {
        var best = Double.infinity
        for _ in 0..<runs {
            removeStore(target)
            let (coordinator, _) = try openStack(url, type: .sqlite, model: scanModel())
            guard let store = coordinator.persistentStores.first else { break }
            let elapsed = try measure { _ = try coordinator.migratePersistentStore(store, to: target, type: .sqlite) }
            best = min(best, elapsed)
            for attached in coordinator.persistentStores { try coordinator.remove(attached) }
            // Put the source back where it was for the next run: Save As left it detached and intact.
        }
        removeStore(target)
        return best
    }
}
