import Foundation
import QuireTestSupport
import Testing

import Quire

/// How a migration on managed objects finds what an entity mapping made of each source object
/// (`destinationInstances(forEntityMappingName:sourceInstances:)` and the default relationship step): by primary key
/// for keys as Quire and Core Data write them, and still when the keys are far apart or a source object makes
/// several destination objects. The library of ``EntityMigrationPolicyTests``.
@Suite struct MigrationAssociationTests {
    let library: EntityMigrationPolicyTests

    init() throws { library = try EntityMigrationPolicyTests() }

    /// Checks every writer has its two books, and every book its writer, in the migrated store.
    func expectWritersWithTheirBooks(_ url: URL) throws {
        let context = try library.open(url)
        try context.performAndWait {
            let writers = try JournalFixture.objects("Writer", by: "fullName", in: context)
            #expect(Set(writers.keys) == Set(EntityMigrationPolicyTests.authors.map(\.0)))
            for (name, writer) in writers {
                let surname = name.split(separator: " ")[1]
                let works = ((writer.value(forKey: "works") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "title") as? String }
                #expect(Set(works) == ["\(surname) 1", "\(surname) 2"])
            }
            let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
            #expect(books.count == 6)
            for book in books {
                let writer = try #require(book.value(forKey: "writer") as? ManagedObject)
                #expect(book.value(forKey: "writerName") as? String == writer.value(forKey: "fullName") as? String)
            }
        }
    }

    @Test func sourceObjectsWithKeysFarApartFindWhatWasMadeOfThem() throws {
        let url = try library.writeVersion1()
        // Authors keyed from 1,000,001 on: far more keys than objects, so the migration cannot index them densely.
        do {
            let database = try RawSQLite(url, readOnly: false)
            try database.execute("""
                UPDATE ZAUTHOR SET Z_PK = Z_PK + 1000000;
                UPDATE ZBOOK SET ZAUTHOR = ZAUTHOR + 1000000;
                UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1000000 WHERE Z_NAME = 'Author';
                """)
            #expect(try database.rows("SELECT MIN(Z_PK) FROM ZAUTHOR").first?.first?.int64 == 1_000_001)
        }
        try library.migrate(url, mapping: try EntityMigrationPolicyTests.mapping())
        try expectWritersWithTheirBooks(url)
    }

    @Test func sourceObjectsWithDenseKeysFindWhatWasMadeOfThem() throws {
        let url = try library.writeVersion1()
        try library.migrate(url, mapping: try EntityMigrationPolicyTests.mapping())
        try expectWritersWithTheirBooks(url)
    }

    /// Makes a second tag, `<label> (twin)`, for each tag, and checks what the manager finds for its source objects.
    final class TwinPolicy: EntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            let label = sInstance.value(forKey: "label") as? String ?? ""
            let twin = ManagedObject(entity: try #require(manager.destinationEntity(for: mapping)), insertInto: manager.destinationContext)
            twin.setValue("\(label) (twin)", forKey: "label")
            manager.associate(sourceInstance: sInstance, withDestinationInstance: twin, for: mapping)
            let made = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance])
            #expect(made.map { $0.value(forKey: "label") as? String } == [label, "\(label) (twin)"])
            for object in made {
                #expect(manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: [object]) == [sInstance])
            }
            // A source object of another entity, whatever its key, made nothing through this mapping.
            let books = try manager.sourceContext.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
            #expect(manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: books).isEmpty)
        }
    }

    @Test func aSourceObjectThatMakesTwoObjectsFindsBothInOrder() throws {
        let url = try library.writeVersion1()
        let registry = EntityMigrationPolicyTests.registry(["Tests.Twin": { TwinPolicy() }])
        try library.migrate(url, mapping: try EntityMigrationPolicyTests.mapping(tagPolicy: "Tests.Twin"), registry: registry)
        try expectWritersWithTheirBooks(url)
        let context = try library.open(url)
        try context.performAndWait {
            let tags = try JournalFixture.objects("Tag", by: "label", in: context)
            #expect(Set(tags.keys) == ["red", "blue", "red (twin)", "blue (twin)"])
            // Each book's tags map to both tags made of each: every tag has its twin's books.
            for label in ["red", "blue"] {
                let books = { (tag: ManagedObject?) in
                    Set(((tag?.value(forKey: "books") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "title") as? String })
                }
                #expect(!books(tags[label]).isEmpty)
                #expect(books(tags[label]) == books(tags["\(label) (twin)"]))
            }
        }
    }

    /// A reference that does not keep its object alive.
    struct Unretained {
        weak var object: ManagedObject?
    }

    /// Records the objects each book mapping reads and makes, without keeping them.
    final class WatchingPolicy: EntityMigrationPolicy {
        let seen: LockedBox<[Unretained]>
        init(seen: LockedBox<[Unretained]>) {
            self.seen = seen
            super.init()
        }
        required init() { seen = LockedBox([]) }
        override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            let made = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance])
            seen.mutate { $0 += ([sInstance] + made).map { Unretained(object: $0) } }
        }
    }

    @Test func theObjectsOfAMigrationAreFreedWhenItEnds() throws {
        let url = try library.writeVersion1()
        let seen = LockedBox<[Unretained]>([])
        let registry = EntityMigrationPolicyTests.registry(["Tests.Watching": { WatchingPolicy(seen: seen) }])
        // Writers and books name each other's mappings: what the migration keeps of them must not hold itself.
        try library.migrate(url, mapping: try EntityMigrationPolicyTests.mapping(bookPolicy: "Tests.Watching"), registry: registry)
        #expect(seen.value.count == 12)
        #expect(seen.value.allSatisfy { $0.object == nil })
        try expectWritersWithTheirBooks(url)
    }
}
