import QuireCore
import Foundation
import Testing

/// Decodes the `Z_MODELCACHE` of every corpus store that has one and checks it against the store itself.
@Suite("Model caches against their stores")
struct ModelCacheStoreTests {
    @Test("Entities match Z_PRIMARYKEY", arguments: CompiledModelFixtures.modelCacheStores)
    func entitiesMatchPrimaryKeyTable(store: String) throws {
        let model = try CompiledModelDecoder.decodeModelCache(try CompiledModelFixtures.modelCache(store))
        let schema = try CompiledModelFixtures.schema(store)
        #expect(model.source == .managedObjectModelArchive)
        #expect(model.warnings.isEmpty, "\(store): \(model.warnings)")
        #expect(model.entities.count == schema.modelEntities.count)

        // A store keeps the Z_NAME it was created with: after a migration that renamed an entity, the row
        // names the old name, which is the entity's renaming identifier.
        for row in schema.modelEntities {
            let entity = model.entities.first { $0.name == row.name || $0.renamingIdentifier == row.name }
            #expect(entity != nil, "\(store): no entity for Z_PRIMARYKEY row \(row.name)")
            if let entity, row.super != 0 {
                let parentRow = schema.modelEntities.first { $0.ent == row.super }
                let parent = model.entity(named: entity.superentityName ?? "")
                #expect(parent != nil && (parent?.name == parentRow?.name || parent?.renamingIdentifier == parentRow?.name))
            } else if let entity {
                #expect(entity.superentityName == nil)
            }
        }
        // The metadata's hashes name exactly the model's entities, and its version identifiers match.
        #expect(Set(schema.versionHashes.keys) == Set(model.entities.map(\.name)))
        #expect(schema.versionIdentifiers == model.versionIdentifiers)
    }

    @Test("Persistent attributes and to-one relationships are columns of the hierarchy's table", arguments: CompiledModelFixtures.modelCacheStores)
    func propertiesMatchColumns(store: String) throws {
        let model = try CompiledModelDecoder.decodeModelCache(try CompiledModelFixtures.modelCache(store))
        let schema = try CompiledModelFixtures.schema(store)
        var checked = 0
        for entity in model.entities {
            var root = entity
            var hops = 0
            while let parent = root.superentityName.flatMap(model.entity(named:)), hops < 100 {
                root = parent
                hops += 1
            }
            // The table is named after the root's name when the store was created (its renaming identifier
            // when it has been renamed since).
            let table = ["Z" + root.name.uppercased(), "Z" + (root.renamingIdentifier ?? root.name).uppercased()]
                .first { schema.tables[$0] != nil }
            guard let table, let columns = schema.tables[table] else {
                Issue.record("\(store): no table for \(root.name)")
                continue
            }
            for attribute in entity.attributes where !attribute.isTransient {
                let column = "Z" + attribute.name.uppercased()
                let renamed = "Z" + (attribute.renamingIdentifier ?? attribute.name).uppercased()
                #expect(columns.contains(column) || columns.contains(renamed), "\(store): \(table) lacks \(column)")
                checked += 1
            }
            for relationship in entity.relationships where !relationship.isTransient && !relationship.isToMany {
                #expect(columns.contains("Z" + relationship.name.uppercased()), "\(store): \(table) lacks Z\(relationship.name.uppercased())")
                checked += 1
            }
        }
        #expect(checked > 0)
    }

    @Test("Every corpus store with a model cache has a fixture")
    func fixturesCoverCorpus() throws {
        let corpus = URL(fileURLWithPath: "/work/shared/coredata-corpus/stores")
        // The corpus lives beside the repository on the development machine, not in a fresh clone: where it is
        // absent there is nothing to compare the fixtures with (an enumerator of a missing folder finds nothing).
        guard FileManager.default.fileExists(atPath: corpus.path) else { return }
        guard let enumerator = FileManager.default.enumerator(at: corpus, includingPropertiesForKeys: nil) else { return }
        var stores: [String] = []
        // Moody's stores are SQLite stores named `.moody` by the app; a file that is not an SQLite database (an
        // empty file left beside them) is no store.
        for case let url as URL in enumerator where ["sqlite", "moody"].contains(url.pathExtension) {
            guard let header = FileManager.default.contents(atPath: url.path)?.prefix(16), header == Data("SQLite format 3\0".utf8) else { continue }
            stores.append(url.deletingPathExtension().lastPathComponent)
        }
        for store in stores {
            // Every store has a schema fixture; those with a model cache have its blob too.
            #expect((try? CompiledModelFixtures.schema(store)) != nil, "no schema fixture for \(store)")
        }
        let withCache = stores.filter { (try? CompiledModelFixtures.modelCache($0)) != nil }
        #expect(Set(withCache) == Set(CompiledModelFixtures.modelCacheStores))
    }
}
