import QuireSupport
import Foundation

/// What a batch insert does with a row whose uniqueness-constraint values a stored record or an earlier row of the
/// request already has: the context's merge policy, as Core Data's `NSBatchInsertRequest` follows it.
package enum BatchInsertConflictRule: Sendable, Hashable {
    /// The request fails, writing nothing (`NSErrorMergePolicy`).
    case fail
    /// The stored record takes every value of the row (nil ones, and defaults of keys the row left out,
    /// included); an earlier row takes the later row's non-nil values (`NSMergeByPropertyObjectTrumpMergePolicy`).
    case objectTrump
    /// The stored record keeps its values; an earlier row takes the later row's non-nil values
    /// (`NSMergeByPropertyStoreTrumpMergePolicy`).
    case storeTrump
    /// The stored record takes every value of the row; a later row with an earlier row's values is dropped
    /// (`NSOverwriteMergePolicy`).
    case overwrite
    /// The stored record keeps its values and the row is dropped; so is a later row with an earlier row's values
    /// (`NSRollbackMergePolicy`).
    case rollback

    /// Whether a row meeting a stored record replaces the record's values.
    var replacesStoredValues: Bool { self == .objectTrump || self == .overwrite }
    /// Whether a row meeting an earlier row of the request gives it its non-nil values.
    var mergesRows: Bool { self == .objectTrump || self == .storeTrump }
}

/// What a batch insert wrote.
package struct StoreBatchInsertResult: Sendable {
    /// The records inserted or updated, each once, in the order of the rows that reached them.
    package var objectIDs: [ObjectID] = []
    /// The records inserted.
    package var inserted: [ObjectID] = []
    /// The stored records updated (an upsert).
    package var updated: [ObjectID] = []
}

extension PersistentStoreBackend {
    /// Inserts records with the given attribute values (by slot, already of the attributes' types) through
    /// ``PersistentStoreBackend/save(_:)``, in one transaction or one atomic write, and returns the records
    /// inserted and updated.
    ///
    /// Rows of an entity with uniqueness constraints (its own or inherited; constraints over attributes only: a
    /// batch insert sets no relationship, and a tuple with a nil value never conflicts) are matched first against
    /// the stored records of the constraint's entity and its sub-entities, and against the earlier rows of the
    /// request, and resolved by `rule`: an upsert under the by-property and overwrite policies, as Core Data's
    /// batch insert does. A stored record that is updated keeps its ID and its relationships, its version goes
    /// up by one, and its history records an update.
    ///
    /// - Throws: ``QuireError/Code/managedObjectConstraintMerge`` with ``QuireError/constraintConflicts`` under
    ///   ``BatchInsertConflictRule/fail`` (or when one row meets two different records through two constraints),
    ///   writing nothing; the store's errors.
    package func insertRecords(
        of entity: EntityDescription, attributes: [[AttributeValue]], conflicts rule: BatchInsertConflictRule = .fail,
        transactionAuthor: String? = nil, contextName: String? = nil
    ) throws -> StoreBatchInsertResult {
        guard !attributes.isEmpty else { return StoreBatchInsertResult() }
        let constraints = BatchInsertConstraint.all(of: entity)
        guard !constraints.isEmpty else {
            // Every row is a new record: the IDs are the save's, in order.
            let relationships = entity.allRelationships.map { RelationshipStorage.empty(for: $0) }
            var request = SaveRequest(inserted: attributes.map { newRecord(entity, $0, relationships) })
            request.transactionAuthor = transactionAuthor
            request.contextName = contextName
            let permanent = try save(request).permanentIDs
            return StoreBatchInsertResult(objectIDs: permanent, inserted: permanent)
        }
        var plan = BatchInsertPlan(entity: entity, constraints: constraints, rule: rule)
        try plan.findStoredRecords(of: attributes, in: self)
        for row in attributes { try plan.add(row) }
        try plan.throwConflicts()
        let relationships = entity.allRelationships.map { RelationshipStorage.empty(for: $0) }
        var request = SaveRequest(
            inserted: plan.newRows.map { newRecord(entity, $0, relationships) },
            updated: plan.updatedOrder.compactMap { plan.updated[$0] }.map { update in
                var change = SaveRequest.Change(
                    objectID: update.stored.objectID, store: store, version: update.stored.version, attributes: update.values,
                    relationships: update.stored.relationships, committedRelationships: update.stored.relationships)
                change.committedAttributes = update.stored.attributes
                return change
            })
        request.transactionAuthor = transactionAuthor
        request.contextName = contextName
        guard !request.inserted.isEmpty || !request.updated.isEmpty else { return StoreBatchInsertResult() }
        let permanent = try save(request).permanentIDs
        var seen = Set<ObjectID>()
        var result = StoreBatchInsertResult(inserted: permanent, updated: request.updated.map(\.objectID))
        result.objectIDs = plan.reached.compactMap { target in
            let id: ObjectID
            switch target {
            case .new(let index): id = permanent[index]
            case .stored(let stored): id = stored
            }
            return seen.insert(id).inserted ? id : nil
        }
        return result
    }

    private func newRecord(_ entity: EntityDescription, _ values: [AttributeValue], _ relationships: [RelationshipStorage]) -> SaveRequest.Change {
        SaveRequest.Change(
            objectID: ObjectID.makeTemporary(for: entity), store: store, version: 0, attributes: values,
            relationships: relationships, committedRelationships: nil)
    }
}

/// One uniqueness constraint over attributes that a batch insert checks.
private struct BatchInsertConstraint {
    /// The entity that declares it.
    let owner: EntityDescription
    /// Its position among the owner's constraints.
    let position: Int
    /// Its attribute names.
    let names: [String]

    /// The constraints an entity's records must keep: its own and its superentities', over attributes only.
    static func all(of entity: EntityDescription) -> [BatchInsertConstraint] {
        var result: [BatchInsertConstraint] = []
        var current: EntityDescription? = entity
        while let owner = current {
            for (position, names) in owner.uniquenessConstraints.enumerated() where !names.isEmpty {
                guard names.allSatisfy({ entity.property(named: $0) is AttributeDescription }) else { continue }
                result.append(BatchInsertConstraint(owner: owner, position: position, names: names))
            }
            current = owner.superentity
        }
        return result
    }

    /// The constraint's values in a record of `entity`; nil when one is nil (it cannot conflict).
    func values(_ attributes: [AttributeValue], of entity: EntityDescription) -> [AttributeValue]? {
        var values: [AttributeValue] = []
        for name in names {
            guard let attribute = entity.property(named: name) as? AttributeDescription, attribute.slot < attributes.count else {
                return nil
            }
            let value = attributes[attribute.slot]
            if value.isNull { return nil }
            values.append(value)
        }
        return values
    }
}

/// A constraint and the values of one record.
private struct BatchInsertKey: Hashable {
    let constraint: Int
    let values: [AttributeValue]
}

/// The record a row of a batch insert ends in.
private enum BatchInsertTarget: Hashable {
    /// A new record: the index of its row among the rows to insert.
    case new(Int)
    /// A stored record.
    case stored(ObjectID)
}

/// Sorts the rows of a batch insert into new records and updates of stored ones.
private struct BatchInsertPlan {
    struct Update {
        let stored: RowSnapshot
        var values: [AttributeValue]
    }

    let entity: EntityDescription
    let constraints: [BatchInsertConstraint]
    let rule: BatchInsertConflictRule
    /// The stored records by constraint values, and by ID.
    var stored: [BatchInsertKey: RowSnapshot] = [:]
    var storedByID: [ObjectID: RowSnapshot] = [:]
    /// The record each constraint value tuple seen so far ends in.
    var targets: [BatchInsertKey: BatchInsertTarget] = [:]
    /// The rows to insert.
    var newRows: [[AttributeValue]] = []
    /// The stored records to update, and the order they were first reached in.
    var updated: [ObjectID: Update] = [:]
    var updatedOrder: [ObjectID] = []
    /// The record each row that was written reached, in order.
    var reached: [BatchInsertTarget] = []
    /// Conflicts the rule does not resolve.
    var conflicts: [ConstraintConflict] = []

    init(entity: EntityDescription, constraints: [BatchInsertConstraint], rule: BatchInsertConflictRule) {
        self.entity = entity
        self.constraints = constraints
        self.rule = rule
    }

    /// The keys of a record's values.
    func keys(_ attributes: [AttributeValue], of entity: EntityDescription) -> [BatchInsertKey] {
        constraints.indices.compactMap { index in
            constraints[index].values(attributes, of: entity).map { BatchInsertKey(constraint: index, values: $0) }
        }
    }

    /// Reads the stored records that have any row's constraint values: per constraint, up to 200 value tuples a
    /// fetch of the constraint's entity and its sub-entities.
    mutating func findStoredRecords(of rows: [[AttributeValue]], in backend: some PersistentStoreBackend) throws {
        for (index, constraint) in constraints.enumerated() {
            var tuples: [[AttributeValue]] = []
            var seen = Set<[AttributeValue]>()
            for row in rows {
                if let values = constraint.values(row, of: entity), seen.insert(values).inserted { tuples.append(values) }
            }
            for start in stride(from: 0, to: tuples.count, by: 200) {
                let chunk = tuples[start..<min(start + 200, tuples.count)]
                let predicate = QueryPredicate.disjunction(chunk.map { values in
                    .conjunction(zip(constraint.names, values).map { name, value in
                        .comparison(QueryComparison(.keyPath(name), .equalTo, .constant(value)))
                    })
                })
                let fetch = StoreFetch(
                    entity: constraint.owner, predicate: predicate, sortKeys: [], limit: 0, offset: 0, includesSubentities: true,
                    kind: .rows)
                for row in try backend.fetchRows(fetch) {
                    guard let values = constraint.values(row.attributes, of: row.objectID.entity) else { continue }
                    let key = BatchInsertKey(constraint: index, values: values)
                    // Several records with one tuple (a store that never had the index): the oldest wins.
                    if let existing = stored[key], (existing.objectID.primaryKey ?? .max) <= (row.objectID.primaryKey ?? .max) { continue }
                    stored[key] = row
                    storedByID[row.objectID] = row
                }
            }
        }
    }

    /// The record a tuple of values ends in so far.
    func target(of key: BatchInsertKey) -> BatchInsertTarget? {
        targets[key] ?? stored[key].map { .stored($0.objectID) }
    }

    /// Adds one row: a new record, or merged into the record it meets as the rule says.
    mutating func add(_ row: [AttributeValue]) throws {
        let rowKeys = keys(row, of: entity)
        let met = rowKeys.compactMap { key in target(of: key).map { (key, $0) } }
        guard let (firstKey, target) = met.first else {
            let index = newRows.count
            newRows.append(row)
            for key in rowKeys { targets[key] = .new(index) }
            reached.append(.new(index))
            return
        }
        if rule == .fail || met.contains(where: { $0.1 != target }) {
            conflicts.append(conflict(row, key: firstKey, target: target))
            return
        }
        switch target {
        case .stored(let id):
            guard rule.replacesStoredValues, let record = storedByID[id] else { return }
            if updated[id] == nil { updatedOrder.append(id) }
            var update = updated[id] ?? Update(stored: record, values: record.attributes)
            // Every value of the row, by name: the record may be of a sub-entity or a superentity of the row's.
            let recordEntity = id.entity
            for attribute in entity.allAttributes where !attribute.isTransient {
                guard let own = recordEntity.property(named: attribute.name) as? AttributeDescription, own.slot < update.values.count
                else { continue }
                update.values[own.slot] = row[attribute.slot]
            }
            updated[id] = update
            try claim(keys(update.values, of: recordEntity), for: target, row: row)
        case .new(let index):
            guard rule.mergesRows else { return }
            for attribute in entity.allAttributes where !attribute.isTransient && !row[attribute.slot].isNull {
                newRows[index][attribute.slot] = row[attribute.slot]
            }
            try claim(keys(newRows[index], of: entity), for: target, row: row)
        }
        reached.append(target)
    }

    /// Records the tuples a record holds after a merge; a tuple another record holds is a conflict.
    private mutating func claim(_ keys: [BatchInsertKey], for target: BatchInsertTarget, row: [AttributeValue]) throws {
        for key in keys {
            if let other = self.target(of: key), other != target {
                conflicts.append(conflict(row, key: key, target: other))
                continue
            }
            targets[key] = target
        }
    }

    /// A conflict of a row with the record holding one of its tuples.
    func conflict(_ row: [AttributeValue], key: BatchInsertKey, target: BatchInsertTarget) -> ConstraintConflict {
        let constraint = constraints[key.constraint]
        let database: RowSnapshot?
        switch target {
        case .stored(let id): database = storedByID[id]
        case .new: database = nil
        }
        let snapshot = MergeConflict.snapshot(of: entity, attributes: row, relationships: [])
        var conflicting: [[String: AttributeValue]] = [snapshot]
        if case .new(let index) = target {
            conflicting.insert(MergeConflict.snapshot(of: entity, attributes: newRows[index], relationships: []), at: 0)
        }
        return ConstraintConflict(
            entityName: constraint.owner.name, constraint: constraint.names,
            constraintValues: Dictionary(zip(constraint.names, key.values), uniquingKeysWith: { first, _ in first }),
            databaseObjectID: database?.objectID, conflictingObjectIDs: [], conflictingValues: conflicting,
            databaseValues: database.map {
                MergeConflict.snapshot(of: $0.objectID.entity, attributes: $0.attributes, relationships: $0.relationships)
            })
    }

    /// Throws the conflicts the rule left, if any.
    func throwConflicts() throws {
        guard let first = conflicts.first else { return }
        var error = QuireError(
            .managedObjectConstraintMerge,
            "The batch insert into '\(entity.name)' would break \(conflicts.count) uniqueness constraint"
                + "\(conflicts.count == 1 ? "" : "s") (\(conflicts.prefix(5).map(\.description).joined(separator: "; "))"
                + "\(conflicts.count > 5 ? "; …" : "")); set the context's merge policy to update the stored records instead.",
            context: .init(entity: first.entityName, key: first.constraint.joined(separator: ","), objectID: first.databaseObjectID))
        error.constraintConflicts = conflicts
        throw error
    }
}
