// Injects failures through MigrationManager's internal test hook (`state.failurePoint`), which has no public face: uses Quire's internals.
import Foundation
import Testing

@testable import Quire

/// A migration of a PostgreSQL schema stopped in the middle of copying objects, or with the new schema complete
/// just before the swap: the store's schema is as it was and the new one is gone.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresMigrationFailureInjectionTests {
    @Test func aMigrationInterruptedByAnInjectedFailureLeavesTheSchemaAsItWas() throws {
        let folder = try TemporaryFolder()
        let store = try PostgresJournal(in: folder)
        let before = try store.snapshot()
        for point in [MigrationManager.FailurePoint.afterObjects(10), .beforeSwap] {
            let manager = MigrationManager(sourceModel: store.versions[0], destinationModel: store.versions[1])
            manager.batchSize = 5
            manager.state.withLock { $0.failurePoint = point }
            expectError(.migration) { try manager.migrateStore(at: store.url, type: .postgres) }
            try store.expectUnchanged(since: before)
        }
    }
}
