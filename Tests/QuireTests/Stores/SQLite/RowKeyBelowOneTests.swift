import Foundation
import Testing

import Quire

/// A row whose key (`Z_PK`) is below 1 is refused with a typed error wherever it comes in a fetch: a fetch
/// identifies the rows after the first from the reader of the row before (`RowReaderMemo`), and the key is
/// still checked for each of them.
@Suite struct RowKeyBelowOneTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// A store of three items named a, b and c (keys 1, 2, 3), with `damage` run on it, and a new context on it.
    private func damagedStore(_ damage: String) throws -> (URL, ManagedObjectContext) {
        let item = EntityDescription(name: "Item", properties: [AttributeDescription(name: "name", type: .string)])
        let model = ManagedObjectModel(entities: [item])
        let url = folder.file("Keys.sqlite")
        let (coordinator, context) = try Fixtures.stack(model, at: url)
        for name in ["a", "b", "c"] { ManagedObject(entity: item, insertInto: context).setValue(name, forKey: "name") }
        try context.save()
        try coordinator.remove(try #require(coordinator.persistentStores.first))
        _ = try sqlite3(url, damage)
        return (url, try Fixtures.stack(model, at: url).1)
    }

    @Test func aKeyBelowOneInALaterRowIsRefused() throws {
        // Sorted by name, the damaged row (c) comes last, after two rows of the same entity number.
        let (url, context) = try damagedStore("UPDATE ZITEM SET Z_PK = 0 WHERE ZNAME = 'c'")
        for asFaults in [false, true] {
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            request.sortDescriptors = [SortKey("name")]
            request.returnsObjectsAsFaults = asFaults
            let error = try #require(throws: QuireError.self) { try context.fetch(request) }
            #expect(error.code == .fileReadCorruptFile)
            #expect(error.message.contains("Row Z_PK 0 of table ZITEM"), "\(error)")
            #expect(error.message.contains("has a key below 1"), "\(error)")
            #expect(error.context.file?.path == url.path)
        }
    }

    @Test func aKeyBelowOneInTheFirstRowIsRefused() throws {
        let (_, context) = try damagedStore("UPDATE ZITEM SET Z_PK = -1 WHERE ZNAME = 'a'")
        let request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("name")]
        let error = try #require(throws: QuireError.self) { try context.fetch(request) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("Row Z_PK -1 of table ZITEM"), "\(error)")
    }
}
