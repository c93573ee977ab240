import Foundation
import OrderedCollections
import Testing

import Quire

/// A v1 Journal store with data, and what its objects should look like after migrating to v2 and v3.
///
/// v1: Notebook (name optional, ordered entries) — Entry (title, body, created, mood Int16, photo with external
/// storage, notebook, tags) — Tag (name, entries). v2 renames body → text, widens mood, adds wordCount (default
/// 0), makes Notebook.name required (default "Untitled"), adds Tag.color and a Place entity. v3 renames Notebook →
/// Journal and notebook → journal, makes created optional, drops mood and Tag.color, links Entry and Place.
struct JournalFixture {
    /// The prefix of a store's private migration folders, as the ModelVersionsAndMigration article names them:
    /// `.<store name>.migration-`.
    static func migrationFolderPrefix(for store: URL) -> String { ".\(store.lastPathComponent).migration-" }

    /// The folder whose blob files migration carries over by hard links, where the stores read them, as
    /// the StoreTypes article names it (`.Journal_SUPPORT` for SQLite, `.Journal.xml_SUPPORT` for the others).
    static func externalDataFolder(for store: URL, type: StoreType) -> URL {
        ExternalDataFiles(storeURL: store, type: type).url
    }

    static let entryCount = 24
    static let tagNames = ["red", "green", "blue"]

    let versions: [ManagedObjectModel]
    let url: URL
    let type: StoreType
    /// The files planted in the store's external data folder, by name, with their inode numbers.
    private(set) var externalFiles: [String: Int] = [:]

    /// Reads the three versions and writes a v1 store with data in `folder`.
    init(in folder: TemporaryFolder, type: StoreType = .sqlite, name: String = "Journal.sqlite") throws {
        versions = try FixtureFiles.journalVersions()
        url = folder.file(name)
        self.type = type
        try writeVersion1Store()
        try recordExternalData()
    }

    static func body(_ i: Int) -> String? { i % 4 == 0 ? nil : "Entry \(i) has a body of a few words" }
    static func created(_ i: Int) -> Date { Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(i) * 3_600) }
    static func mood(_ i: Int) -> Int16 { Int16(i % 5 - 2) }
    static func photo(_ i: Int) -> Data? {
        switch i % 3 {
        case 0: return Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* (i + 7)) })
        case 1: return Data([UInt8(i), 1, 2, 3])
        default: return nil
        }
    }
    static func tags(_ i: Int) -> Set<String> { Set(tagNames.indices.filter { (i >> $0) & 1 == 1 }.map { tagNames[$0] }) }
    /// Entries of the "Work" notebook (even ones) are kept in descending order; odd ones in the unnamed notebook.
    static func notebookOrder(named name: String?) -> [String] {
        name == "Work"
            ? stride(from: entryCount - 2, through: 0, by: -2).map { "Entry \($0)" }
            : stride(from: 1, to: entryCount, by: 2).map { "Entry \($0)" }
    }

    private func writeVersion1Store() throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: versions[0])
        var options = StoreOptions()
        // The 70,000-byte photos go to external data files, which migration must carry over.
        options.externalDataThreshold = 50_000
        try coordinator.addPersistentStore(type: type, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let model = versions[0]
        func entity(_ name: String) throws -> EntityDescription { try #require(model.entitiesByName[name]) }
        let work = ManagedObject(entity: try entity("Notebook"), insertInto: context)
        work.setValue("Work", forKey: "name")
        let unnamed = ManagedObject(entity: try entity("Notebook"), insertInto: context)
        var tags: [String: ManagedObject] = [:]
        for name in Self.tagNames {
            let tag = ManagedObject(entity: try entity("Tag"), insertInto: context)
            tag.setValue(name, forKey: "name")
            tags[name] = tag
        }
        var entries: [String: ManagedObject] = [:]
        for i in 0..<Self.entryCount {
            let entry = ManagedObject(entity: try entity("Entry"), insertInto: context)
            entry.setValue("Entry \(i)", forKey: "title")
            entry.setValue(Self.body(i), forKey: "body")
            entry.setValue(Self.created(i), forKey: "created")
            entry.setValue(Self.mood(i), forKey: "mood")
            entry.setValue(Self.photo(i), forKey: "photo")
            for name in Self.tags(i) { entry.addObject(try #require(tags[name]), toRelationship: "tags") }
            entries["Entry \(i)"] = entry
        }
        for title in Self.notebookOrder(named: "Work") { work.addObject(try #require(entries[title]), toRelationship: "entries") }
        for title in Self.notebookOrder(named: nil) { unnamed.addObject(try #require(entries[title]), toRelationship: "entries") }
        try context.save()
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    /// The external data files the store wrote for its photos, with their inodes: migration must carry them
    /// over untouched (hard links, never copies).
    private mutating func recordExternalData() throws {
        let folder = Self.externalDataFolder(for: url, type: type)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.count == (0..<Self.entryCount).filter { i in Self.photo(i).map { $0.count > 50_000 } ?? false }.count)
        for name in names { externalFiles[name] = try Self.inode(of: folder.appendingPathComponent(name)) }
    }

    static func inode(of file: URL) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? NSNumber)?.intValue)
    }

    /// Checks that every external data file of the v1 store is still beside the store, as the same file (a hard link, not a copy).
    func expectExternalDataIntact() throws {
        let folder = Self.externalDataFolder(for: url, type: type)
        for (name, inode) in externalFiles {
            let file = folder.appendingPathComponent(name)
            #expect(FileManager.default.fileExists(atPath: file.path), "external data file \(name) is gone")
            #expect(try Self.inode(of: file) == inode)
        }
    }

    /// Opens the store with a version (0-based) and returns a context on it.
    func open(version: Int, options: StoreOptions = StoreOptions()) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: versions[version])
        try coordinator.addPersistentStore(type: type, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// The objects of an entity by a string key.
    static func objects(_ entity: String, by key: String, in context: ManagedObjectContext) throws -> [String: ManagedObject] {
        var result: [String: ManagedObject] = [:]
        for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity)) {
            result[object.value(forKey: key) as? String ?? ""] = object
        }
        return result
    }

    /// Checks the store holds the v1 data, unchanged, when opened with v1.
    func expectVersion1Intact() throws {
        let (coordinator, context) = try open(version: 0)
        defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
        let entries = try Self.objects("Entry", by: "title", in: context)
        #expect(entries.count == Self.entryCount)
        for i in 0..<Self.entryCount {
            let entry = try #require(entries["Entry \(i)"])
            #expect(entry.value(forKey: "body") as? String == Self.body(i))
            #expect(entry.value(forKey: "mood") as? Int16 == Self.mood(i))
            #expect(entry.value(forKey: "photo") as? Data == Self.photo(i))
        }
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Notebook")) == 2)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Tag")) == 3)
        try expectExternalDataIntact()
        try expectNoLeftovers()
    }

    /// Checks no private migration folder is left beside the store.
    func expectNoLeftovers() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(!names.contains { $0.hasPrefix(Self.migrationFolderPrefix(for: url)) }, "left over: \(names)")
    }

    /// Checks the store holds the data as v2 sees it.
    func expectVersion2(_ context: ManagedObjectContext) throws {
        let entries = try Self.objects("Entry", by: "title", in: context)
        #expect(entries.count == Self.entryCount)
        for i in 0..<Self.entryCount {
            let entry = try #require(entries["Entry \(i)"])
            #expect(entry.value(forKey: "text") as? String == Self.body(i))
            #expect(entry.value(forKey: "created") as? Date == Self.created(i))
            #expect(entry.value(forKey: "mood") as? Int32 == Int32(Self.mood(i)))
            #expect(entry.value(forKey: "wordCount") as? Int32 == 0)
            #expect(entry.value(forKey: "photo") as? Data == Self.photo(i))
            let tags = (entry.value(forKey: "tags") as? Set<ManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }
            #expect(Set(tags ?? []) == Self.tags(i), "tags of Entry \(i)")
        }
        let notebooks = try Self.objects("Notebook", by: "name", in: context)
        #expect(Set(notebooks.keys) == ["Work", "Untitled"])
        for (name, notebook) in notebooks {
            let order = (notebook.value(forKey: "entries") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String ?? "" }
            #expect(order == Self.notebookOrder(named: name == "Work" ? "Work" : nil), "order in \(name)")
        }
        let tags = try Self.objects("Tag", by: "name", in: context)
        #expect(Set(tags.keys) == Set(Self.tagNames))
        #expect(tags.values.allSatisfy { $0.value(forKey: "color") as? String == "gray" })
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Place")) == 0)
    }

    /// Checks the store holds the data as v3 sees it.
    func expectVersion3(_ context: ManagedObjectContext) throws {
        let entries = try Self.objects("Entry", by: "title", in: context)
        #expect(entries.count == Self.entryCount)
        for i in 0..<Self.entryCount {
            let entry = try #require(entries["Entry \(i)"])
            #expect(entry.value(forKey: "text") as? String == Self.body(i))
            #expect(entry.value(forKey: "created") as? Date == Self.created(i))
            #expect(entry.value(forKey: "photo") as? Data == Self.photo(i))
            #expect(entry.value(forKey: "place") == nil)
            let journal = entry.value(forKey: "journal") as? ManagedObject
            #expect(journal?.value(forKey: "name") as? String == (i % 2 == 0 ? "Work" : "Untitled"))
            let tags = (entry.value(forKey: "tags") as? Set<ManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }
            #expect(Set(tags ?? []) == Self.tags(i), "tags of Entry \(i)")
        }
        let journals = try Self.objects("Journal", by: "name", in: context)
        #expect(Set(journals.keys) == ["Work", "Untitled"])
        for (name, journal) in journals {
            let order = (journal.value(forKey: "entries") as? OrderedSet<ManagedObject>)?.map { $0.value(forKey: "title") as? String ?? "" }
            #expect(order == Self.notebookOrder(named: name == "Work" ? "Work" : nil), "order in \(name)")
        }
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Tag")) == 3)
    }
}
