import QuireCore
import Foundation

extension CustomIncrementalStore {
    func incrementalImportRecords(_ rows: [RowSnapshot]) throws {
        var changes = IncrementalStoreChanges()
        for var row in rows {
            for relationship in row.objectID.entity.allRelationships where relationship.isToMany && relationship.slot < row.relationships.count {
                row.relationships[relationship.slot] = .empty(for: relationship)
            }
            let node = CustomAtomicStore.node(of: row)
            changes.inserted.append(
                IncrementalStoreRecord(reference: node.reference, version: node.version, attributes: node.attributes, relationships: node.relationships))
        }
        try backend.save(changes)
    }

    func incrementalImportRelationships(_ owners: [(owner: ObjectID, relationship: RelationshipDescription, members: [ObjectID])]) throws {
        var updated: [StoreReference: IncrementalStoreRecord] = [:]
        for (owner, relationship, members) in owners {
            let reference = owner.storeReference
            guard var record = try updated[reference] ?? backend.record(for: reference) else { continue }
            record.relationships[relationship.name] = members.isEmpty ? nil : members.map(\.storeReference)
            updated[reference] = record
        }
        try backend.save(IncrementalStoreChanges(updated: Array(updated.values)))
    }
}
