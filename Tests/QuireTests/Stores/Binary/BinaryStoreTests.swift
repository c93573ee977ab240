import Foundation
import Testing

import Quire

/// The binary store's checksums and bounds: corrupt or truncated files are refused, never misread.
@Suite struct BinaryStoreTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    private func makeStore(_ name: String, count: Int = 50, padding: Int = 0) throws -> URL {
        let url = folder.file(name)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        try coordinator.addPersistentStore(type: .binary, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Employee"])
        for index in 0..<count {
            let employee = ManagedObject(entity: entity, insertInto: context)
            employee.setValue("Employee \(index)" + (padding > 0 ? " " + String(repeating: "x", count: padding) : ""), forKey: "name")
            employee.setValue(Int64(index), forKey: "salary")
        }
        try context.save()
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return url
    }

    private func openError(_ url: URL) throws -> QuireError {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: .binary, at: url) }
        #expect(error.context.file?.path == url.path)
        return error
    }

    @Test func startsWithItsMagicAndAHeaderChecksum() throws {
        let bytes = [UInt8](try Data(contentsOf: try makeStore("Magic.quire")))
        // `\x89QBIN\r\n\x1A`, as the BinaryStoreFormat article documents.
        #expect(Array(bytes.prefix(8)) == [0x89, 0x51, 0x42, 0x49, 0x4E, 0x0D, 0x0A, 0x1A])
        #expect(bytes[8] == 2)
    }

    @Test func aFlippedByteAnywhereIsDetected() throws {
        let url = try makeStore("Flip.quire")
        let whole = try Data(contentsOf: url)
        let header = 32  // the header's size (the BinaryStoreFormat article)
        let capacity = 4096
        // The header, the model section and the change section (a store's first save is appended to its
        // change log). A damaged metadata slot is a save that did not complete: see the change log's tests.
        for offset in [12, header + 2 * capacity + 40, whole.count - 200] {
            var damaged = whole
            damaged[offset] ^= 0x40
            let copy = folder.file("Flip-\(offset).quire")
            try damaged.write(to: copy)
            let error = try openError(copy)
            #expect(error.code == .fileReadCorruptFile, "offset \(offset): \(error)")
        }
    }

    @Test(arguments: [50, 2_000])
    func theObjectsChecksumWinsOverWhatTheDecoderMadeOfThem(count: Int) throws {
        // 2,000 employees with long names make an objects section over 1 MiB, checked on a second thread
        // while it is decoded; 50 make a small one, checked first.
        let url = try makeStore("Values-\(count).quire", count: count, padding: count > 50 ? 600 : 0)
        let whole = try Data(contentsOf: url)
        #expect((whole.count > 1 << 20) == (count > 50))
        let name = try #require(whole.firstRange(of: Data("Employee 17".utf8)))
        // A changed value the decoder reads without complaint, and a value tag it cannot read: either way
        // the checksum is what the error reports.
        for (label, offset, byte) in [("value", name.upperBound - 1, UInt8(ascii: "8")), ("tag", name.lowerBound - 5, UInt8(0xEE))] {
            var damaged = whole
            damaged[offset] = byte
            let copy = folder.file("Values-\(count)-\(label).quire")
            try damaged.write(to: copy)
            let error = try openError(copy)
            #expect(error.code == .fileReadCorruptFile, "\(label): \(error)")
            #expect(error.message.contains("checksum"), "\(label): \(error.message)")
        }
    }

    @Test func truncationAtAnyLengthIsRefused() throws {
        let url = try makeStore("Cut.quire")
        let whole = try Data(contentsOf: url)
        for length in [1, 7, 20, 31, 40, 5000, 8300, whole.count / 2, whole.count - 30, whole.count - 1] {
            let copy = folder.file("Cut-\(length).quire")
            try whole.prefix(length).write(to: copy)
            let error = try openError(copy)
            #expect(error.code == .fileReadCorruptFile, "length \(length): \(error)")
        }
    }

    @Test func aFileRewrittenByAnotherWriterIsAConflict() throws {
        let url = try makeStore("Shared.quire", count: 3)
        var stacks: [(PersistentStoreCoordinator, ManagedObjectContext)] = []
        for _ in 0..<2 {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
            try coordinator.addPersistentStore(type: .binary, at: url)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            stacks.append((coordinator, context))
        }
        for (index, (coordinator, context)) in stacks.enumerated() {
            let department = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Department"]), insertInto: context)
            department.setValue("D\(index)", forKey: "name")
        }
        try stacks[0].1.save()
        let error = try #require(throws: QuireError.self) { try stacks[1].1.save() }
        #expect(error.code == .persistentStoreSaveConflicts)
        #expect(stacks[1].1.hasChanges)
    }

    @Test func otherFilesAreNotBinaryStores() throws {
        let url = folder.file("Photo.quire")
        try Data("\u{89}PNG\r\n\u{1A}\n".utf8 + (0..<2000).map { UInt8($0 % 251) }).write(to: url)
        let error = try openError(url)
        #expect(error.message.contains("not a Quire binary store"))
    }
}
