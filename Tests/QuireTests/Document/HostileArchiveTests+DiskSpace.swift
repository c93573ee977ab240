// Extracts into a folder on a small tmpfs with the archive reader itself (what a full disk does to it has no
// other face than the document open that wraps it): uses Quire's internals.
import Foundation
import Testing

@testable import Quire

extension HostileArchiveTests {
    @Test(.enabled(if: SearchMetadataTests.canMountRamfs, "mounting a small tmpfs (a disk that fills up) needs root"))
    func aFullDiskIsReportedAsOutOfSpace() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("quire-tmpfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        try #require(SearchMetadataTests.run("/bin/mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", base.path]))
        defer {
            _ = SearchMetadataTests.run("/bin/umount", [base.path])
            try? FileManager.default.removeItem(at: base)
        }
        // 40 MiB of zeros: under every size limit and the ratio floor, over the 16 MiB disk.
        let url = try makeArchive("fills-the-disk.zip", zip: true, [.file("StoreContent/persistentStore", Data(count: 40 << 20))])
        let work = base.appendingPathComponent("work")
        try DocumentFiles.makeDirectory(work, mode: 0o700)
        let error = expectQuireError(.fileWriteOutOfSpace) { try FlatArchive.extract(url, into: work, limits: ArchiveLimits()) }
        #expect(error?.message.contains("not enough free space") == true, "\(String(describing: error))")
        #expect(error?.message.contains(url.lastPathComponent) == true)
        // Extraction stopped with the reserve still free.
        var filesystem = statvfs()
        #expect(statvfs(base.path, &filesystem) == 0)
        #expect(filesystem.f_bavail > 0)

        // An archive that fits is extracted on the same disk.
        DocumentFiles.removeTree(work)
        try DocumentFiles.makeDirectory(work, mode: 0o700)
        let small = try makeArchive("fits.zip", zip: true, [.file("StoreContent/persistentStore", Data(count: 4 << 20))])
        try FlatArchive.extract(small, into: work, limits: ArchiveLimits())
        #expect(DocumentFiles.kind(of: work.appendingPathComponent("StoreContent/persistentStore")) == .file(size: 4 << 20))
    }
}
