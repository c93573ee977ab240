import Foundation
import Quire

// Saves a note in an SQLite store and reads it back with a second coordinator, then asks for a PostgreSQL store
// by type and by URL, which without QuirePostgres must fail with an error naming that module. Prints one line
// per check; exits 1 at the first that fails.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("no-libpq-app: \(message)\n".utf8))
    exit(1)
}

let note = EntityDescription(name: "Note")
note.properties = [AttributeDescription(name: "title", type: .string)]
let model = ManagedObjectModel(entities: [note])
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-no-libpq-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let url = folder.appendingPathComponent("Notes.sqlite")

let writer = try PersistentStoreCoordinator(managedObjectModel: model)
try writer.addPersistentStore(type: .sqlite, at: url)
let writing = ManagedObjectContext()
writing.persistentStoreCoordinator = writer
try writing.performAndWait {
    ManagedObject(entity: note, insertInto: writing).setValue("Written without libpq", forKey: "title")
    try writing.save()
}

let reader = try PersistentStoreCoordinator(managedObjectModel: model)
try reader.addPersistentStore(type: .sqlite, at: url)
let reading = ManagedObjectContext()
reading.persistentStoreCoordinator = reader
let titles = try reading.performAndWait {
    try reading.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { $0.value(forKey: "title") as? String }
}
guard titles == ["Written without libpq"] else { fail("read back \(titles) from the SQLite store") }
print("SQLite store: saved and read back one note")

guard let database = URL(string: "postgresql://app:secret@localhost/crm?schema=team") else { fail("bad URL") }
for (type, how) in [(StoreType(rawValue: "PostgreSQL") as StoreType?, "by type"), (nil, "by URL")] {
    do {
        try reader.addPersistentStore(type: type, at: database)
        fail("a PostgreSQL store was added \(how) without QuirePostgres")
    } catch let error as QuireError {
        guard error.code == .persistentStoreInvalidType, error.message.contains("QuirePostgres"),
            !error.description.contains("secret")
        else { fail("PostgreSQL \(how): \(error)") }
        print("PostgreSQL \(how): \(error.message)")
    }
}
