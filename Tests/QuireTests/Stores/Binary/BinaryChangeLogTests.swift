import Foundation
import Testing

import Quire

/// The binary store's change log (the BinaryStoreFormat article, format version 2): a save appends what it changed
/// and commits it with a metadata slot; readers apply the log; a crashed append is never read; a long log is
/// compacted into a whole file.
@Suite struct BinaryChangeLogTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// A store of `count` employees, written whole (by Save As from memory's point of view: one save of a new file).
    private func makeStore(_ name: String, count: Int = 50) throws -> URL {
        let url = folder.file(name)
        let (coordinator, context) = try open(url)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Employee"])
        for index in 0..<count {
            let employee = ManagedObject(entity: entity, insertInto: context)
            employee.setValue("Employee \(index)", forKey: "name")
            employee.setValue(Int64(index), forKey: "salary")
        }
        try context.save()
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return url
    }

    private func open(_ url: URL) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        try coordinator.addPersistentStore(type: .binary, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// Names by salary, read by a new stack.
    private func names(_ url: URL) throws -> [Int64: String] {
        let (_, context) = try open(url)
        var result: [Int64: String] = [:]
        for employee in try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee")) {
            result[try #require(employee.value(forKey: "salary") as? Int64)] = employee.value(forKey: "name") as? String
        }
        return result
    }

    private func employee(_ salary: Int64, in context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.predicate = try QueryPredicate(format: "salary == \(salary)")
        return try #require(try context.fetch(request).first)
    }

    private func inode(_ url: URL) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }

    /// Changes employee 7, deletes 8 and inserts 1000 in one save.
    private func changeThree(_ url: URL) throws {
        let (coordinator, context) = try open(url)
        try employee(7, in: context).setValue("Seven", forKey: "name")
        context.delete(try employee(8, in: context))
        let added = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Employee"]), insertInto: context)
        added.setValue("Added", forKey: "name")
        added.setValue(Int64(1000), forKey: "salary")
        try context.save()
    }

    @Test func aSaveAppendsItsChangesInPlace() throws {
        let url = try makeStore("Append.quire")
        let before = try Data(contentsOf: url)
        let node = try inode(url)
        try changeThree(url)
        let after = try Data(contentsOf: url)
        // The same file, grown by one change section and an end marker, its committed sections untouched.
        #expect(try inode(url) == node)
        #expect(after.count > before.count && after.count < before.count + 2048)
        let slots = 32..<(32 + 2 * 4096)
        #expect(after[slots.upperBound..<before.count] == before[slots.upperBound..<before.count])
        #expect(after.range(of: Data("CHNG".utf8), in: before.count..<after.count) != nil)
        let read = try names(url)
        #expect(read.count == 50)
        #expect(read[7] == "Seven")
        #expect(read[8] == nil)
        #expect(read[1000] == "Added")
        #expect(read[9] == "Employee 9")
    }

    @Test func relationshipsChangedByAnAppendReadBack() throws {
        let url = try makeStore("Related.quire", count: 3)
        do {
            let (coordinator, context) = try open(url)
            let department = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Department"]), insertInto: context)
            department.setValue("Research", forKey: "name")
            try employee(1, in: context).setValue(department, forKey: "department")
            try context.save()
        }
        let (_, context) = try open(url)
        let department = try #require(try employee(1, in: context).value(forKey: "department") as? ManagedObject)
        #expect(department.value(forKey: "name") as? String == "Research")
        let members = try #require(department.value(forKey: "employees") as? Set<ManagedObject>)
        #expect(members.compactMap { $0.value(forKey: "salary") as? Int64 } == [1])
    }

    @Test func anAppendThatWasNotCommittedIsNotRead() throws {
        let url = try makeStore("Crash.quire")
        let before = try Data(contentsOf: url)
        try changeThree(url)
        let after = try Data(contentsOf: url)
        // A crash after the change was written but before its metadata slot: the old slots over the new bytes.
        var crashed = after
        crashed.replaceSubrange(32..<(32 + 2 * 4096), with: before[32..<(32 + 2 * 4096)])
        try crashed.write(to: url)
        #expect(try names(url)[7] == "Employee 7")
        #expect(try names(url)[8] == "Employee 8")
        // The next save writes over what the crashed one left, and is read back.
        let (_, context) = try open(url)
        try employee(3, in: context).setValue("Three", forKey: "name")
        try context.save()
        let read = try names(url)
        #expect(read[3] == "Three")
        #expect(read[7] == "Employee 7")
        #expect(read[1000] == nil)
    }

    @Test func aDamagedNewestSlotIsASaveThatDidNotComplete() throws {
        let url = try makeStore("Slot.quire")
        try changeThree(url)
        var bytes = try Data(contentsOf: url)
        let generations = [32, 32 + 4096].map { start in
            bytes[start..<(start + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        let live = 32 + (generations[1] > generations[0] ? 4096 : 0)
        bytes[live + 30] ^= 0x40
        try bytes.write(to: url)
        // The previous slot is in force: the store as it was before the last save.
        let read = try names(url)
        #expect(read[7] == "Employee 7")
        #expect(read[1000] == nil)
        #expect(read.count == 50)
    }

    @Test func aLogCutShortIsRefused() throws {
        let url = try makeStore("Cut.quire")
        let before = try Data(contentsOf: url)
        try changeThree(url)
        let after = try Data(contentsOf: url)
        for length in [before.count + 10, after.count - 1] {
            let copy = folder.file("Cut-\(length).quire")
            try after.prefix(length).write(to: copy)
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
            let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: .binary, at: copy) }
            #expect(error.code == .fileReadCorruptFile, "length \(length): \(error)")
            #expect(error.message.contains("truncated"), "length \(length): \(error.message)")
        }
    }

    @Test func aDamagedChangeIsRefused() throws {
        let url = try makeStore("Damaged.quire")
        let before = try Data(contentsOf: url)
        try changeThree(url)
        var damaged = try Data(contentsOf: url)
        let seven = try #require(damaged.range(of: Data("Seven".utf8), in: before.count..<damaged.count))
        damaged[seven.lowerBound] = UInt8(ascii: "s")
        try damaged.write(to: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        let error = try #require(throws: QuireError.self) { try coordinator.addPersistentStore(type: .binary, at: url) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("checksum"))
    }

    @Test func aLongLogIsCompactedIntoAWholeFile() throws {
        let url = try makeStore("Compact.quire", count: 5)
        let (_, context) = try open(url)
        let first = try inode(url)
        let long = String(repeating: "x", count: 200_000)
        var rewrittenAt: Int?
        for round in 0..<12 {
            try employee(Int64(round % 5), in: context).setValue("\(round) " + long, forKey: "name")
            try context.save()
            if rewrittenAt == nil, try inode(url) != first { rewrittenAt = round }
        }
        // 200 KB a save: the log passes its 1 MiB allowance after a few saves, and the file is written anew.
        let round = try #require(rewrittenAt)
        #expect(round >= 4 && round <= 7, "compacted after save \(round)")
        let size = try Data(contentsOf: url).count
        #expect(size < 12 * 200_000)
        let read = try names(url)
        #expect(read[1]?.hasPrefix("11 ") == true)
        #expect(read[0]?.hasPrefix("10 ") == true)
        #expect(read[4]?.hasPrefix("9 ") == true)
    }

    @Test func metadataSetWithoutAStackKeepsTheLog() throws {
        let url = try makeStore("Metadata.quire")
        try changeThree(url)
        try PersistentStoreCoordinator.setMetadata(["Note": "kept"], forPersistentStoreOfType: .binary, at: url)
        #expect(try names(url)[7] == "Seven")
        // Metadata too large for the slots: the file is rewritten with larger ones, the log carried over.
        let large = PropertyListValue.string(String(repeating: "m", count: 10_000))
        try PersistentStoreCoordinator.setMetadata(["Note": "kept", "Large": large], forPersistentStoreOfType: .binary, at: url)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .binary, at: url)
        #expect(metadata["Large"] == large)
        #expect(metadata["Note"] == .string("kept"))
        let read = try names(url)
        #expect(read[7] == "Seven")
        #expect(read[1000] == "Added")
    }

    @Test func versionOneFilesStillOpenAndAreUpgradedBySaving() throws {
        // A file written whole (Save As from SQLite), then rewritten as version 1 would have it.
        let source = try makeStore("Old.quire")
        let url = folder.file("Old-whole.quire")
        do {
            let (coordinator, _) = try open(source)
            let sqlite = try coordinator.migratePersistentStore(
                try #require(coordinator.persistentStores.first), to: folder.file("Old.sqlite"), type: .sqlite)
            _ = try coordinator.migratePersistentStore(sqlite, to: url, type: .binary)
        }
        var bytes = try Data(contentsOf: url)
        #expect(bytes.range(of: Data("CHNG".utf8)) == nil)
        // Version 1: the same file, with 16-byte slot headers (no data end) and version 1 in the header.
        bytes[8] = 1
        var header = CRC32()
        bytes.withUnsafeBytes { header.update(UnsafeRawBufferPointer(rebasing: $0[0..<28])) }
        withUnsafeBytes(of: header.value.littleEndian) { bytes.replaceSubrange(28..<32, with: $0) }
        let length = Int(bytes[40]) | Int(bytes[41]) << 8
        let payload = bytes[(32 + 24)..<(32 + 24 + length)]
        var slot = CRC32()
        payload.withUnsafeBytes { slot.update($0) }
        var v1 = Data(bytes[32..<44])
        withUnsafeBytes(of: slot.value.littleEndian) { v1.append(contentsOf: $0) }
        v1.append(payload)
        v1.append(Data(count: 4096 - v1.count))
        bytes.replaceSubrange(32..<(32 + 4096), with: v1)
        try bytes.write(to: url)
        #expect(try names(url)[9] == "Employee 9")
        try changeThree(url)
        let upgraded = try Data(contentsOf: url)
        #expect(upgraded[8] == 2)
        #expect(try names(url)[7] == "Seven")
    }
}
