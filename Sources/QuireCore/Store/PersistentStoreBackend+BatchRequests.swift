import QuireSupport
import Foundation

extension PersistentStoreBackend {
    /// Runs a batch delete or update by reading the affected records and saving the change through
    /// ``PersistentStoreBackend/save(_:)``: one atomic write for the stores that keep a whole graph, one
    /// transaction for SQLite when the request must follow relationships. External data files the records no
    /// longer refer to are removed by the save, as with any other save.
    ///
    /// A delete follows the delete rules as Core Data's batch delete does: cascade deletes the related
    /// records too, nullify clears the inverse to-one of related records that survive, and the request fails,
    /// writing nothing, when a deny relationship still holds a record that is not deleted as well or when a
    /// nullified inverse to-one is not optional (Core Data's "mandatory OTO nullify inverse"). Validation rules
    /// are not run, as in Core Data.
    package func executeBatchByRecords(_ request: StoreBatchRequest) throws -> StoreBatchResult {
        var ids: [ObjectID]
        switch request.target {
        case .fetch(var fetch):
            fetch.kind = .objectIDs
            ids = try fetchObjectIDs(fetch)
        case .objectIDs(let given):
            ids = given.filter { $0.persistentStore === store && !$0.isTemporaryID }
        }
        switch request.operation {
        case .delete: return try deleteRecords(ids, wantsObjectIDs: request.wantsObjectIDs, request)
        case .update(let values): return try updateRecords(ids, values: values, wantsObjectIDs: request.wantsObjectIDs, request)
        }
    }

    private func updateRecords(
        _ ids: [ObjectID], values: [(attribute: AttributeDescription, value: StoreBatchRequest.Value)], wantsObjectIDs: Bool,
        _ batch: StoreBatchRequest
    ) throws -> StoreBatchResult {
        var changes: [SaveRequest.Change] = []
        for row in try snapshots(for: ids) {
            var attributes = row.attributes
            for (attribute, value) in values where attribute.slot < attributes.count {
                switch value {
                case .constant(let constant): attributes[attribute.slot] = constant
                case .attribute(let source): attributes[attribute.slot] = row.attributes[source.slot]
                case .expression(let expression): attributes[attribute.slot] = try StoreBatchRequest.value(of: expression, for: attribute, in: row)
                }
            }
            var change = SaveRequest.Change(
                objectID: row.objectID, store: store, version: row.version, attributes: attributes,
                relationships: row.relationships, committedRelationships: row.relationships)
            change.committedAttributes = row.attributes
            changes.append(change)
        }
        if !changes.isEmpty { _ = try save(batch.saveRequest(updated: changes)) }
        return StoreBatchResult(count: changes.count, objectIDs: wantsObjectIDs ? changes.map(\.objectID) : nil)
    }

    private func deleteRecords(_ ids: [ObjectID], wantsObjectIDs: Bool, _ batch: StoreBatchRequest) throws -> StoreBatchResult {
        var rows: [ObjectID: RowSnapshot] = [:]
        var order: [ObjectID] = []
        var denied: [(ObjectID, RelationshipDescription, [ObjectID])] = []
        var queue = ids
        // The records to delete: those asked for, and those their cascade relationships reach.
        while !queue.isEmpty {
            let batch = queue.filter { rows[$0] == nil }
            queue = []
            for row in try snapshots(for: batch) where rows[row.objectID] == nil {
                rows[row.objectID] = row
                order.append(row.objectID)
                for relationship in row.objectID.entity.allRelationships where !relationship.isTransient {
                    guard relationship.deleteRule == .cascade || relationship.deleteRule == .deny else { continue }
                    let members = try self.members(of: row, relationship)
                    if relationship.deleteRule == .cascade { queue += members } else if !members.isEmpty {
                        denied.append((row.objectID, relationship, members))
                    }
                }
            }
        }
        for (owner, relationship, members) in denied where members.contains(where: { rows[$0] == nil }) {
            throw QuireError(
                .validationRelationshipDeniedDelete,
                "The batch delete cannot delete \(owner): its relationship '\(relationship.name)' has the deny rule and still "
                    + "holds \(members.count) object\(members.count == 1 ? "" : "s").",
                context: .init(entity: owner.entity.name, key: relationship.name, object: owner.uriRepresentation(), objectID: owner))
        }
        // Surviving records whose inverse to-one points at a deleted record are nullified.
        var nullified: [ObjectID: RowSnapshot] = [:]
        var nullifiedOrder: [ObjectID] = []
        for id in order {
            guard let row = rows[id] else { continue }
            for relationship in id.entity.allRelationships where !relationship.isTransient && relationship.deleteRule == .nullify {
                guard let inverse = relationship.resolvedInverse, !inverse.isToMany, !inverse.isTransient else { continue }
                for member in try members(of: row, relationship) where rows[member] == nil {
                    guard inverse.isOptional else {
                        throw QuireError(
                            .validationMissingMandatoryProperty,
                            "Batch delete failed due to mandatory to-one nullify inverse on \(member.entity.name)/\(inverse.name): "
                                + "\(member) would be left without its required '\(inverse.name)'.",
                            context: .init(entity: member.entity.name, key: inverse.name, object: member.uriRepresentation(), objectID: member))
                    }
                    var current: RowSnapshot
                    if let pending = nullified[member] {
                        current = pending
                    } else if let read = try snapshot(for: member) {
                        current = read
                        nullifiedOrder.append(member)
                    } else {
                        continue
                    }
                    guard inverse.slot < current.relationships.count else { continue }
                    current.relationships[inverse.slot] = .toOne(nil)
                    nullified[member] = current
                }
            }
        }
        guard !order.isEmpty else { return StoreBatchResult(count: 0, objectIDs: wantsObjectIDs ? [] : nil) }
        let deleted = order.compactMap { rows[$0] }.map { row in
            SaveRequest.Change(
                objectID: row.objectID, store: store, version: row.version, attributes: row.attributes,
                relationships: row.relationships, committedRelationships: row.relationships)
        }
        let updated = nullifiedOrder.compactMap { nullified[$0] }.map { row in
            SaveRequest.Change(
                objectID: row.objectID, store: store, version: row.version, attributes: row.attributes,
                relationships: row.relationships, committedRelationships: nil)
        }
        _ = try save(batch.saveRequest(updated: updated, deleted: deleted))
        return StoreBatchResult(
            count: order.count, objectIDs: wantsObjectIDs ? order : nil, nullifiedObjectIDs: wantsObjectIDs ? nullifiedOrder : nil)
    }

    /// The records a relationship of a record holds, read from the store when the row does not carry them.
    private func members(of row: RowSnapshot, _ relationship: RelationshipDescription) throws -> [ObjectID] {
        let slot = relationship.slot
        if slot < row.relationships.count, !row.relationships[slot].isFault { return row.relationships[slot].objectIDs }
        return relationship.isToMany ? try relatedObjectIDs(of: row.objectID, relationship: relationship) : []
    }
}

extension StoreBatchRequest {
    /// A save request of changes made for this batch request, with its author and context name.
    fileprivate func saveRequest(updated: [SaveRequest.Change] = [], deleted: [SaveRequest.Change] = []) -> SaveRequest {
        var request = SaveRequest(updated: updated, deleted: deleted)
        request.transactionAuthor = transactionAuthor
        request.contextName = contextName
        return request
    }
}
