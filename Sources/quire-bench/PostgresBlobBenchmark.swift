import CLibPQ
import Foundation
import Quire
import QuireCore
import QuirePostgres
import QuireStores

/// `pg-blob-save-1gb`: 1 GiB of external data saved into a PostgreSQL store, 32 values of 32 MiB, each in a save of
/// its own and turned back into a fault after it, as an application importing large files one by one would. The
/// store writes each value as chunks of ``ExternalDataChunks/size`` bytes in the save's transaction, holding
/// one chunk's parameters at a time, so the peak memory is about one value the application holds (32 MiB) and
/// never the gigabyte. The baseline writes the same bytes with libpq: one transaction per value, one prepared
/// INSERT with binary parameters per chunk, into a table shaped as the store's `z_externaldata`. The row's peak
/// memory is the Quire side's own (the peak is started afresh before it).
enum PostgresBlobBench {
    static let name = "pg-blob-save-1gb"
    static let valueCount = 32
    static let valueBytes = 32 << 20

    /// Value `index`: a pattern no two values share, cheap to make on both sides.
    static func value(_ index: Int) -> Data {
        var data = Data(count: valueBytes)
        data.withUnsafeMutableBytes { bytes in
            var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 | 1
            for offset in stride(from: 0, to: bytes.count - 7, by: 8) {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                bytes.storeBytes(of: state, toByteOffset: offset, as: UInt64.self)
            }
        }
        return data
    }

    static func row(raw: RawPostgres, quireURL: URL, runs: Int) throws -> BenchmarkRow {
        let rawTime = try measure(bestOf: runs) { try raw.saveBlobs() }
        PeakMemory.resetPeak()
        let before = Double(PeakMemory.residentBytes()) / 1_048_576
        var saved = 0
        let quireTime = try measure(bestOf: runs) {
            try StoreKinds.kind(for: .postgres).removeFiles(at: quireURL)
            let bytes = AttributeDescription(name: "bytes", type: .binaryData)
            bytes.allowsExternalBinaryDataStorage = true
            let model = ManagedObjectModel(entities: [EntityDescription(name: "Blob", properties: [bytes])])
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .postgres, at: quireURL)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            guard let entity = model.entitiesByName["Blob"] else { return }
            try context.performAndWait {
                for index in 0..<valueCount {
                    let blob = ManagedObject(entity: entity, insertInto: context)
                    blob.setValue(value(index), forKey: "bytes")
                    try context.save()
                    context.refresh(blob, mergeChanges: false)
                }
            }
            saved = try storedBytes(quireURL)
            try closeStack(coordinator)
        }
        let peak = PeakMemory.takePeakMegabytes()
        precondition(saved == valueCount * valueBytes, "\(name): the store holds \(saved) bytes of external data")
        return BenchmarkRow(
            name: name, quireMilliseconds: quireTime, baselineMilliseconds: rawTime, target: 1.3,
            note: "\(valueCount) values of \(valueBytes >> 20) MiB, a save each; peak is Quire's (\(Int(before)) MB before it), target ≤ 100 MB",
            peakMegabytes: peak)
    }

    /// The bytes of external data a store holds, counted by the server.
    static func storedBytes(_ url: URL) throws -> Int {
        let connection = try PostgresConnection(url: PostgresURL(url))
        defer { connection.close() }
        let result = try connection.query("SELECT COALESCE(SUM(octet_length(z_bytes)), 0)::BIGINT FROM z_externaldata", binaryResult: true)
        return result.count == 1 ? Int(result.int64(0, 0)) : 0
    }
}

extension RawPostgres {
    /// Writes ``PostgresBlobBench``'s values as chunks with libpq: one transaction per value, one prepared INSERT
    /// with binary parameters (`text`, `integer`, `bytea`) per chunk.
    func saveBlobs() throws {
        PQclear(try exec("""
            DROP SCHEMA IF EXISTS bench_raw CASCADE; CREATE SCHEMA bench_raw; SET search_path TO bench_raw;
            CREATE TABLE zchunk (z_uuid TEXT NOT NULL, z_chunk INTEGER NOT NULL, z_bytes BYTEA NOT NULL, PRIMARY KEY (z_uuid, z_chunk));
            DEALLOCATE ALL
            """))
        var types: [UInt32] = [25, 23, 17]
        let prepared = PQprepare(connection, "chunk", "INSERT INTO zchunk (z_uuid, z_chunk, z_bytes) VALUES ($1, $2, $3)", 3, &types)
        let status = PQresultStatus(prepared)
        PQclear(prepared)
        guard status == PGRES_COMMAND_OK else { throw failure("prepare the chunk insert") }
        var formats: [Int32] = [1, 1, 1]
        for index in 0..<PostgresBlobBench.valueCount {
            let data = PostgresBlobBench.value(index)
            let name = Array(UUID().uuidString.utf8)
            PQclear(try exec("BEGIN"))
            try data.withUnsafeBytes { bytes in
                try name.withUnsafeBytes { nameBytes in
                    var chunk = 0
                    var start = 0
                    while start < bytes.count {
                        let count = min(ExternalDataChunks.size, bytes.count - start)
                        var number = Int32(chunk).bigEndian
                        let result = withUnsafeBytes(of: &number) { numberBytes -> OpaquePointer? in
                            var values: [UnsafePointer<CChar>?] = [
                                nameBytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                                numberBytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                                bytes.baseAddress.map { ($0 + start).assumingMemoryBound(to: CChar.self) },
                            ]
                            var lengths: [Int32] = [Int32(nameBytes.count), 4, Int32(count)]
                            return PQexecPrepared(connection, "chunk", 3, &values, &lengths, &formats, 0)
                        }
                        let ok = PQresultStatus(result) == PGRES_COMMAND_OK
                        PQclear(result)
                        guard ok else { throw failure("insert chunk \(chunk) of value \(index)") }
                        start += count
                        chunk += 1
                    }
                }
            }
            PQclear(try exec("COMMIT"))
        }
    }
}
