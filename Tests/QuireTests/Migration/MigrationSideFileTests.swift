import Foundation
import Testing

import Quire

/// What a migration makes of the side files a closed SQLite store leaves beside it (the SQLite kind's
/// `sideFileSuffixes` and `derivedSideFileSuffixes`): a shared-memory index (`-shm`) holds no data, so one left
/// non-empty by a clean close neither stops the migration nor survives it. (A store open elsewhere does stop it:
/// `MigrationTests.aStoreOpenElsewhereIsNotReplaced`.)
@Suite struct MigrationSideFileTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    @Test func aNonEmptySharedMemoryIndexLeftByACleanCloseDoesNotStopAMigration() throws {
        let journal = try JournalFixture(in: folder, type: .sqlite, name: "Journal.sqlite")
        let shm = URL(fileURLWithPath: journal.url.path + "-shm")
        try Data(count: 32 * 1024).write(to: shm)
        let manager = MigrationManager(sourceModel: journal.versions[0], destinationModel: journal.versions[1])
        try manager.migrateStore(at: journal.url, type: .sqlite)
        #expect(!FileManager.default.fileExists(atPath: shm.path))
        let (_, context) = try journal.open(version: 1)
        try journal.expectVersion2(context)
        try journal.expectNoLeftovers()
    }
}
