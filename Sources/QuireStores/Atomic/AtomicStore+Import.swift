import QuireCore
import Foundation

extension AtomicStore {
    func atomicBeginImport() {
        nodes.removeAll()
        recordsPending = false
        blobWrites = persistsToFile ? externalDataFolder.map { ExternalDataWrites(folder: $0, threshold: options.externalDataThreshold) } : nil
    }

    func atomicImportRecords(_ rows: [RowSnapshot]) throws {
        nodes.reserveCapacity(nodes.count + rows.count)
        for var row in rows {
            guard let key = row.objectID.primaryKey else { continue }
            row.attributes = try storedAttributes(row.attributes, of: row.objectID)
            for relationship in row.objectID.entity.allRelationships where relationship.isToMany && relationship.slot < row.relationships.count {
                row.relationships[relationship.slot] = relationship.isTransient ? .fault : .empty(for: relationship)
            }
            nodes[key] = row
        }
    }

    func atomicImportRelationships(_ owners: [(owner: ObjectID, relationship: RelationshipDescription, members: [ObjectID])]) {
        for (owner, relationship, members) in owners {
            guard let key = owner.primaryKey, var node = nodes[key], relationship.slot < node.relationships.count else { continue }
            node.relationships[relationship.slot] = relationship.isOrdered ? .ordered(.init(members)) : .toMany(Set(members))
            nodes[key] = node
        }
    }

    func atomicFinishImport() throws {
        nextKey = (nodes.keys.max() ?? 0) + 1
        blobWrites?.finish()
        do {
            try writeFile()
        } catch {
            blobWrites?.discard()
            blobWrites = nil
            throw error
        }
        blobWrites = nil
    }
}
