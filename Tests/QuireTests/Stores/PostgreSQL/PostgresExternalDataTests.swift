import Foundation
import Testing

import Quire
import QuirePostgres
import QuireStores
import QuireTestSupport

/// External binary data in a PostgreSQL store: kept as chunks in `z_externaldata`, written and read a chunk at a
/// time, removed with the objects that refer to them, and never left behind by a failed save.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresExternalDataTests {
    private func stack(_ url: URL, threshold: Int = 1_000) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.everyTypeModel())
        var options = StoreOptions()
        options.externalDataThreshold = threshold
        try coordinator.addPersistentStore(type: .postgres, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// The chunk rows a store holds, read by a connection of the test's own.
    private func chunkCount(_ url: URL) throws -> Int64 {
        let connection = try PostgresConnection(url: PostgresURL(url))
        defer { connection.close() }
        return try connection.query("SELECT COUNT(*) FROM z_externaldata").int64(0, 0)
    }

    /// `count` bytes of a pattern no two chunks share, from `offset` on (so any slice can be checked alone).
    private static func pattern(offset: Int, count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            let n = UInt64(offset + i)
            bytes[i] = UInt8(truncatingIfNeeded: (n &* 2_654_435_761) >> 13 ^ n >> 8)
        }
        return Data(bytes)
    }

    /// Saved and read in a process of its own (`quire-crash-worker pg-chunks`), whose peak resident memory is that
    /// work's alone: in this process the other suites run beside the test and their memory counts too (a CI run
    /// saw 150 MiB of theirs). Measured alone, saving adds about 0 MiB and reading a chunk at a time about 1 MiB;
    /// a whole copy of the value would add 64 MiB.
    @Test func a64MiBValueIsSavedAndReadAChunkAtATime() throws {
        let worker = try #require(CrashTests.worker, "quire-crash-worker is not built; run swift build --build-tests first")
        let url = try #require(PostgresTestServer.storeURL())
        let size = 64 << 20
        let process = Process()
        let pipe = Pipe()
        process.executableURL = worker
        process.arguments = ["pg-chunks", url.absoluteString, String(size)]
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        let fields = output.split(whereSeparator: \.isWhitespace).map(String.init)
        func field(_ name: String) -> String? { fields.firstIndex(of: name).flatMap { $0 + 1 < fields.count ? fields[$0 + 1] : nil } }
        let saveGrowth = try #require(field("save").flatMap { Int($0) }, "\(output)")
        let readGrowth = try #require(field("read").flatMap { Int($0) }, "\(output)")
        #expect(saveGrowth < size / 4, "saving 64 MiB raised the resident set by \(saveGrowth >> 20) MiB")
        #expect(readGrowth < size / 4, "reading 64 MiB raised the resident set by \(readGrowth >> 20) MiB")
        #expect(field("bytes") == String(size))
        #expect(field("mismatches") == "0")
        #expect(field("sha256") == SHA256.hexString(SHA256.hash(Self.pattern(offset: 0, count: size))))
        #expect(try chunkCount(url) == Int64(size / ExternalDataChunks.size))
    }

    @Test func deletingReplacingAndFailingLeaveNoChunksBehind() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let (coordinator, context) = try stack(url)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Sample"])
        var samples: [ManagedObject] = []
        for index in 0..<4 {
            let sample = ManagedObject(entity: entity, insertInto: context)
            sample.setValue(Int64(index), forKey: "vInteger64")
            sample.setValue(Self.pattern(offset: index, count: 300_000), forKey: "vBinarydata")
            samples.append(sample)
        }
        // Small values stay in the row.
        samples[3].setValue(Data([1, 2, 3]), forKey: "vBinarydata")
        try context.save()
        #expect(try chunkCount(url) == 6)

        // Replacing a value removes the old chunks; changing another attribute keeps them.
        samples[0].setValue(Self.pattern(offset: 99, count: 10_000), forKey: "vBinarydata")
        samples[1].setValue("renamed", forKey: "vString")
        try context.save()
        #expect(try chunkCount(url) == 5)

        // A save that fails on a conflict writes no chunks.
        let (_, other) = try stack(url)
        let request = FetchRequest<ManagedObject>(entityName: "Sample")
        request.predicate = try QueryPredicate(format: "vInteger64 == 2")
        let theirs = try #require(try other.fetch(request).first)
        theirs.setValue("theirs", forKey: "vString")
        try other.save()
        samples[2].setValue(Self.pattern(offset: 7, count: 600_000), forKey: "vBinarydata")
        samples[0].setValue(Self.pattern(offset: 8, count: 600_000), forKey: "vBinarydata")
        #expect(throws: QuireError.self) { try context.save() }
        #expect(try chunkCount(url) == 5)
        context.rollback()

        // Deleting an object removes its chunks; so does a batch delete.
        context.delete(samples[1])
        try context.save()
        #expect(try chunkCount(url) == 3)
        _ = try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Sample")))
        #expect(try chunkCount(url) == 0)
    }

    @Test func saveAsCarriesChunkedValuesToSQLiteAndBack() throws {
        let folder = try TemporaryFolder()
        let url = try #require(PostgresTestServer.storeURL())
        let (coordinator, context) = try stack(url)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Sample"])
        for index in 0..<3 {
            let sample = ManagedObject(entity: entity, insertInto: context)
            sample.setValue("s\(index)", forKey: "vString")
            sample.setValue(Self.pattern(offset: index, count: 700_000 + index), forKey: "vBinarydata")
        }
        try context.save()
        let before = try ObjectGraphDump(context: context)

        var sqliteOptions = StoreOptions()
        sqliteOptions.externalDataThreshold = 1_000
        let file = folder.file("Copy.sqlite")
        let store = try #require(coordinator.persistentStores.first)
        let copy = try coordinator.migratePersistentStore(store, to: file, options: sqliteOptions, type: .sqlite)
        #expect(try ObjectGraphDump(storeAt: file, type: .sqlite).differences(from: before).isEmpty)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.file(".Copy_SUPPORT/_EXTERNAL_DATA").path)
        #expect(files.count == 3)

        let back = try #require(PostgresTestServer.storeURL())
        var postgresOptions = StoreOptions()
        postgresOptions.externalDataThreshold = 1_000
        _ = try coordinator.migratePersistentStore(copy, to: back, options: postgresOptions, type: .postgres)
        #expect(try ObjectGraphDump(storeAt: back, type: .postgres, modelFile: nil).differences(from: before).isEmpty)
        #expect(try chunkCount(back) == 9)
    }

    /// A save that fails after its chunked values were streamed (a deferred UNIQUE constraint an administrator
    /// added, checked when the save commits) leaves no chunk and no row behind; the corrected save streams the
    /// value again and it reads back, chunk by chunk, byte for byte.
    @Test func aSaveFailingAtCommitLeavesNoStreamedChunks() throws {
        let url = try #require(PostgresTestServer.storeURL())
        let schema = try PostgresURL(url).schema
        let (coordinator, context) = try stack(url)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Sample"])
        try context.save()
        let admin = try PostgresConnection(url: PostgresURL(url))
        defer { admin.close() }
        try admin.execute(
            "ALTER TABLE \"\(schema)\".zsample ADD CONSTRAINT one_each UNIQUE (zvinteger64) DEFERRABLE INITIALLY DEFERRED")
        let size = 10 * ExternalDataChunks.size + 12_345
        let big = ManagedObject(entity: entity, insertInto: context)
        big.setValue(Int64(7), forKey: "vInteger64")
        big.setValue(Self.pattern(offset: 0, count: size), forKey: "vBinarydata")
        let twin = ManagedObject(entity: entity, insertInto: context)
        twin.setValue(Int64(7), forKey: "vInteger64")
        twin.setValue(Self.pattern(offset: 5, count: 2 * ExternalDataChunks.size), forKey: "vBinarydata")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.message.contains("one_each"), "\(error.message)")
        #expect(try chunkCount(url) == 0)
        #expect(try admin.query("SELECT COUNT(*) FROM \"\(schema)\".zsample").int64(0, 0) == 0)
        #expect(context.hasChanges)

        context.delete(twin)
        try context.save()
        #expect(try chunkCount(url) == 11)
        let (_, again) = try stack(url)
        let read = try #require(try again.fetch(FetchRequest<ManagedObject>(entityName: "Sample")).first)
        var offset = 0
        var mismatches = 0
        _ = try read.readData(forKey: "vBinarydata") { chunk in
            if chunk != Self.pattern(offset: offset, count: chunk.count) { mismatches += 1 }
            offset += chunk.count
        }
        #expect(offset == size)
        #expect(mismatches == 0)
    }
}
