import Foundation
import OrderedCollections
import Testing

import Quire

/// Ordered and many-to-many relationships changed without loading the set (issue 15), on every store kind:
/// the set stays a fault, reads right later (before and after the save, in order), and the store writes the
/// right rows. The custom incremental store cannot write recorded members, so there the set is loaded first
/// and only the outcome is checked.
@Suite struct DeferredJoinMembersTests {
    /// Tags ↔ items (many-to-many), playlists → tracks (ordered, to-one inverse), shelves ↔ books (ordered on
    /// both sides).
    static func model() -> ManagedObjectModel {
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "items", destination: "Item", toMany: true, inverse: "tags"),
        ])
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "tags", destination: "Tag", toMany: true, inverse: "items"),
        ])
        let playlist = EntityDescription(name: "Playlist", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "tracks", destination: "Track", toMany: true, isOrdered: true, inverse: "playlist"),
        ])
        let track = EntityDescription(name: "Track", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "playlist", destination: "Playlist", inverse: "tracks"),
        ])
        let shelf = EntityDescription(name: "Shelf", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "books", destination: "Book", toMany: true, isOrdered: true, inverse: "shelves"),
        ])
        let book = EntityDescription(name: "Book", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "shelves", destination: "Shelf", toMany: true, isOrdered: true, inverse: "books"),
        ])
        return ManagedObjectModel(entities: [tag, item, playlist, track, shelf, book])
    }

    /// Saves tags T1 (A, B) and T2 (C), item D untagged; playlists P (X, Y) and Q (Z); shelves S1 (B1, B2)
    /// and S2 (B3), with B3 also on S1's inverse order after S2.
    private func seed(_ kind: StoreKind, _ folder: TemporaryFolder) throws -> ConformanceStack {
        let stack = try kind.stack(Self.model(), in: folder)
        func make(_ entity: String, _ name: String) throws -> ManagedObject { try stack.insert(entity, ["name": name]) }
        let (t1, t2) = (try make("Tag", "T1"), try make("Tag", "T2"))
        let (a, b, c) = (try make("Item", "A"), try make("Item", "B"), try make("Item", "C"))
        _ = try make("Item", "D")
        t1.setValue(Set([a, b]), forKey: "items")
        t2.setValue(Set([c]), forKey: "items")
        let (p, q) = (try make("Playlist", "P"), try make("Playlist", "Q"))
        p.setValue(OrderedSet([try make("Track", "X"), try make("Track", "Y")]), forKey: "tracks")
        q.setValue(OrderedSet([try make("Track", "Z")]), forKey: "tracks")
        let (s1, s2) = (try make("Shelf", "S1"), try make("Shelf", "S2"))
        s1.setValue(OrderedSet([try make("Book", "B1"), try make("Book", "B2")]), forKey: "books")
        s2.setValue(OrderedSet([try make("Book", "B3")]), forKey: "books")
        try stack.context.save()
        return try stack.reopened()
    }

    private func one(_ stack: ConformanceStack, _ entity: String, _ name: String) throws -> ManagedObject {
        try #require(try stack.fetch(entity, "name == %@", name).first)
    }

    private func names(_ object: ManagedObject, _ key: String) -> [String] {
        let value = object.value(forKey: key)
        if let ordered = value as? OrderedSet<ManagedObject> { return ordered.compactMap { $0.value(forKey: "name") as? String } }
        return ((value as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
    }

    private func defers(_ kind: StoreKind) -> Bool { kind.type != StoreKind.customIncremental.type }

    @Test(arguments: StoreKind.all)
    func manyToManyAddAndRemoveLeaveBothSidesFaults(_ kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        let stack = try seed(kind, folder)
        let t1 = try one(stack, "Tag", "T1")
        let (a, c) = (try one(stack, "Item", "A"), try one(stack, "Item", "C"))
        t1.addObject(c, toRelationship: "items")
        a.removeObject(t1, fromRelationship: "tags")
        let e = try stack.insert("Item", ["name": "E"])
        e.addObject(t1, toRelationship: "tags")
        if defers(kind) {
            #expect(t1.hasFault(forRelationshipNamed: "items"), "adding loaded the whole set")
            #expect(c.hasFault(forRelationshipNamed: "tags"))
            #expect(a.hasFault(forRelationshipNamed: "tags"))
        }
        #expect(t1.isUpdated && c.isUpdated && a.isUpdated)
        try stack.context.save()
        if defers(kind) { #expect(t1.hasFault(forRelationshipNamed: "items")) }
        // Loaded after the save, the sets are the store's (the recorded changes are not applied twice).
        #expect(names(t1, "items") == ["B", "C", "E"])
        #expect(names(c, "tags") == ["T1", "T2"])
        #expect(names(a, "tags") == [])
        let fresh = try stack.reopened()
        #expect(names(try one(fresh, "Tag", "T1"), "items") == ["B", "C", "E"])
        #expect(names(try one(fresh, "Tag", "T2"), "items") == ["C"])
        #expect(names(try one(fresh, "Item", "C"), "tags") == ["T1", "T2"])
        #expect(names(try one(fresh, "Item", "E"), "tags") == ["T1"])
        #expect(names(try one(fresh, "Item", "A"), "tags") == [])
    }

    @Test(arguments: StoreKind.all)
    func manyToManyLoadedBeforeTheSaveShowsTheChangeAndSavesIt(_ kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        let stack = try seed(kind, folder)
        let t1 = try one(stack, "Tag", "T1")
        let (a, d) = (try one(stack, "Item", "A"), try one(stack, "Item", "D"))
        t1.addObject(d, toRelationship: "items")
        t1.removeObject(a, fromRelationship: "items")
        #expect(names(t1, "items") == ["B", "D"])
        #expect(!t1.hasFault(forRelationshipNamed: "items"))
        #expect(names(a, "tags") == [])
        try stack.context.save()
        let fresh = try stack.reopened()
        #expect(names(try one(fresh, "Tag", "T1"), "items") == ["B", "D"])
        #expect(names(try one(fresh, "Item", "A"), "tags") == [])
        #expect(names(try one(fresh, "Item", "D"), "tags") == ["T1"])
    }

    @Test(arguments: StoreKind.all)
    func orderedToManyAppendsAfterTheLastMember(_ kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        let stack = try seed(kind, folder)
        let p = try one(stack, "Playlist", "P")
        let (x, z) = (try one(stack, "Track", "X"), try one(stack, "Track", "Z"))
        let w = try stack.insert("Track", ["name": "W"])
        p.addObject(w, toRelationship: "tracks")
        z.setValue(p, forKey: "playlist")  // moves from Q, whose set is not loaded either
        x.setValue(nil, forKey: "playlist")
        if defers(kind) { #expect(p.hasFault(forRelationshipNamed: "tracks"), "adding loaded the whole set") }
        try stack.context.save()
        if defers(kind) { #expect(p.hasFault(forRelationshipNamed: "tracks")) }
        #expect(names(p, "tracks") == ["Y", "W", "Z"])
        let fresh = try stack.reopened()
        #expect(names(try one(fresh, "Playlist", "P"), "tracks") == ["Y", "W", "Z"])
        #expect(names(try one(fresh, "Playlist", "Q"), "tracks") == [])
        #expect(try one(fresh, "Track", "X").value(forKey: "playlist") == nil)
    }

    @Test(arguments: StoreKind.all)
    func orderedManyToManyRemovedAndAddedAgainMovesToTheEnd(_ kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        let stack = try seed(kind, folder)
        let s1 = try one(stack, "Shelf", "S1")
        let (b1, b2, b3) = (try one(stack, "Book", "B1"), try one(stack, "Book", "B2"), try one(stack, "Book", "B3"))
        s1.addObject(b3, toRelationship: "books")
        s1.removeObject(b1, fromRelationship: "books")
        s1.addObject(b1, toRelationship: "books")
        b2.removeObject(s1, fromRelationship: "shelves")
        if defers(kind) {
            #expect(s1.hasFault(forRelationshipNamed: "books"), "adding loaded the whole set")
            #expect(b3.hasFault(forRelationshipNamed: "shelves"))
        }
        try stack.context.save()
        #expect(names(s1, "books") == ["B3", "B1"])
        #expect(names(b3, "shelves") == ["S2", "S1"])
        let fresh = try stack.reopened()
        #expect(names(try one(fresh, "Shelf", "S1"), "books") == ["B3", "B1"])
        #expect(names(try one(fresh, "Book", "B3"), "shelves") == ["S2", "S1"])
        #expect(names(try one(fresh, "Book", "B1"), "shelves") == ["S1"])
        #expect(names(try one(fresh, "Book", "B2"), "shelves") == [])
    }

    @Test(arguments: StoreKind.all)
    func orderedManyToManyLoadedBeforeTheSaveIsInOrder(_ kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        let stack = try seed(kind, folder)
        let s1 = try one(stack, "Shelf", "S1")
        let (b1, b3) = (try one(stack, "Book", "B1"), try one(stack, "Book", "B3"))
        s1.addObject(b3, toRelationship: "books")
        s1.removeObject(b1, fromRelationship: "books")
        s1.addObject(b1, toRelationship: "books")
        #expect(names(s1, "books") == ["B2", "B3", "B1"])
        #expect(names(b3, "shelves") == ["S2", "S1"])
        try stack.context.save()
        let fresh = try stack.reopened()
        #expect(names(try one(fresh, "Shelf", "S1"), "books") == ["B2", "B3", "B1"])
        #expect(names(try one(fresh, "Book", "B3"), "shelves") == ["S2", "S1"])
    }

    @Test(arguments: StoreKind.all)
    func addedThenRemovedWritesNothing(_ kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        let stack = try seed(kind, folder)
        let (t2, s2) = (try one(stack, "Tag", "T2"), try one(stack, "Shelf", "S2"))
        let (d, b1) = (try one(stack, "Item", "D"), try one(stack, "Book", "B1"))
        t2.addObject(d, toRelationship: "items")
        s2.addObject(b1, toRelationship: "books")
        d.removeObject(t2, fromRelationship: "tags")
        b1.removeObject(s2, fromRelationship: "shelves")
        try stack.context.save()
        let fresh = try stack.reopened()
        #expect(names(try one(fresh, "Tag", "T2"), "items") == ["C"])
        #expect(names(try one(fresh, "Item", "D"), "tags") == [])
        #expect(names(try one(fresh, "Shelf", "S2"), "books") == ["B3"])
        #expect(names(try one(fresh, "Book", "B1"), "shelves") == ["S1"])
    }

    @Test(arguments: StoreKind.all)
    func deletingAMemberLeavesTheOtherSetAFault(_ kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        let stack = try seed(kind, folder)
        let (t1, s1) = (try one(stack, "Tag", "T1"), try one(stack, "Shelf", "S1"))
        stack.context.delete(try one(stack, "Item", "A"))
        stack.context.delete(try one(stack, "Book", "B1"))
        stack.context.processPendingChanges()
        if defers(kind) {
            #expect(t1.hasFault(forRelationshipNamed: "items"))
            #expect(s1.hasFault(forRelationshipNamed: "books"))
        }
        try stack.context.save()
        #expect(names(t1, "items") == ["B"])
        let fresh = try stack.reopened()
        #expect(names(try one(fresh, "Tag", "T1"), "items") == ["B"])
        #expect(names(try one(fresh, "Shelf", "S1"), "books") == ["B2"])
    }

    @Test(arguments: StoreKind.all)
    func undoRollbackAndRefreshDropTheRecordedMembers(_ kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        let stack = try seed(kind, folder)
        let context = stack.context
        context.undoManager = UndoManager()
        let (t1, s1) = (try one(stack, "Tag", "T1"), try one(stack, "Shelf", "S1"))
        let (d, b3) = (try one(stack, "Item", "D"), try one(stack, "Book", "B3"))
        context.processPendingChanges()
        t1.addObject(d, toRelationship: "items")
        s1.addObject(b3, toRelationship: "books")
        context.processPendingChanges()
        context.undoManager?.undo()
        #expect(names(t1, "items") == ["A", "B"])
        #expect(names(s1, "books") == ["B1", "B2"])
        #expect(names(b3, "shelves") == ["S2"])
        context.undoManager?.redo()
        #expect(names(s1, "books") == ["B1", "B2", "B3"])
        context.undoManager?.undo()
        context.processPendingChanges()

        let (t2, s2) = (try one(stack, "Tag", "T2"), try one(stack, "Shelf", "S2"))
        t2.addObject(d, toRelationship: "items")
        s2.addObject(b3, toRelationship: "books")  // already a member: nothing changes
        context.rollback()
        // Changed again after the rollback, the objects save nothing of what was rolled back.
        t2.setValue("T2", forKey: "name")
        d.setValue("D", forKey: "name")
        try context.save()
        #expect(names(t2, "items") == ["C"])
        #expect(names(d, "tags") == [])

        let p = try one(stack, "Playlist", "P")
        p.addObject(try one(stack, "Track", "Z"), toRelationship: "tracks")
        context.refresh(p, mergeChanges: false)
        #expect(names(p, "tracks") == ["X", "Y"])
        context.rollback()
        try context.save()
        let fresh = try stack.reopened()
        #expect(names(try one(fresh, "Tag", "T1"), "items") == ["A", "B"])
        #expect(names(try one(fresh, "Tag", "T2"), "items") == ["C"])
        #expect(names(try one(fresh, "Shelf", "S1"), "books") == ["B1", "B2"])
        #expect(names(try one(fresh, "Shelf", "S2"), "books") == ["B3"])
        #expect(names(try one(fresh, "Playlist", "P"), "tracks") == ["X", "Y"])
    }

    @Test func sqliteRowsAreWrittenWithoutReadingTheSet() throws {
        let folder = try TemporaryFolder()
        let stack = try seed(.sqlite, folder)
        let s1 = try one(stack, "Shelf", "S1")
        s1.addObject(try one(stack, "Book", "B3"), toRelationship: "books")
        s1.removeObject(try one(stack, "Book", "B1"), fromRelationship: "books")
        let p = try one(stack, "Playlist", "P")
        try one(stack, "Track", "Z").setValue(p, forKey: "playlist")
        let t1 = try one(stack, "Tag", "T1")
        t1.addObject(try one(stack, "Item", "D"), toRelationship: "items")
        try stack.context.save()
        let url = try #require(stack.url)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        let raw = try RawSQLite(url)
        func text(_ column: RawSQLite.Column) -> String { String(decoding: column.data, as: UTF8.self) }
        // The shelves' join table: owner, member and both order columns (Z_FOK_…).
        let tables = try raw.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%' ESCAPE '\\'").map { text($0[0]) }
        let shelfJoin = try #require(tables.first { $0.hasSuffix("BOOKS") || $0.hasSuffix("SHELVES") })
        let columns = try raw.rows("SELECT name FROM pragma_table_info('\(shelfJoin)')").map { text($0[0]) }
        let orderColumns = columns.filter { $0.hasPrefix("Z_FOK_") }
        #expect(orderColumns.count == 2, "\(columns)")
        let shelfKey = columns.first { $0.hasSuffix("SHELVES") && !$0.hasPrefix("Z_FOK_") } ?? ""
        let bookKey = columns.first { $0.hasSuffix("BOOKS") && !$0.hasPrefix("Z_FOK_") } ?? ""
        let bookOrder = orderColumns.first { $0.hasSuffix("BOOKS") } ?? ""
        let shelfOrder = orderColumns.first { $0.hasSuffix("SHELVES") } ?? ""
        let rows = try raw.rows(
            "SELECT s.ZNAME, b.ZNAME, j.\"\(bookOrder)\", j.\"\(shelfOrder)\" FROM \"\(shelfJoin)\" j "
                + "JOIN ZSHELF s ON s.Z_PK = j.\"\(shelfKey)\" JOIN ZBOOK b ON b.Z_PK = j.\"\(bookKey)\" ORDER BY s.ZNAME, j.\"\(bookOrder)\"")
        let described = rows.map { "\(text($0[0]))/\(text($0[1]))/\($0[2].int64)/\($0[3].int64)" }
        // S1 keeps B2 at 2 and gets B3 after it; B3's own order lists S2 (1) then S1 (2).
        #expect(described == ["S1/B2/2/1", "S1/B3/3/2", "S2/B3/1/1"])
        let tracks = try raw.rows(
            "SELECT t.ZNAME, t.Z_FOK_PLAYLIST FROM ZTRACK t JOIN ZPLAYLIST p ON p.Z_PK = t.ZPLAYLIST WHERE p.ZNAME = 'P' ORDER BY t.Z_FOK_PLAYLIST")
        #expect(tracks.map { "\(text($0[0]))/\($0[1].int64)" } == ["X/1", "Y/2", "Z/3"])
        let tagJoin = try #require(tables.first { $0.hasSuffix("ITEMS") || $0.hasSuffix("TAGS") })
        #expect(try raw.rows("SELECT COUNT(*) FROM \"\(tagJoin)\"")[0][0].int64 == 4)
    }

    @Test(arguments: [StoreKind.sqlite, StoreKind.binary])
    func historyNamesTheRelationshipChangedWhileAFault(_ kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        var options = StoreOptions()
        options.persistentHistoryTracking = true
        let seeded = try kind.stack(Self.model(), in: folder, options: options)
        _ = try seeded.insert("Tag", ["name": "T1"])
        _ = try seeded.insert("Item", ["name": "D"])
        try seeded.context.save()
        let stack = try seeded.reopened()
        let t1 = try one(stack, "Tag", "T1")
        t1.addObject(try one(stack, "Item", "D"), toRelationship: "items")
        #expect(t1.hasFault(forRelationshipNamed: "items"))
        try stack.context.save()
        let result = try stack.context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?))
        let last = try #require(result.transactions?.last)
        let change = try #require(last.changes?.first { $0.changedObjectID == t1.objectID })
        #expect(change.updatedProperties == ["items"])
    }

    @Test(arguments: [StoreKind.sqlite, StoreKind.xml])
    func recordedMembersFollowPermanentIDs(_ kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        let stack = try seed(kind, folder)
        let t1 = try one(stack, "Tag", "T1")
        let p = try one(stack, "Playlist", "P")
        let e = try stack.insert("Item", ["name": "E"])
        let w = try stack.insert("Track", ["name": "W"])
        e.addObject(t1, toRelationship: "tags")
        p.addObject(w, toRelationship: "tracks")
        try stack.context.obtainPermanentIDs(for: [e, w])
        #expect(!e.objectID.isTemporaryID)
        #expect(names(t1, "items") == ["A", "B", "E"])
        #expect(names(p, "tracks") == ["X", "Y", "W"])
        try stack.context.save()
        let fresh = try stack.reopened()
        #expect(names(try one(fresh, "Tag", "T1"), "items") == ["A", "B", "E"])
        #expect(names(try one(fresh, "Playlist", "P"), "tracks") == ["X", "Y", "W"])
    }

    @Test(arguments: StoreKind.all)
    func undoAfterTheSaveTakesTheMemberOutAgain(_ kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        let stack = try seed(kind, folder)
        let context = stack.context
        context.undoManager = UndoManager()
        let (t1, d) = (try one(stack, "Tag", "T1"), try one(stack, "Item", "D"))
        let (s1, b3) = (try one(stack, "Shelf", "S1"), try one(stack, "Book", "B3"))
        context.processPendingChanges()
        t1.addObject(d, toRelationship: "items")
        s1.addObject(b3, toRelationship: "books")
        context.processPendingChanges()
        try context.save()
        context.undoManager?.undo()
        try context.save()
        #expect(names(t1, "items") == ["A", "B"])
        #expect(names(d, "tags") == [])
        let fresh = try stack.reopened()
        #expect(names(try one(fresh, "Tag", "T1"), "items") == ["A", "B"])
        #expect(names(try one(fresh, "Item", "D"), "tags") == [])
        #expect(names(try one(fresh, "Shelf", "S1"), "books") == ["B1", "B2"])
        #expect(names(try one(fresh, "Book", "B3"), "shelves") == ["S2"])
    }

    /// A child context loads the set through its parent (which applies what the parent recorded); its changes
    /// go into the parent's objects and the parent's save writes them all.
    @Test func childContextsSeeAndKeepTheParentsRecordedMembers() throws {
        let folder = try TemporaryFolder()
        let stack = try seed(.sqlite, folder)
        let t1 = try one(stack, "Tag", "T1")
        t1.addObject(try one(stack, "Item", "D"), toRelationship: "items")
        #expect(t1.hasFault(forRelationshipNamed: "items"))
        let child = ManagedObjectContext()
        child.parent = stack.context
        let request = FetchRequest<ManagedObject>(entityName: "Tag")
        request.predicate = try QueryPredicate(format: "name == %@", "T1")
        let childTag = try #require(try child.fetch(request).first)
        #expect(names(childTag, "items") == ["A", "B", "D"])
        let itemRequest = FetchRequest<ManagedObject>(entityName: "Item")
        itemRequest.predicate = try QueryPredicate(format: "name == %@", "C")
        childTag.addObject(try #require(try child.fetch(itemRequest).first), toRelationship: "items")
        try child.save()
        #expect(names(t1, "items") == ["A", "B", "C", "D"])
        try stack.context.save()
        let fresh = try stack.reopened()
        #expect(names(try one(fresh, "Tag", "T1"), "items") == ["A", "B", "C", "D"])
        #expect(names(try one(fresh, "Item", "C"), "tags") == ["T1", "T2"])
    }
}
