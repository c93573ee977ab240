import Foundation
import Testing

import Quire

/// Saves lend SQLite the bytes of strings and blobs for the step instead of having it copy them; these check
/// the values that reach the file, through inserts and optimistic-locked updates, on a store reopened from
/// disk: empty strings and blobs (bound the copying way), text beyond ASCII and with NUL characters, large
/// values, nil, and a row written right after another whose lent values must not leak into it.
@Suite struct SQLiteLentBindingTests {
    static func model() -> ManagedObjectModel {
        let note = EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "body", type: .string),
            AttributeDescription(name: "bytes", type: .binaryData),
            AttributeDescription(name: "rank", type: .integer64, defaultValue: 0),
        ])
        return ManagedObjectModel(entities: [note])
    }

    @Test func lentStringsAndBlobsReachTheFileIntact() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Lent.sqlite")
        let large = String(repeating: "é✓x", count: 40_000)
        let blob = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let rows: [(String?, String?, Data?)] = [
            ("", "", Data()),
            ("héllo ✓ 😀", "with\u{0}nul", Data([0, 1, 2, 0])),
            (large, nil, blob),
            (nil, "after a row with values", nil),
        ]
        do {
            let (_, context) = try Fixtures.stack(Self.model(), at: url)
            for (rank, row) in rows.enumerated() {
                let note = EntityDescription.insertNewObject(forEntityName: "Note", into: context)
                note.setValue(row.0, forKey: "title")
                note.setValue(row.1, forKey: "body")
                note.setValue(row.2, forKey: "bytes")
                note.setValue(Int64(rank), forKey: "rank")
            }
            try context.save()
        }
        var (_, context) = try Fixtures.stack(Self.model(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Note")
        request.sortDescriptors = [SortKey("rank")]
        var notes = try context.fetch(request)
        #expect(notes.count == rows.count)
        for (note, row) in zip(notes, rows) {
            #expect(note.value(forKey: "title") as? String == row.0)
            #expect(note.value(forKey: "body") as? String == row.1)
            #expect(note.value(forKey: "bytes") as? Data == row.2)
        }

        // Updates bind the same way: swap the values around and read them back from a fresh stack.
        for (index, note) in notes.enumerated() {
            let other = rows[(index + 1) % rows.count]
            note.setValue(other.0, forKey: "title")
            note.setValue(other.1, forKey: "body")
            note.setValue(other.2, forKey: "bytes")
        }
        try context.save()
        (_, context) = try Fixtures.stack(Self.model(), at: url)
        notes = try context.fetch(request)
        for (index, note) in notes.enumerated() {
            let other = rows[(index + 1) % rows.count]
            #expect(note.value(forKey: "title") as? String == other.0)
            #expect(note.value(forKey: "body") as? String == other.1)
            #expect(note.value(forKey: "bytes") as? Data == other.2)
        }
    }
}
