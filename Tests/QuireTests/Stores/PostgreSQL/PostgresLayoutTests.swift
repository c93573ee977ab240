import Foundation
import Testing

import Quire
import QuirePostgres
import QuireStores
import QuireTestSupport

/// The PostgreSQL store shares SQLite's layout: to-many relationships without an inverse in a hidden column of the
/// members' table, `REFLEXIVE` join tables, suffixed join columns; and a store of an earlier Quire, which kept a
/// to-many without an inverse in a join table, still opens and saves.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresLayoutTests {
    private func stack(_ url: URL, _ model: ManagedObjectModel) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private func admin() throws -> PostgresConnection {
        try PostgresConnection(url: PostgresURL(try #require(PostgresTestServer.storeURL(schema: "public"))))
    }

    private func names(_ objects: Any?) -> [String] {
        ((objects as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
    }

    private func fetch(_ context: ManagedObjectContext, _ entity: String, _ name: String) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: entity)
        request.predicate = try QueryPredicate(format: "name == %@", name)
        return try #require(try context.fetch(request).first)
    }

    /// Carts and items keep notes without an inverse; people are friends of each other (`REFLEXIVE`); reactions
    /// and messages both list users (the second join table's member column is suffixed).
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Cart", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "notes", destination: "Note", toMany: true, deleteRule: .cascade),
            ]),
            EntityDescription(name: "Item", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "notes", destination: "Note", toMany: true),
            ]),
            EntityDescription(name: "Note", properties: [AttributeDescription(name: "name", type: .string)]),
            EntityDescription(name: "Person", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "friends", destination: "Person", toMany: true, inverse: "friends"),
            ]),
            EntityDescription(name: "Reaction", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "users", destination: "User", toMany: true, inverse: "reactions"),
            ]),
            EntityDescription(name: "SystemMessage", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "users", destination: "User", toMany: true, inverse: "systemMessages"),
            ]),
            EntityDescription(name: "User", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "reactions", destination: "Reaction", toMany: true, inverse: "users"),
                RelationshipDescription(name: "systemMessages", destination: "SystemMessage", toMany: true, inverse: "users"),
            ]),
        ])
    }

    @Test func layoutsOfCoreDataReadAndWrite() throws {
        let schema = PostgresTestServer.freshSchema()
        let url = try #require(PostgresTestServer.storeURL(schema: schema))
        do {
            let context = try stack(url, Self.model())
            let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
            func make(_ entity: String, _ name: String) throws -> ManagedObject {
                let object = ManagedObject(entity: try #require(model.entitiesByName[entity]), insertInto: context)
                object.setValue(name, forKey: "name")
                return object
            }
            let cart = try make("Cart", "cart")
            let item = try make("Item", "tea")
            let (a, b, c) = (try make("Note", "a"), try make("Note", "b"), try make("Note", "c"))
            cart.setValue(Set([a, b]), forKey: "notes")
            item.setValue(Set([c]), forKey: "notes")
            let (ada, grace) = (try make("Person", "Ada"), try make("Person", "Grace"))
            ada.setValue(Set([grace]), forKey: "friends")
            let user = try make("User", "Alan")
            try make("Reaction", "like").setValue(Set([user]), forKey: "users")
            try make("SystemMessage", "joined").setValue(Set([user]), forKey: "users")
            try context.save()
            // Tea's notes get b too: another relationship, another hidden column, so the cart keeps it.
            item.setValue(Set([b, c]), forKey: "notes")
            try context.save()
        }
        let columns = try admin().queryOnce(
            "SELECT table_name || '.' || column_name FROM information_schema.columns WHERE table_schema = '\(schema)' "
                + "AND (table_name = 'znote' OR table_name LIKE 'z\\_%' ESCAPE '\\') ORDER BY 1")
        let listed = (0..<columns.count).compactMap { columns.string($0, 0) }
        #expect(listed.contains("znote.z1notes") && listed.contains("znote.z2notes"), "\(listed)")
        #expect(listed.contains("z_4friends.reflexive"), "\(listed)")
        #expect(listed.contains("z_6users.z_7users1") && listed.contains("z_5users.z_7users"), "\(listed)")

        let context = try stack(url, Self.model())
        #expect(names(try fetch(context, "Cart", "cart").value(forKey: "notes")) == ["a", "b"])
        #expect(names(try fetch(context, "Item", "tea").value(forKey: "notes")) == ["b", "c"])
        #expect(names(try fetch(context, "Person", "Grace").value(forKey: "friends")) == ["Ada"])
        #expect(names(try fetch(context, "User", "Alan").value(forKey: "systemMessages")) == ["joined"])
        // Cascade through the hidden column: a and b go with the cart.
        context.delete(try fetch(context, "Cart", "cart"))
        try context.save()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Note")) == 1)
        #expect(names(try fetch(context, "Item", "tea").value(forKey: "notes")) == ["c"])
    }

    @Test func aStoreOfAnEarlierQuireKeepsItsJoinTables() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Item", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "notes", destination: "Note", toMany: true),
            ]),
            EntityDescription(name: "Note", properties: [AttributeDescription(name: "name", type: .string)]),
        ])
        let schema = PostgresTestServer.freshSchema()
        let url = try #require(PostgresTestServer.storeURL(schema: schema))
        do {
            let context = try stack(url, model)
            _ = ManagedObject(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Item"]), insertInto: context)
            try context.save()
        }
        // The layout Quire wrote before 2026-12: the members in a join table Z_1NOTES(Z_1ITEM, Z_2NOTES).
        let admin = try admin()
        try admin.execute("ALTER TABLE \(schema).znote DROP COLUMN z1notes")
        try admin.execute("CREATE TABLE \(schema).z_1notes (z_1item BIGINT, z_2notes BIGINT, PRIMARY KEY (z_1item, z_2notes))")
        do {
            let context = try stack(url, model)
            let item = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")).first)
            let note = ManagedObject(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Note"]), insertInto: context)
            note.setValue("n", forKey: "name")
            item.setValue(Set([note]), forKey: "notes")
            try context.save()
        }
        let rows = try admin.queryOnce("SELECT count(*) FROM \(schema).z_1notes")
        #expect(rows.int64(0, 0) == 1)
        let context = try stack(url, model)
        let item = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")).first)
        #expect(names(item.value(forKey: "notes")) == ["n"])
    }
}
