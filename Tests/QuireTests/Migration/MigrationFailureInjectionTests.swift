// Injects failures through MigrationManager's internal test hook (`state.failurePoint`), which has no public face: uses Quire's internals.
import Foundation
import Testing

@testable import Quire

/// A migration stopped by an injected failure in the middle of copying objects or just before the swap.
@Suite struct MigrationFailureInjectionTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    private func fixture(_ type: StoreType) throws -> JournalFixture {
        try JournalFixture(in: folder, type: type, name: "Journal.\(type.rawValue.lowercased())")
    }

    @Test(arguments: migratableStoreTypes)
    func aMigrationInterruptedByAnInjectedFailureLeavesV1Intact(type: StoreType) throws {
        let journal = try fixture(type)
        for point in [MigrationManager.FailurePoint.afterObjects(10), .beforeSwap] {
            let manager = MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1])
            manager.batchSize = 5
            manager.state.withLock { $0.failurePoint = point }
            expectError(.migration) { try manager.migrateStore(at: journal.url, type: type) }
            try journal.expectVersion1Intact()
        }
        // A leftover of a crashed migration is cleared by the next one, which succeeds.
        let leftover = journal.url.deletingLastPathComponent()
            .appendingPathComponent(JournalFixture.migrationFolderPrefix(for: journal.url) + "crashed")
        try FileManager.default.createDirectory(at: leftover, withIntermediateDirectories: true)
        try Data("half a store".utf8).write(to: leftover.appendingPathComponent(journal.url.lastPathComponent))
        try MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1]).migrateStore(at: journal.url, type: type)
        try journal.expectNoLeftovers()
        let (_, context) = try journal.open(version: 1)
        try journal.expectVersion2(context)
    }
}
