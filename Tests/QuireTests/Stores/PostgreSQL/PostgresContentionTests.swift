import Foundation
import Testing

import Quire
import QuirePostgres
import QuirePostgresTestSupport
import QuireStores
import QuireTestSupport

/// Four processes save the same eight objects 2,500 times each under every merge policy (``PostgresContention``):
/// no update the store took is lost. `QUIRE_PG_CONTENTION_SAVES` sets the saves per process.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresContentionTests {
    static var saves: Int { ProcessInfo.processInfo.environment["QUIRE_PG_CONTENTION_SAVES"].flatMap { Int($0) } ?? 2_500 }

    @Test(arguments: MergePolicyType.allCases)
    func manyProcessesLoseNoUpdate(policy: MergePolicyType) throws {
        let policy = MergePolicy(merge: policy)
        let worker = try #require(CrashTests.worker, "quire-crash-worker is not built; run swift build --build-tests first")
        let url = try #require(PostgresTestServer.storeURL())
        try PostgresContention.seed(url)
        var processes: [(Process, Pipe)] = []
        for writer in 0..<PostgresContention.writerCount {
            let process = Process()
            let pipe = Pipe()
            process.executableURL = worker
            process.arguments = ["pg-writer", url.absoluteString, String(writer), String(Self.saves), "\(policy)"]
            process.standardOutput = pipe
            try process.run()
            processes.append((process, pipe))
        }
        var applied: [[Int]] = []
        for (process, pipe) in processes {
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(output)")
            let counts = output.split(separator: "\n").first { $0.hasPrefix("applied ") }?.split(separator: " ").dropFirst().compactMap { Int($0) }
            applied.append(counts ?? [])
        }
        #expect(applied.allSatisfy { $0.reduce(0, +) == Self.saves })

        // The store as it is: per slot, its version and each writer's counter.
        let schema = try PostgresURL(url).schema
        let admin = try PostgresConnection(url: PostgresURL(url))
        let rows = try admin.execute("SELECT zindex, z_opt, zw0, zw1, zw2, zw3 FROM \"\(schema)\".zslot ORDER BY zindex")
        #expect(rows.count == PostgresContention.slotCount)
        for row in 0..<rows.count {
            let index = Int(rows.int64(row, 0))
            let taken = applied.map { $0.count > index ? $0[index] : 0 }
            // Every save the store took made exactly one new version of the slot: none was lost or doubled.
            #expect(rows.int64(row, 1) == 1 + Int64(taken.reduce(0, +)), "slot \(index) under \(policy)")
            // Writers change only their own counter; only `overwrite` writes other writers' stale counters back.
            if policy != .overwrite {
                for writer in 0..<PostgresContention.writerCount {
                    #expect(rows.int64(row, 2 + writer) == Int64(taken[writer]), "slot \(index), writer \(writer) under \(policy)")
                }
            }
        }
    }
}
