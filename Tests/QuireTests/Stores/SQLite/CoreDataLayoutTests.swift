import Foundation
import OrderedCollections
import Testing

import Quire
import QuireCore
import QuireStores

/// Core Data's relationship layouts that the corpus's stores do not have, in stores built here to match the
/// facts of `coredata-corpus/README.md` exactly (from stores kept apart: Wire's, Photos', a SwiftData store):
/// the DDL, `Z_PRIMARYKEY` numbers and metadata are written with SQL as Core Data writes them, never by Quire.
/// Each store is opened with a model built in code, read both ways, written, and checked with `sqlite3`.
@Suite struct CoreDataLayoutTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// Writes a store as Core Data lays one out: the given DDL and rows, `Z_PRIMARYKEY` with the given numbers,
    /// and `Z_METADATA` with the model's version hashes (no `Z_QUIREMODEL`).
    func coreDataStore(
        _ name: String, model: ManagedObjectModel, entities: [(number: Int, name: String, superNumber: Int, max: Int)],
        ddl: [String], rows: [String] = []
    ) throws -> URL {
        let url = folder.file(name)
        let connection = try SQLiteConnection(url: url, readOnly: false, create: true)
        defer { connection.close() }
        try connection.execute("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        try connection.execute("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        for statement in ddl { try connection.execute(statement) }
        for row in rows { try connection.execute(row) }
        for entity in entities {
            try connection.execute("INSERT INTO Z_PRIMARYKEY VALUES (\(entity.number), '\(entity.name)', \(entity.superNumber), \(entity.max))")
        }
        try model.freeze()
        var metadata = StoreMetadataKey.standard(type: .sqlite, uuid: UUID().uuidString, model: model)
        metadata[StoreMetadataKey.storeUUID] = nil
        metadata[StoreMetadataKey.persistenceFrameworkVersion] = .integer(1447)
        let insert = try connection.prepare("INSERT INTO Z_METADATA VALUES (1, ?, ?)")
        defer { insert.finalize() }
        insert.bind(UUID().uuidString, at: 1)
        insert.bind(try PropertyListValue.encode(metadata, format: .binary), at: 2)
        try insert.run()
        return url
    }

    func object(_ context: ManagedObjectContext, _ entity: String, _ pk: Int64) throws -> ManagedObject {
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first)
        let description = try #require(coordinator.managedObjectModel.entitiesByName[entity])
        let uri = URL(string: "x-coredata://\(store.identifier)/\(description.name)/p\(pk)")!
        return try context.existingObject(with: try #require(coordinator.managedObjectID(forURIRepresentation: uri)))
    }

    func keys(_ value: Any?) -> [Int64] {
        let objects: [ManagedObject]
        if let set = value as? Set<ManagedObject> {
            objects = Array(set)
        } else if let ordered = value as? OrderedSet<ManagedObject> {
            return ordered.map { $0.objectID.primaryKey ?? 0 }
        } else if let single = value as? ManagedObject {
            objects = [single]
        } else {
            objects = []
        }
        return objects.map { $0.objectID.primaryKey ?? 0 }.sorted()
    }

    // MARK: Join columns with a numeric suffix (Wire)

    /// Wire's layout: `User` (23) is the destination of `Reaction.users` (19) and `SystemMessage.users` (15, a
    /// sub-entity of `Message`); `Z_19USERS(Z_19REACTIONS, Z_23USERS)` took the name first, so the other join
    /// table's member column is `Z_23USERS1`.
    static func wireModel() -> ManagedObjectModel {
        let message = EntityDescription(name: "Message", properties: [AttributeDescription(name: "text", type: .string)])
        let system = EntityDescription(name: "SystemMessage", properties: [
            RelationshipDescription(name: "users", destination: "User", toMany: true, inverse: "systemMessages"),
        ])
        message.subentities = [system]
        let reaction = EntityDescription(name: "Reaction", properties: [
            AttributeDescription(name: "unicode", type: .string),
            RelationshipDescription(name: "users", destination: "User", toMany: true, inverse: "reactions"),
        ])
        let user = EntityDescription(name: "User", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "reactions", destination: "Reaction", toMany: true, inverse: "users"),
            RelationshipDescription(name: "systemMessages", destination: "SystemMessage", toMany: true, inverse: "users"),
        ])
        return ManagedObjectModel(entities: [message, system, reaction, user])
    }

    func wireStore() throws -> URL {
        try coreDataStore(
            "Wire.sqlite", model: Self.wireModel(),
            entities: [(14, "Message", 0, 3), (15, "SystemMessage", 14, 0), (19, "Reaction", 0, 2), (23, "User", 0, 3)],
            ddl: [
                "CREATE TABLE ZMESSAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTEXT VARCHAR )",
                "CREATE INDEX ZMESSAGE_Z_ENT_INDEX ON ZMESSAGE (Z_ENT)",
                "CREATE TABLE ZREACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZUNICODE VARCHAR )",
                "CREATE TABLE ZUSER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
                "CREATE TABLE Z_19USERS ( Z_19REACTIONS INTEGER, Z_23USERS INTEGER, PRIMARY KEY (Z_19REACTIONS, Z_23USERS) )",
                "CREATE INDEX Z_19USERS_Z_23USERS_INDEX ON Z_19USERS (Z_23USERS, Z_19REACTIONS)",
                "CREATE TABLE Z_15USERS ( Z_15SYSTEMMESSAGES INTEGER, Z_23USERS1 INTEGER, PRIMARY KEY (Z_15SYSTEMMESSAGES, Z_23USERS1) )",
                "CREATE INDEX Z_15USERS_Z_23USERS1_INDEX ON Z_15USERS (Z_23USERS1, Z_15SYSTEMMESSAGES)",
            ],
            rows: [
                "INSERT INTO ZMESSAGE VALUES (1, 14, 1, 'plain'), (2, 15, 1, 'joined'), (3, 15, 1, 'left')",
                "INSERT INTO ZREACTION VALUES (1, 19, 1, '👍'), (2, 19, 1, '❤️')",
                "INSERT INTO ZUSER VALUES (1, 23, 1, 'Ada'), (2, 23, 1, 'Grace'), (3, 23, 1, 'Alan')",
                "INSERT INTO Z_19USERS VALUES (1, 1), (1, 2), (2, 3)",
                "INSERT INTO Z_15USERS VALUES (2, 1), (2, 2), (3, 3)",
            ])
    }

    @Test func readsAndWritesJoinColumnsWithANumericSuffix() throws {
        let url = try wireStore()
        let schema = try sqlite3(url, ".schema")
        do {
            let (_, context) = try Fixtures.stack(Self.wireModel(), at: url)
            #expect(keys(try object(context, "User", 1).value(forKey: "systemMessages")) == [2])
            #expect(keys(try object(context, "User", 3).value(forKey: "systemMessages")) == [3])
            #expect(keys(try object(context, "User", 2).value(forKey: "reactions")) == [1])
            #expect(keys(try object(context, "SystemMessage", 2).value(forKey: "users")) == [1, 2])
            #expect(keys(try object(context, "Reaction", 1).value(forKey: "users")) == [1, 2])
            // A predicate through the suffixed column, compiled to SQL.
            let request = FetchRequest<ManagedObject>(entityName: "User")
            request.predicate = try QueryPredicate(format: "ANY systemMessages.text == %@", "left")
            #expect(try context.fetch(request).compactMap(\.objectID.primaryKey) == [3])

            // Alan joins message 2 and leaves message 3; Grace is deleted.
            let alan = try object(context, "User", 3)
            alan.setValue(Set([try object(context, "SystemMessage", 2)]), forKey: "systemMessages")
            context.delete(try object(context, "User", 2))
            try context.save()
        }
        #expect(try sqlite3(url, "SELECT Z_15SYSTEMMESSAGES || ':' || Z_23USERS1 FROM Z_15USERS ORDER BY 1") == "2:1\n2:3")
        #expect(try sqlite3(url, "SELECT Z_19REACTIONS || ':' || Z_23USERS FROM Z_19USERS ORDER BY 1") == "1:1\n2:3")
        #expect(try sqlite3(url, ".schema") == schema)
        #expect(try StoreVerification.problems(inStoreAt: url, type: .sqlite, modelFile: nil, model: Self.wireModel()).isEmpty)
    }

    @Test func newStoresNameJoinColumnsAsCoreDataDoes() throws {
        let url = folder.file("New.sqlite")
        _ = try Fixtures.stack(Self.wireModel(), at: url)
        // Numbered by Core Data's rule in a new store (Message 1, SystemMessage 2, Reaction 3, User 4); tables made
        // entity by entity in name order, so Reaction's takes Z_4USERS and SystemMessage's gets the suffix.
        let schema = try sqlite3(url, ".schema")
        #expect(schema.contains("CREATE TABLE Z_3USERS ( Z_3REACTIONS INTEGER, Z_4USERS INTEGER, PRIMARY KEY (Z_3REACTIONS, Z_4USERS) )"), "\(schema)")
        #expect(schema.contains("CREATE TABLE Z_2USERS ( Z_2SYSTEMMESSAGES INTEGER, Z_4USERS1 INTEGER, PRIMARY KEY (Z_2SYSTEMMESSAGES, Z_4USERS1) )"))
        #expect(schema.contains("CREATE INDEX Z_2USERS_Z_4USERS1_INDEX ON Z_2USERS (Z_4USERS1, Z_2SYSTEMMESSAGES)"))
    }

    @Test func aJoinTableWithoutItsColumnsIsRefusedNamingTheDifference() throws {
        let url = try wireStore()
        _ = try sqlite3(url, "ALTER TABLE Z_15USERS RENAME COLUMN Z_23USERS1 TO Z_99OTHER")
        let error = try #require(throws: QuireError.self) { try Fixtures.stack(Self.wireModel(), at: url) }
        #expect(error.message.contains("does not match its model: column Z_15USERS.Z_23USERS is missing"), "\(error.message)")
        // verify and convert answer with the same difference, never with SQLite's own error.
        let report = try #require(throws: QuireError.self) {
            try StoreVerification.problems(inStoreAt: url, type: .sqlite, modelFile: nil, model: Self.wireModel())
        }
        #expect(!report.message.contains("no such column"), "\(report.message)")
    }

    // MARK: REFLEXIVE (Photos)

    /// A many-to-many that is its own inverse (Photos' `Person.invalidMergeCandidates`): `Z_<n><REL>` with the
    /// columns `Z_<n><REL>` and `REFLEXIVE`. A self many-to-many with another inverse has an ordinary join table.
    static func reflexiveModel() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "friends", destination: "Person", toMany: true, inverse: "friends"),
        ])
        return ManagedObjectModel(entities: [person])
    }

    @Test func readsAndWritesAReflexiveJoinTable() throws {
        let url = try coreDataStore(
            "Reflexive.sqlite", model: Self.reflexiveModel(), entities: [(1, "Person", 0, 4)],
            ddl: [
                "CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
                "CREATE TABLE Z_1FRIENDS ( Z_1FRIENDS INTEGER, REFLEXIVE INTEGER, PRIMARY KEY (Z_1FRIENDS, REFLEXIVE) )",
                "CREATE INDEX Z_1FRIENDS_REFLEXIVE_INDEX ON Z_1FRIENDS (REFLEXIVE, Z_1FRIENDS)",
            ],
            rows: [
                "INSERT INTO ZPERSON VALUES (1, 1, 1, 'Ada'), (2, 1, 1, 'Grace'), (3, 1, 1, 'Alan'), (4, 1, 1, 'Edsger')",
                // Ada and Grace as one row; Ada and Alan both ways round.
                "INSERT INTO Z_1FRIENDS VALUES (1, 2), (3, 1), (1, 3)",
            ])
        let schema = try sqlite3(url, ".schema")
        do {
            let (_, context) = try Fixtures.stack(Self.reflexiveModel(), at: url)
            #expect(keys(try object(context, "Person", 1).value(forKey: "friends")) == [2, 3])
            #expect(keys(try object(context, "Person", 2).value(forKey: "friends")) == [1])
            #expect(keys(try object(context, "Person", 3).value(forKey: "friends")) == [1])
            #expect(keys(try object(context, "Person", 4).value(forKey: "friends")) == [])
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = try QueryPredicate(format: "ANY friends.name == %@", "Ada")
            #expect(try context.fetch(request).compactMap(\.objectID.primaryKey).sorted() == [2, 3])
            // Grace and Edsger become friends, Ada and Grace no longer are, Alan is deleted.
            let grace = try object(context, "Person", 2)
            grace.setValue(Set([try object(context, "Person", 4)]), forKey: "friends")
            context.delete(try object(context, "Person", 3))
            try context.save()
        }
        // Each link both ways round.
        #expect(try sqlite3(url, "SELECT Z_1FRIENDS || ':' || REFLEXIVE FROM Z_1FRIENDS ORDER BY 1") == "2:4\n4:2")
        #expect(try sqlite3(url, ".schema") == schema)
        let (_, context) = try Fixtures.stack(Self.reflexiveModel(), at: url)
        #expect(keys(try object(context, "Person", 4).value(forKey: "friends")) == [2])
        #expect(keys(try object(context, "Person", 1).value(forKey: "friends")) == [])
    }

    @Test func newStoresLayOutAReflexiveJoinTableAsCoreDataDoes() throws {
        let url = folder.file("New.sqlite")
        do {
            let (_, context) = try Fixtures.stack(Self.reflexiveModel(), at: url)
            let ada = ManagedObject(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Person"]), insertInto: context)
            let grace = ManagedObject(entity: ada.entity, insertInto: context)
            ada.setValue(Set([grace]), forKey: "friends")
            try context.save()
        }
        let schema = try sqlite3(url, ".schema")
        #expect(schema.contains("CREATE TABLE Z_1FRIENDS ( Z_1FRIENDS INTEGER, REFLEXIVE INTEGER, PRIMARY KEY (Z_1FRIENDS, REFLEXIVE) )"), "\(schema)")
        #expect(schema.contains("CREATE INDEX Z_1FRIENDS_REFLEXIVE_INDEX ON Z_1FRIENDS (REFLEXIVE, Z_1FRIENDS)"))
        #expect(try sqlite3(url, "SELECT Z_1FRIENDS || ':' || REFLEXIVE FROM Z_1FRIENDS ORDER BY 1") == "1:2\n2:1")
        #expect(try StoreVerification.problems(inStoreAt: url, type: .sqlite).isEmpty)
    }

    // MARK: To-many without an inverse (CartKit, SwiftData)

    /// CartKit's `CDCartItem.modifiers` (no inverse) is the hidden column `ZCDCARTITEMMODIFIER.Z2MODIFIERS`; here
    /// two entities keep members in one destination (as SwiftData stores do), with the three delete rules.
    static func hiddenModel() -> ManagedObjectModel {
        let cart = EntityDescription(name: "Cart", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", toMany: true, deleteRule: .cascade),
        ])
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", toMany: true, deleteRule: .nullify),
            RelationshipDescription(name: "pinned", destination: "Note", toMany: true, deleteRule: .deny),
        ])
        let note = EntityDescription(name: "Note", properties: [AttributeDescription(name: "text", type: .string)])
        return ManagedObjectModel(entities: [cart, item, note])
    }

    func hiddenStore() throws -> URL {
        try coreDataStore(
            "Hidden.sqlite", model: Self.hiddenModel(), entities: [(1, "Cart", 0, 1), (2, "Item", 0, 2), (3, "Note", 0, 5)],
            ddl: [
                "CREATE TABLE ZCART ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
                "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
                "CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, Z1NOTES INTEGER, Z2NOTES INTEGER, Z2PINNED INTEGER, ZTEXT VARCHAR )",
                "CREATE INDEX ZNOTE_Z1NOTES_INDEX ON ZNOTE (Z1NOTES)",
                "CREATE INDEX ZNOTE_Z2NOTES_INDEX ON ZNOTE (Z2NOTES)",
                "CREATE INDEX ZNOTE_Z2PINNED_INDEX ON ZNOTE (Z2PINNED)",
            ],
            rows: [
                "INSERT INTO ZCART VALUES (1, 1, 1, 'cart')",
                "INSERT INTO ZITEM VALUES (1, 2, 1, 'tea'), (2, 2, 1, 'milk')",
                // Notes 1 and 2 are the cart's, 3 and 4 tea's, 5 is milk's pinned note.
                "INSERT INTO ZNOTE VALUES (1, 3, 1, 1, NULL, NULL, 'a'), (2, 3, 1, 1, NULL, NULL, 'b'), (3, 3, 1, NULL, 1, NULL, 'c'), "
                    + "(4, 3, 1, NULL, 1, NULL, 'd'), (5, 3, 1, NULL, NULL, 2, 'e')",
            ])
    }

    @Test func readsAndWritesToManyRelationshipsWithoutAnInverse() throws {
        let url = try hiddenStore()
        let schema = try sqlite3(url, ".schema")
        do {
            let (_, context) = try Fixtures.stack(Self.hiddenModel(), at: url)
            #expect(keys(try object(context, "Cart", 1).value(forKey: "notes")) == [1, 2])
            #expect(keys(try object(context, "Item", 1).value(forKey: "notes")) == [3, 4])
            #expect(keys(try object(context, "Item", 2).value(forKey: "pinned")) == [5])
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            request.predicate = try QueryPredicate(format: "ANY notes.text == %@", "d")
            #expect(try context.fetch(request).compactMap(\.objectID.primaryKey) == [1])

            // Milk takes note 3 from tea and a new note; tea keeps note 4.
            let milk = try object(context, "Item", 2)
            let note = ManagedObject(entity: try object(context, "Note", 1).entity, insertInto: context)
            note.setValue("f", forKey: "text")
            milk.setValue(Set([try object(context, "Note", 3), note]), forKey: "notes")
            try object(context, "Item", 1).setValue(Set([try object(context, "Note", 4)]), forKey: "notes")
            try context.save()
        }
        #expect(try sqlite3(url, "SELECT Z_PK || ':' || ifnull(Z1NOTES, '') || ':' || ifnull(Z2NOTES, '') || ':' || ifnull(Z2PINNED, '') FROM ZNOTE ORDER BY Z_PK")
            == "1:1::\n2:1::\n3::2:\n4::1:\n5:::2\n6::2:")
        #expect(try sqlite3(url, ".schema") == schema)
        #expect(try StoreVerification.problems(inStoreAt: url, type: .sqlite, modelFile: nil, model: Self.hiddenModel()).isEmpty)
    }

    @Test func deleteRulesOfToManyRelationshipsWithoutAnInverse() throws {
        let url = try hiddenStore()
        let (_, context) = try Fixtures.stack(Self.hiddenModel(), at: url)
        // Deny: milk's pinned note keeps milk.
        context.delete(try object(context, "Item", 2))
        #expect(throws: QuireError.self) { try context.save() }
        context.rollback()
        // Nullify: tea goes, its notes stay and no longer name it.
        context.delete(try object(context, "Item", 1))
        // Cascade: the cart's notes go with it.
        context.delete(try object(context, "Cart", 1))
        try context.save()
        #expect(try sqlite3(url, "SELECT Z_PK || ':' || ifnull(Z1NOTES, '') || ':' || ifnull(Z2NOTES, '') FROM ZNOTE ORDER BY Z_PK") == "3::\n4::\n5::")
    }

    @Test func newStoresKeepToManyRelationshipsWithoutAnInverseInAHiddenColumn() throws {
        let url = folder.file("New.sqlite")
        _ = try Fixtures.stack(Self.hiddenModel(), at: url)
        // As CartKit's store (Core Data 1523): the owner's key after the table's own keys, indexed.
        let schema = try sqlite3(url, ".schema ZNOTE")
        #expect(schema.contains("CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, Z1NOTES INTEGER, Z2NOTES INTEGER, Z2PINNED INTEGER, ZTEXT VARCHAR )"), "\(schema)")
        #expect(schema.contains("CREATE INDEX ZNOTE_Z1NOTES_INDEX ON ZNOTE (Z1NOTES)"))
        #expect(try sqlite3(url, "SELECT name FROM sqlite_master WHERE name LIKE 'Z\\_%' ESCAPE '\\' ORDER BY 1") == "Z_METADATA\nZ_MODELCACHE\nZ_PRIMARYKEY\nZ_QUIREMODEL")
    }

    @Test func storesOfEarlierQuireKeepToManyRelationshipsWithoutAnInverseInAJoinTable() throws {
        // Quire before 2026-12 wrote Z_<n><REL>(Z_<n><ENTITY>, Z_<m><REL>) for them; such stores open and save.
        let model = Self.hiddenModel()
        let url = try coreDataStore(
            "Earlier.sqlite", model: model, entities: [(1, "Cart", 0, 1), (2, "Item", 0, 1), (3, "Note", 0, 2)],
            ddl: [
                "CREATE TABLE ZCART ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
                "CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
                "CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTEXT VARCHAR )",
                "CREATE TABLE Z_1NOTES ( Z_1CART INTEGER, Z_3NOTES INTEGER, PRIMARY KEY (Z_1CART, Z_3NOTES) )",
                "CREATE TABLE Z_2NOTES ( Z_2ITEM INTEGER, Z_3NOTES INTEGER, PRIMARY KEY (Z_2ITEM, Z_3NOTES) )",
                "CREATE TABLE Z_2PINNED ( Z_2ITEM INTEGER, Z_3PINNED INTEGER, PRIMARY KEY (Z_2ITEM, Z_3PINNED) )",
            ],
            rows: [
                "INSERT INTO ZCART VALUES (1, 1, 1, 'cart')", "INSERT INTO ZITEM VALUES (1, 2, 1, 'tea')",
                "INSERT INTO ZNOTE VALUES (1, 3, 1, 'a'), (2, 3, 1, 'b')", "INSERT INTO Z_1NOTES VALUES (1, 1)",
            ])
        do {
            let (_, context) = try Fixtures.stack(model, at: url)
            #expect(keys(try object(context, "Cart", 1).value(forKey: "notes")) == [1])
            try object(context, "Item", 1).setValue(Set([try object(context, "Note", 2)]), forKey: "notes")
            try context.save()
        }
        #expect(try sqlite3(url, "SELECT Z_2ITEM || ':' || Z_3NOTES FROM Z_2NOTES") == "1:2")
    }

    // MARK: An inverse whose destination is a sub-entity of the source (Photos 10.15)

    /// `GenericAsset.extendedAttributes` ↔ `ExtendedAttributes.asset`, whose destination is `Asset`, a
    /// sub-entity of `GenericAsset`: Core Data accepts it; each side is a column.
    static func subEntityInverseModel() -> ManagedObjectModel {
        let generic = EntityDescription(name: "GenericAsset", properties: [
            AttributeDescription(name: "filename", type: .string),
            RelationshipDescription(name: "extendedAttributes", destination: "ExtendedAttributes", inverse: "asset"),
        ])
        let asset = EntityDescription(name: "Asset")
        generic.subentities = [asset]
        let extended = EntityDescription(name: "ExtendedAttributes", properties: [
            AttributeDescription(name: "cameraMake", type: .string),
            RelationshipDescription(name: "asset", destination: "Asset", inverse: "extendedAttributes"),
        ])
        return ManagedObjectModel(entities: [generic, asset, extended])
    }

    @Test func readsAndWritesAnInverseOnASubEntity() throws {
        let url = try coreDataStore(
            "Photos.sqlite", model: Self.subEntityInverseModel(),
            entities: [(1, "ExtendedAttributes", 0, 1), (2, "GenericAsset", 0, 2), (3, "Asset", 2, 0)],
            ddl: [
                "CREATE TABLE ZEXTENDEDATTRIBUTES ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZASSET INTEGER, ZCAMERAMAKE VARCHAR )",
                "CREATE INDEX ZEXTENDEDATTRIBUTES_ZASSET_INDEX ON ZEXTENDEDATTRIBUTES (ZASSET)",
                "CREATE TABLE ZGENERICASSET ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZEXTENDEDATTRIBUTES INTEGER, ZFILENAME VARCHAR )",
                "CREATE INDEX ZGENERICASSET_ZEXTENDEDATTRIBUTES_INDEX ON ZGENERICASSET (ZEXTENDEDATTRIBUTES)",
                "CREATE INDEX ZGENERICASSET_Z_ENT_INDEX ON ZGENERICASSET (Z_ENT)",
            ],
            rows: [
                "INSERT INTO ZGENERICASSET VALUES (1, 3, 1, 1, 'IMG_0001.HEIC'), (2, 3, 1, NULL, 'IMG_0002.HEIC')",
                "INSERT INTO ZEXTENDEDATTRIBUTES VALUES (1, 1, 1, 1, 'Apple')",
            ])
        do {
            let (_, context) = try Fixtures.stack(Self.subEntityInverseModel(), at: url)
            let first = try object(context, "Asset", 1)
            let extended = try object(context, "ExtendedAttributes", 1)
            #expect(keys(first.value(forKey: "extendedAttributes")) == [1])
            #expect(keys(extended.value(forKey: "asset")) == [1])
            // The attributes move to the second asset; both sides follow.
            extended.setValue(try object(context, "Asset", 2), forKey: "asset")
            try context.save()
            #expect(first.value(forKey: "extendedAttributes") == nil)
        }
        #expect(try sqlite3(url, "SELECT Z_PK || ':' || ifnull(ZEXTENDEDATTRIBUTES, '') FROM ZGENERICASSET ORDER BY Z_PK") == "1:\n2:1")
        #expect(try sqlite3(url, "SELECT ZASSET FROM ZEXTENDEDATTRIBUTES") == "2")
    }

    // MARK: Ordered many-to-many (Photos' albums)

    /// `GenericAlbum.assets` (ordered) ↔ `Asset.albums`: `Z_26ASSETS(Z_26ALBUMS, Z_34ASSETS, Z_FOK_34ASSETS)`,
    /// the order column holding the position of the member its name's column holds.
    static func albumModel() -> ManagedObjectModel {
        let album = EntityDescription(name: "GenericAlbum", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "assets", destination: "Asset", toMany: true, isOrdered: true, inverse: "albums"),
        ])
        let asset = EntityDescription(name: "Asset", properties: [
            AttributeDescription(name: "filename", type: .string),
            RelationshipDescription(name: "albums", destination: "GenericAlbum", toMany: true, inverse: "assets"),
        ])
        return ManagedObjectModel(entities: [album, asset])
    }

    @Test func reordersAnOrderedManyToMany() throws {
        let url = try coreDataStore(
            "Albums.sqlite", model: Self.albumModel(), entities: [(26, "GenericAlbum", 0, 1), (34, "Asset", 0, 3)],
            ddl: [
                "CREATE TABLE ZGENERICALBUM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR )",
                "CREATE TABLE ZASSET ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFILENAME VARCHAR )",
                "CREATE TABLE Z_26ASSETS ( Z_26ALBUMS INTEGER, Z_34ASSETS INTEGER, Z_FOK_34ASSETS INTEGER, PRIMARY KEY (Z_26ALBUMS, Z_34ASSETS) )",
                "CREATE INDEX Z_26ASSETS_Z_34ASSETS_INDEX ON Z_26ASSETS (Z_34ASSETS, Z_26ALBUMS)",
            ],
            rows: [
                "INSERT INTO ZGENERICALBUM VALUES (1, 26, 1, 'Trip')",
                "INSERT INTO ZASSET VALUES (1, 34, 1, 'a'), (2, 34, 1, 'b'), (3, 34, 1, 'c')",
                "INSERT INTO Z_26ASSETS VALUES (1, 2, 1), (1, 3, 2), (1, 1, 3)",
            ])
        do {
            let (_, context) = try Fixtures.stack(Self.albumModel(), at: url)
            let album = try object(context, "GenericAlbum", 1)
            #expect(keys(album.value(forKey: "assets")) == [2, 3, 1])
            album.setValue(OrderedSet([try object(context, "Asset", 1), try object(context, "Asset", 3), try object(context, "Asset", 2)]), forKey: "assets")
            try context.save()
        }
        #expect(try sqlite3(url, "SELECT Z_34ASSETS FROM Z_26ASSETS ORDER BY Z_FOK_34ASSETS") == "1\n3\n2")
        let (_, context) = try Fixtures.stack(Self.albumModel(), at: url)
        #expect(keys(try object(context, "GenericAlbum", 1).value(forKey: "assets")) == [1, 3, 2])
    }
}

extension StoreVerification {
    /// The problems of a store opened with a model built in code: embedded into a copy first (verification opens
    /// stores with a model file or the model they carry).
    static func problems(inStoreAt url: URL, type: StoreType, modelFile: URL?, model: ManagedObjectModel) throws -> [String] {
        let folder = try TemporaryFolder()
        let copy = folder.file(url.lastPathComponent)
        try FileManager.default.copyItem(at: url, to: copy)
        let connection = try SQLiteConnection(url: copy, readOnly: false, create: false)
        do {
            try model.freeze()
            try connection.execute("CREATE TABLE Z_QUIREMODEL (Z_VERSION INTEGER PRIMARY KEY, Z_CONTENT BLOB)")
            let insert = try connection.prepare("INSERT INTO Z_QUIREMODEL VALUES (1, ?)")
            insert.bind(try model.serializedRepresentation(), at: 1)
            try insert.run()
            insert.finalize()
        }
        connection.close()
        return try problems(inStoreAt: copy, type: type, modelFile: modelFile)
    }
}
