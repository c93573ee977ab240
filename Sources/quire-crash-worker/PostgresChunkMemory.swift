import Foundation
import Quire
import QuirePostgres
import QuireSupport

/// `quire-crash-worker pg-chunks <store URL> <bytes>`: saves one value of `bytes` bytes into a PostgreSQL store
/// with external data, then reads it back a chunk at a time, in a process of its own so that the peak resident
/// memory it reports is this work's alone (the test suite runs other suites beside the test that asks).
/// Prints `save <growth> read <growth> bytes <read> mismatches <n> sha256 <hex>` and exits 0, or prints the error
/// and exits 1.
enum PostgresChunkMemory {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 2, let url = URL(string: arguments[0]), let size = Int(arguments[1]) else {
            FileHandle.standardError.write(Data("usage: quire-crash-worker pg-chunks <url> <bytes>\n".utf8))
            return 2
        }
        do {
            let value = pattern(offset: 0, count: size)
            let saveGrowth = try peakGrowth {
                let context = try stack(url)
                try context.performAndWait {
                    let entity = try entityOrFail(context)
                    let blob = ManagedObject(entity: entity, insertInto: context)
                    blob.setValue(value, forKey: "bytes")
                    try context.save()
                }
            }
            var read = 0
            var mismatches = 0
            var hasher = SHA256()
            let readGrowth = try peakGrowth {
                let context = try stack(url)
                try context.performAndWait {
                    let request = FetchRequest<ManagedObject>(entityName: "Blob")
                    guard let blob = try context.fetch(request).first else { return }
                    _ = try blob.readData(forKey: "bytes") { chunk in
                        if chunk != pattern(offset: read, count: chunk.count) { mismatches += 1 }
                        hasher.update(data: chunk)
                        read += chunk.count
                    }
                }
            }
            print("save \(saveGrowth) read \(readGrowth) bytes \(read) mismatches \(mismatches) sha256 \(SHA256.hexString(hasher.finalize()))")
            return 0
        } catch {
            print("error \(error)")
            return 1
        }
    }

    /// One entity with a binary attribute kept as external data above 1,000 bytes.
    private static func stack(_ url: URL) throws -> ManagedObjectContext {
        let bytes = AttributeDescription(name: "bytes", type: .binaryData)
        bytes.allowsExternalBinaryDataStorage = true
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Blob", properties: [bytes])])
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var options = StoreOptions()
        options.externalDataThreshold = 1_000
        try coordinator.addPersistentStore(type: .postgres, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private static func entityOrFail(_ context: ManagedObjectContext) throws -> EntityDescription {
        guard let entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Blob"] else {
            throw QuireError(.invalidModel, "The worker's model has no entity 'Blob'.")
        }
        return entity
    }

    /// `count` bytes of a pattern no two chunks share, from `offset` on (so any slice can be checked alone).
    static func pattern(offset: Int, count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            let n = UInt64(offset + i)
            bytes[i] = UInt8(truncatingIfNeeded: (n &* 2_654_435_761) >> 13 ^ n >> 8)
        }
        return Data(bytes)
    }

    /// How far the resident set rises above where it is now while `body` runs (`VmHWM` after resetting it).
    private static func peakGrowth(_ body: () throws -> Void) rethrows -> Int {
        if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
            handle.write(Data("5".utf8))
            try? handle.close()
        }
        let before = residentBytes()
        try body()
        return peakBytes() - before
    }

    private static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    private static func peakBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return (line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }
}
