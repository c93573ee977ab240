import Foundation
import Testing

import Quire

/// A save's UPDATE writes only the attributes and to-ones that changed, and `Z_OPT`, as Core Data's do
/// (`UPDATE ZMOOD SET ZCOLOR = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?`), so that SQLite does not maintain
/// the indexes of columns whose values stayed the same. Checked on the file: `AFTER UPDATE OF column` triggers
/// (which fire only for the columns an UPDATE names) record which columns each save wrote, and a column another
/// connection wrote meanwhile (without changing `Z_OPT`) is left as it wrote it.
@Suite struct SQLitePartialUpdateTests {
    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder() }

    static func model() -> ManagedObjectModel {
        let remoteID = AttributeDescription(name: "remoteID", type: .string)
        remoteID.isIndexed = true
        let record = EntityDescription(name: "Record", properties: [
            remoteID,
            AttributeDescription(name: "value", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "note", type: .string),
            RelationshipDescription(name: "region", destination: "Region", inverse: "records"),
        ])
        record.uniquenessConstraints = [["remoteID"]]
        let region = EntityDescription(name: "Region", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "records", destination: "Record", toMany: true, inverse: "region"),
        ])
        return ManagedObjectModel(entities: [record, region])
    }

    /// Saves one record in region "north", and a region "south", through `context` (of ``model()``).
    static func seed(_ context: ManagedObjectContext) throws {
        let north = EntityDescription.insertNewObject(forEntityName: "Region", into: context)
        north.setValue("north", forKey: "name")
        let south = EntityDescription.insertNewObject(forEntityName: "Region", into: context)
        south.setValue("south", forKey: "name")
        let record = EntityDescription.insertNewObject(forEntityName: "Record", into: context)
        record.setValue("r-1", forKey: "remoteID")
        record.setValue(Int64(1), forKey: "value")
        record.setValue("ours", forKey: "note")
        record.setValue(north, forKey: "region")
        try context.save()
    }

    /// A store with one record in region "north" (and a region "south"), and triggers logging the columns of
    /// ZRECORD each UPDATE names into a table `WRITTEN`.
    func makeStore() throws -> URL {
        let url = folder.file("Sync.sqlite")
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        try Self.seed(context)
        let raw = try RawSQLite(url, readOnly: false)
        try raw.execute("CREATE TABLE WRITTEN (COL TEXT)")
        for column in ["ZREMOTEID", "ZVALUE", "ZNOTE", "ZREGION", "Z_OPT"] {
            try raw.execute("CREATE TRIGGER LOG_\(column) AFTER UPDATE OF \(column) ON ZRECORD BEGIN INSERT INTO WRITTEN VALUES ('\(column)'); END")
        }
        return url
    }

    /// The columns the UPDATEs since the last call named (sorted), emptying the log.
    func written(_ url: URL) throws -> [String] {
        let raw = try RawSQLite(url, readOnly: false)
        let columns = try raw.rows("SELECT COL FROM WRITTEN ORDER BY COL").map { String(decoding: $0[0].data, as: UTF8.self) }
        try raw.execute("DELETE FROM WRITTEN")
        return columns
    }

    func row(_ url: URL) throws -> (remoteID: String, value: Int64, note: String, region: Int64, version: Int64) {
        let rows = try RawSQLite(url).rows("SELECT ZREMOTEID, ZVALUE, ZNOTE, ZREGION, Z_OPT FROM ZRECORD")
        let row = try #require(rows.first)
        #expect(rows.count == 1)
        return (
            String(decoding: row[0].data, as: UTF8.self), row[1].int64, String(decoding: row[2].data, as: UTF8.self), row[3].int64,
            row[4].int64
        )
    }

    func fetchRecord(_ context: ManagedObjectContext) throws -> ManagedObject {
        try #require(context.fetch(FetchRequest<ManagedObject>(entityName: "Record")).first)
    }

    func fetchRegion(_ name: String, _ context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: "Region")
        request.predicate = try QueryPredicate(format: "name == %@", name)
        return try #require(context.fetch(request).first)
    }

    @Test func anUpdateNamesOnlyTheChangedColumns() throws {
        let url = try makeStore()
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let record = try fetchRecord(context)
        let before = try row(url)

        // The to-one was never changed, so the change carries no committed relationships and its key is not
        // written, nor are the remote ID and note.
        record.setValue(Int64(2), forKey: "value")
        try context.save()
        #expect(try written(url) == ["ZVALUE", "Z_OPT"])
        var now = try row(url)
        #expect(now.value == 2 && now.version == before.version + 1)
        #expect(now.remoteID == "r-1" && now.note == "ours" && now.region == before.region)

        // A change of a to-one alone carries no committed attributes: the whole row is written.
        record.setValue(try fetchRegion("south", context), forKey: "region")
        try context.save()
        #expect(try written(url) == ["ZNOTE", "ZREGION", "ZREMOTEID", "ZVALUE", "Z_OPT"])

        // A to-one changed and changed back before the save is recorded (committed relationships), and equal to
        // them: only the attribute is written.
        record.setValue(Int64(5), forKey: "value")
        record.setValue(try fetchRegion("north", context), forKey: "region")
        record.setValue(try fetchRegion("south", context), forKey: "region")
        try context.save()
        #expect(try written(url) == ["ZVALUE", "Z_OPT"])
        now = try row(url)
        #expect(now.region != before.region && now.version == before.version + 3)

        // Two attributes and the to-one at once, back to the first region.
        record.setValue(Int64(3), forKey: "value")
        record.setValue("changed", forKey: "note")
        record.setValue(try fetchRegion("north", context), forKey: "region")
        try context.save()
        #expect(try written(url) == ["ZNOTE", "ZREGION", "ZVALUE", "Z_OPT"])

        // Every column changed: the whole row is written.
        record.setValue("r-2", forKey: "remoteID")
        record.setValue(Int64(4), forKey: "value")
        record.setValue("again", forKey: "note")
        record.setValue(try fetchRegion("south", context), forKey: "region")
        try context.save()
        #expect(try written(url) == ["ZNOTE", "ZREGION", "ZREMOTEID", "ZVALUE", "Z_OPT"])

        // What the saves wrote is what a new stack reads.
        let (_, fresh) = try Fixtures.stack(Self.model(), at: url)
        let reread = try fetchRecord(fresh)
        #expect(reread.value(forKey: "remoteID") as? String == "r-2")
        #expect(reread.value(forKey: "value") as? Int64 == 4)
        #expect(reread.value(forKey: "note") as? String == "again")
        #expect((reread.value(forKey: "region") as? ManagedObject)?.value(forKey: "name") as? String == "south")
        #expect(try row(url).version == before.version + 5)
    }

    @Test func aColumnAnotherConnectionWroteMeanwhileIsLeftAsItWroteIt() throws {
        let url = try makeStore()
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let record = try fetchRecord(context)
        let before = try row(url)
        // Another connection writes the note without advancing Z_OPT, so optimistic locking cannot see it.
        try RawSQLite(url, readOnly: false).execute("UPDATE ZRECORD SET ZNOTE = 'theirs'")
        _ = try written(url)

        record.setValue(Int64(7), forKey: "value")
        try context.save()
        let now = try row(url)
        #expect(now.value == 7)
        #expect(now.note == "theirs")
        #expect(now.remoteID == "r-1" && now.region == before.region)
        #expect(now.version == before.version + 1)
    }

    @Test func aChangeAnotherConnectionMadeWithItsVersionIsStillAConflict() throws {
        let url = try makeStore()
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        let record = try fetchRecord(context)
        let before = try row(url)
        try RawSQLite(url, readOnly: false).execute("UPDATE ZRECORD SET ZNOTE = 'theirs', Z_OPT = Z_OPT + 1")

        record.setValue(Int64(7), forKey: "value")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect((error.underlying as? QuireError)?.code == .persistentStoreSaveConflicts)
        let now = try row(url)
        #expect(now.value == 1 && now.note == "theirs" && now.version == before.version + 1)
    }

    @Test func aChildContextsChangeReachesTheStoreAsOnlyItsColumns() throws {
        let url = try makeStore()
        let (_, parent) = try Fixtures.stack(Self.model(), at: url)
        _ = try fetchRecord(parent)
        let child = ManagedObjectContext()
        child.parent = parent
        let record = try fetchRecord(child)
        record.setValue("from the child", forKey: "note")
        try child.save()
        try parent.save()
        #expect(try written(url) == ["ZNOTE", "Z_OPT"])
        #expect(try row(url).note == "from the child")
    }

    /// Another connection moves the record to "south" (advancing `Z_OPT`); this context, which read it in
    /// "north" and changes only its value, saves under `.overwrite`: its whole version wins, the region it read
    /// included, so the retried UPDATE writes the to-one the row no longer has (the object recorded the row's
    /// to-ones as committed when it moved onto the newer row).
    @Test func anOverwriteWritesTheToOneTheNewerRowChanged() throws {
        let url = try makeStore()
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        context.mergePolicy = .overwrite
        let record = try fetchRecord(context)
        let north = try fetchRegion("north", context)
        let before = try row(url)
        try RawSQLite(url, readOnly: false).execute(
            "UPDATE ZRECORD SET ZREGION = (SELECT Z_PK FROM ZREGION WHERE ZNAME = 'south'), Z_OPT = Z_OPT + 1")
        _ = try written(url)

        record.setValue(Int64(9), forKey: "value")
        try context.save()
        #expect(try written(url) == ["ZREGION", "ZVALUE", "Z_OPT"])
        let now = try row(url)
        #expect(now.value == 9 && now.region == before.region && now.version == before.version + 2)
        #expect(record.value(forKey: "region") as? ManagedObject === north)

        // Saved, the object's to-ones are the row's again: the next update writes only its value.
        record.setValue(Int64(10), forKey: "value")
        try context.save()
        #expect(try written(url) == ["ZVALUE", "Z_OPT"])
        #expect(try row(url).region == before.region)
    }

    /// Under `.mergeByPropertyObjectTrump` the to-one the object never changed takes the newer row's value, and the
    /// retried UPDATE leaves it as the row has it.
    @Test func anObjectTrumpMergeKeepsTheToOneTheNewerRowChanged() throws {
        let url = try makeStore()
        let (_, context) = try Fixtures.stack(Self.model(), at: url)
        context.mergePolicy = .mergeByPropertyObjectTrump
        let record = try fetchRecord(context)
        let south = try fetchRegion("south", context)
        try RawSQLite(url, readOnly: false).execute(
            "UPDATE ZRECORD SET ZREGION = (SELECT Z_PK FROM ZREGION WHERE ZNAME = 'south'), Z_OPT = Z_OPT + 1")
        let moved = try row(url)
        _ = try written(url)

        record.setValue(Int64(9), forKey: "value")
        try context.save()
        #expect(try written(url) == ["ZVALUE", "Z_OPT"])
        let now = try row(url)
        #expect(now.value == 9 && now.region == moved.region && now.version == moved.version + 1)
        #expect(record.value(forKey: "region") as? ManagedObject === south)
    }

    /// An entity with six attributes has 62 sets of some but not all of them changed, more than a store keeps
    /// an UPDATE prepared for: the sets beyond are saved as whole rows, and every save writes its values.
    @Test func moreSetsOfChangedColumnsThanTheCacheHoldsAreAllSaved() throws {
        let names = (0..<6).map { "a\($0)" }
        let item = EntityDescription(name: "Item", properties: names.map {
            AttributeDescription(name: $0, type: .integer64, defaultValue: 0)
        })
        let model = ManagedObjectModel(entities: [item])
        let url = folder.file("Items.sqlite")
        let (_, context) = try Fixtures.stack(model, at: url)
        let object = EntityDescription.insertNewObject(forEntityName: "Item", into: context)
        try context.save()
        var expected = [Int64](repeating: 0, count: names.count)
        for mask in 1..<(1 << names.count) {
            for (index, name) in names.enumerated() where mask & (1 << index) != 0 {
                expected[index] = Int64(mask * 10 + index)
                object.setValue(expected[index], forKey: name)
            }
            try context.save()
            let rows = try RawSQLite(url).rows("SELECT ZA0, ZA1, ZA2, ZA3, ZA4, ZA5, Z_OPT FROM ZITEM")
            #expect(rows.first?.prefix(names.count).map(\.int64) == expected, "after saving the columns of mask \(mask)")
            #expect(rows.first?.last?.int64 == Int64(mask + 1))
        }
    }
}
