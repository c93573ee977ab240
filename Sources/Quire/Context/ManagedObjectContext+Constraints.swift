import QuireCore
import QuireStores
import Foundation

/// One value of a uniqueness constraint: an attribute's value, or the object a to-one relationship points at.
private enum ConstraintValue: Hashable {
    case attribute(AttributeValue)
    case object(ObjectID)
}

/// Identifies the objects of a save that share one constraint's values: the declaring entity, the constraint's
/// position among its constraints, and the values.
private struct GroupKey: Hashable {
    let owner: ObjectIdentifier
    let constraint: Int
    let values: [ConstraintValue]
}

/// The objects of a save that share one constraint's values.
private struct ConstraintGroup {
    let owner: EntityDescription
    let constraint: [String]
    let values: [ConstraintValue]
    var members: [ManagedObject]
}

/// A conflict found before a save, with the objects it involves (what ``ConstraintConflict`` names by ID).
private struct FoundConstraintConflict {
    let group: ConstraintGroup
    /// The object of the store's record with the values, when one exists that the save does not change away.
    let databaseObject: ManagedObject?
    /// The save's objects that hold the values, the database object left out.
    let conflicting: [ManagedObject]
}

extension ManagedObjectContext {
    /// Checks the entities' uniqueness constraints before a save to the stores, on every store type: among the saved
    /// objects, and between them and the records already stored. Conflicts are resolved by the ``mergePolicy`` as
    /// Core Data's `resolve(constraintConflicts:)` does, or, under ``MergePolicy/error``, thrown.
    ///
    /// Values are compared exactly (SQLite's `COLLATE BINARY`), and a tuple with a nil value never conflicts (as in
    /// SQLite's UNIQUE indexes). Objects of sub-entities share their superentities' constraints.
    ///
    /// - Returns: The changed objects, again, when a resolution changed them.
    /// - Throws: ``QuireError/Code/managedObjectConstraintMerge`` with ``QuireError/constraintConflicts`` under
    ///   ``MergePolicy/error``; a store error from the fetches that look for stored records.
    func resolveConstraintConflicts(_ changed: [ManagedObject]) throws -> [ManagedObject] {
        guard let model = persistentStoreCoordinator?.managedObjectModel,
            model.entities.contains(where: { !$0.uniquenessConstraints.isEmpty })
        else { return changed }
        var changed = changed
        for _ in 0..<Self.maximumMergeAttempts {
            let found = try findConstraintConflicts(changed)
            guard !found.isEmpty else { return changed }
            try mergePolicy.resolve(mergeConflicts: found.map(constraintConflict))
            runWillSaveOnResolvedObjects()
            changed = changedObjectsInOrder()
        }
        let found = try findConstraintConflicts(changed)
        guard found.isEmpty else { throw constraintError(found.map(constraintConflict)) }
        return changed
    }

    /// Calls `willSave()` on the objects a merge policy's resolution changed (noted since the context last
    /// processed its pending changes), and on those their `willSave()` changes in turn, as the save did before
    /// the resolution: an object whose relationships the resolution moved (a to-many that gained the duplicates'
    /// members) recomputes what depends on them.
    private func runWillSaveOnResolvedObjects() {
        var seen = Set<ObjectIdentifier>()
        var rounds = 0
        while rounds < 10 {
            rounds += 1
            let noted = changeNotes.inserted + changeNotes.updated + changeNotes.deleted
            processPendingChanges()
            let fresh = noted.filter { $0.hasChanges && seen.insert(ObjectIdentifier($0)).inserted }
            guard !fresh.isEmpty else { return }
            for object in fresh { object.willSave() }
        }
        processPendingChanges()
    }

    /// The conflicts among `changed` and with the stored records.
    private func findConstraintConflicts(_ changed: [ManagedObject]) throws -> [FoundConstraintConflict] {
        var groups: [ConstraintGroup] = []
        var indexByKey: [GroupKey: Int] = [:]
        for object in changed where !object.deletedFlag && (object.insertedFlag || object.updatedFlag) {
            var entity: EntityDescription? = object.entity
            while let owner = entity {
                for (position, constraint) in owner.uniquenessConstraints.enumerated() where !constraint.isEmpty {
                    guard let values = constraintValues(of: object, constraint) else { continue }
                    let key = GroupKey(owner: ObjectIdentifier(owner), constraint: position, values: values)
                    if let index = indexByKey[key] {
                        groups[index].members.append(object)
                    } else {
                        indexByKey[key] = groups.count
                        groups.append(ConstraintGroup(owner: owner, constraint: constraint, values: values, members: [object]))
                    }
                }
                entity = owner.superentity
            }
        }
        let stored = try storedObjectIDs(for: groups, checking: groups.indices.filter { needsStoreCheck(groups[$0]) })
        var found: [FoundConstraintConflict] = []
        for (index, group) in groups.enumerated() {
            var databaseObject: ManagedObject?
            if let ids = stored[index] {
                for id in ids {
                    if let registered = registry[id], registered.managedObjectContext === self {
                        if registered.deletedFlag { continue }
                        if registered.hasChanges && !group.members.contains(where: { $0 === registered }) { continue }
                        databaseObject = registered
                    } else {
                        databaseObject = object(with: id)
                    }
                    break
                }
            }
            let conflicting = group.members.filter { $0 !== databaseObject }
            if databaseObject != nil && !conflicting.isEmpty {
                found.append(FoundConstraintConflict(group: group, databaseObject: databaseObject, conflicting: conflicting))
            } else if databaseObject == nil && conflicting.count > 1 {
                found.append(FoundConstraintConflict(group: group, databaseObject: nil, conflicting: conflicting))
            }
        }
        return found
    }

    /// Whether a group can meet a stored record: unless it is one updated object whose constraint values are those
    /// it was read with (the store's index held them already).
    private func needsStoreCheck(_ group: ConstraintGroup) -> Bool {
        guard group.members.count == 1, let object = group.members.first, !object.insertedFlag else { return true }
        guard let committed = object.committedAttributes else {
            return object.committedRelationships != nil
        }
        for name in group.constraint {
            guard let attribute = object.entity.property(named: name) as? AttributeDescription else { return true }
            if committed[attribute.slot] != object.attributeStorage[attribute.slot] { return true }
        }
        return false
    }

    /// The values of a constraint on an object; nil when one is nil (or names no attribute or to-one relationship).
    private func constraintValues(of object: ManagedObject, _ constraint: [String]) -> [ConstraintValue]? {
        var values: [ConstraintValue] = []
        for name in constraint {
            switch object.entity.property(named: name) {
            case let attribute as AttributeDescription:
                let value = object.attributeStorage[attribute.slot]
                guard !value.isNull else { return nil }
                values.append(.attribute(value))
            case let relationship as RelationshipDescription where !relationship.isToMany:
                guard relationship.slot < object.relationshipStorage.count,
                    case .toOne(let id?) = object.relationshipStorage[relationship.slot]
                else { return nil }
                values.append(.object(id))
            default:
                return nil
            }
        }
        return values
    }

    /// Per group to check (by index), the IDs of the stored records with its values. Groups of a constraint over
    /// attributes only are looked up together, up to 200 value tuples per fetch; the others one by one.
    private func storedObjectIDs(for groups: [ConstraintGroup], checking indices: [Int]) throws -> [Int: [ObjectID]] {
        var result: [Int: [ObjectID]] = [:]
        var batches: [[Int]] = []
        var batchByConstraint: [String: Int] = [:]
        for index in indices {
            let group = groups[index]
            result[index] = []
            guard group.values.allSatisfy({ if case .attribute = $0 { return true } else { return false } }) else {
                result[index] = try storedObjectIDs(matching: group)
                continue
            }
            let key = "\(ObjectIdentifier(group.owner).hashValue)\u{0}" + group.constraint.joined(separator: "\u{0}")
            if let batch = batchByConstraint[key] {
                batches[batch].append(index)
            } else {
                batchByConstraint[key] = batches.count
                batches.append([index])
            }
        }
        for batch in batches {
            for start in stride(from: 0, to: batch.count, by: 200) {
                let chunk = batch[start..<min(start + 200, batch.count)]
                guard let first = chunk.first.map({ groups[$0] }) else { continue }
                var indexByValues: [[ConstraintValue]: Int] = [:]
                for index in chunk { indexByValues[groups[index].values] = index }
                let request = FetchRequest<ManagedObject>(entityName: first.owner.name)
                request.predicate = Self.storedRecordsPredicate(chunk.map { groups[$0] })
                request.includesPendingChanges = false
                request.returnsObjectsAsFaults = false
                for object in try fetch(request) {
                    object.fireFaultIfNeeded()
                    // The record's values as stored: what the object read, before changes of its own.
                    let storedValues = object.committedAttributes ?? object.attributeStorage
                    var values: [ConstraintValue] = []
                    for name in first.constraint {
                        guard let attribute = object.entity.property(named: name) as? AttributeDescription,
                            attribute.slot < storedValues.count
                        else { break }
                        values.append(.attribute(storedValues[attribute.slot]))
                    }
                    if let index = indexByValues[values] { result[index, default: []].append(object.objectID) }
                }
            }
        }
        return result
    }

    /// The predicate of the stored records holding any of the groups' values (groups of one constraint over
    /// attributes only): `key IN {…}` for a one-attribute constraint's strings and integers (one comparison, however
    /// many values: the form an import of many records checks its keys in), `key == value` or-ed for the others, and
    /// for constraints over several attributes the and-ed comparisons of each tuple, or-ed.
    private static func storedRecordsPredicate(_ groups: [ConstraintGroup]) -> QueryPredicate {
        var listed: [QueryExpression] = []
        var compared: [QueryPredicate] = []
        for group in groups {
            if group.constraint.count == 1, case .attribute(let value) = group.values[0] {
                switch value {
                case .string, .integer:
                    listed.append(.constant(value))
                    continue
                default:
                    break
                }
            }
            compared.append(.conjunction(zip(group.constraint, group.values).map { name, value in
                guard case .attribute(let value) = value else { return .false }
                return .comparison(QueryComparison(.keyPath(name), .equalTo, .constant(value)))
            }))
        }
        if let first = groups.first, !listed.isEmpty {
            compared.append(.comparison(QueryComparison(.keyPath(first.constraint[0]), .in, .array(listed))))
        }
        return .disjunction(compared)
    }

    /// The IDs of the stored records of the constraint's entity (and its sub-entities) with the group's values.
    private func storedObjectIDs(matching group: ConstraintGroup) throws -> [ObjectID] {
        var comparisons: [QueryPredicate] = []
        for (name, value) in zip(group.constraint, group.values) {
            switch value {
            case .attribute(let value):
                comparisons.append(.comparison(QueryComparison(.keyPath(name), .equalTo, .constant(value))))
            case .object(let id):
                // A record cannot point at an object the stores have not seen yet.
                if id.isTemporaryID { return [] }
                comparisons.append(.comparison(QueryComparison(.keyPath(name), .equalTo, .objectID(id))))
            }
        }
        let request = FetchRequest<ObjectID>(entityName: group.owner.name)
        request.predicate = .conjunction(comparisons)
        request.includesPendingChanges = false
        return try fetch(request)
    }

    /// Resolves one conflict as a standard merge policy type does (what ``MergePolicy/resolve(constraintConflicts:)``
    /// does for each conflict), as Core Data's `resolve(constraintConflicts:)` does.
    ///
    /// With a stored record (the database object): under `.overwrite` the saved object wins outright, taking the
    /// record's to-many members, and the record is deleted; under `.rollback` the saved objects are discarded
    /// (inserted ones deleted, others refreshed); under the by-property policies the record survives, the saved
    /// objects' values are merged into it and they are deleted.
    ///
    /// Among saved objects only: one survives (see ``constraintSurvivor(_:)``); under `.overwrite` and `.rollback`
    /// the others are deleted as they are, under the by-property policies their values are merged into it first.
    func resolveConstraint(database: ManagedObject?, conflicting: [ManagedObject], type: MergePolicyType) {
        if let database {
            switch type {
            case .errorMergePolicyType:
                return
            case .overwriteMergePolicyType:
                guard let winner = conflicting.first else { return }
                moveToManyMembers(of: database, onto: winner)
                delete(database)
                return
            case .rollbackMergePolicyType:
                for loser in conflicting {
                    if loser.insertedFlag {
                        detachRelationships(of: loser)
                        delete(loser)
                    } else {
                        refresh(loser, mergeChanges: false)
                    }
                }
                return
            case .mergeByPropertyObjectTrumpMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType:
                for loser in conflicting {
                    merge(loser, into: database, type == .mergeByPropertyStoreTrumpMergePolicyType ? .storeTrumpOntoRecord : .objectTrumpOntoRecord)
                    detachRelationships(of: loser)
                    delete(loser)
                }
            }
            return
        }
        guard !conflicting.isEmpty else { return }
        let survivor = Self.constraintSurvivor(conflicting)
        for loser in conflicting where loser !== survivor {
            switch type {
            case .errorMergePolicyType:
                return
            case .overwriteMergePolicyType, .rollbackMergePolicyType:
                delete(loser)
            case .mergeByPropertyObjectTrumpMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType:
                merge(loser, into: survivor, .amongSaved)
                detachRelationships(of: loser)
                delete(loser)
            }
        }
    }

    /// The object that keeps a constraint's values when only saved objects clash, as Core Data picks it: the one
    /// object already in a store when there is one, the one with the smallest primary key when there are several,
    /// and the first inserted one when none is stored yet.
    private static func constraintSurvivor(_ conflicting: [ManagedObject]) -> ManagedObject {
        let stored = conflicting.filter { !$0.insertedFlag }
        guard let first = stored.first else { return conflicting[0] }
        return stored.min { ($0.objectID.primaryKey ?? .max) < ($1.objectID.primaryKey ?? .max) } ?? first
    }

    /// Moves every member of the record's to-many relationships onto the object that replaces it (a union, as Core
    /// Data's overwrite does), leaving the record's to-many relationships empty.
    private func moveToManyMembers(of record: ManagedObject, onto winner: ManagedObject) {
        for relationship in record.entity.allRelationships where relationship.isToMany && !relationship.isTransient {
            guard let own = winner.entity.property(named: relationship.name) as? RelationshipDescription, own.isToMany else { continue }
            let members = record.loadedStorage(for: relationship).objectIDs.map { object(with: $0) }
            guard !members.isEmpty else { continue }
            record.setValue(relationship.isOrdered ? [ManagedObject]() as Any : Set<ManagedObject>() as Any, forKey: relationship.name)
            let current = winner.loadedStorage(for: own).objectIDs.map { object(with: $0) }
            if own.isOrdered {
                var merged = current
                for member in members where !merged.contains(where: { $0 === member }) { merged.append(member) }
                winner.setValue(merged, forKey: own.name)
            } else {
                winner.setValue(Set(current).union(members), forKey: own.name)
            }
        }
    }

    /// How a by-property policy carries a losing object's values over to the object that stays.
    private enum PropertyMerge {
        /// Onto the stored record under object trump: every value of an inserted loser, nil ones too, and the
        /// values an updated loser changed.
        case objectTrumpOntoRecord
        /// Onto the stored record under store trump: no values, only to-many members.
        case storeTrumpOntoRecord
        /// Among saved objects only (either by-property policy): the values the loser set or changed, where the
        /// survivor did not change them itself.
        case amongSaved
    }

    /// Carries a losing object's values over to the survivor as `rule` says, and moves its to-many members to it
    /// (a union), as Core Data's by-property constraint resolution does.
    private func merge(_ loser: ManagedObject, into survivor: ManagedObject, _ rule: PropertyMerge) {
        let entity = survivor.entity
        let loserChanges = loser.changedValues()
        let survivorChanges = survivor.changedValues()
        /// Whether the loser set or changed a value (`isNil`: the value it has now is nil).
        func loserChanged(_ name: String, isNil: Bool) -> Bool {
            switch rule {
            case .storeTrumpOntoRecord: return false
            case .objectTrumpOntoRecord: return loser.insertedFlag || loserChanges[name] != nil
            case .amongSaved: return loser.insertedFlag ? !isNil : loserChanges[name] != nil
            }
        }
        func survivorKeeps(_ name: String) -> Bool { rule == .amongSaved && !survivor.insertedFlag && survivorChanges[name] != nil }
        for attribute in entity.allAttributes where !attribute.isTransient {
            guard let own = loser.entity.property(named: attribute.name) as? AttributeDescription else { continue }
            let value = loser.attributeValue(at: own.slot)
            guard loserChanged(attribute.name, isNil: value.isNull), !survivorKeeps(attribute.name) else { continue }
            if survivor.attributeValue(at: attribute.slot) != value { survivor.setAttributeValue(value, at: attribute.slot) }
        }
        for relationship in entity.allRelationships where !relationship.isTransient {
            guard let own = loser.entity.property(named: relationship.name) as? RelationshipDescription else { continue }
            if relationship.isToMany {
                let members = loser.loadedStorage(for: own).objectIDs
                guard !members.isEmpty else { continue }
                let moved = members.map { object(with: $0) }
                if relationship.isOrdered {
                    var current = Array(survivor.loadedStorage(for: relationship).objectIDs.map { object(with: $0) })
                    for object in moved where !current.contains(where: { $0 === object }) { current.append(object) }
                    survivor.setValue(current, forKey: relationship.name)
                } else {
                    let current = Set(survivor.loadedStorage(for: relationship).objectIDs.map { object(with: $0) })
                    survivor.setValue(current.union(moved), forKey: relationship.name)
                }
            } else {
                guard case .toOne(let id) = loser.loadedStorage(for: own) else { continue }
                // changedValues lists an inserted object's attributes only: its relationships are all its own doing.
                let changed = loser.insertedFlag ? (rule == .objectTrumpOntoRecord || id != nil) : loserChanged(relationship.name, isNil: id == nil)
                guard rule != .storeTrumpOntoRecord, changed, !survivorKeeps(relationship.name) else { continue }
                survivor.setValue(id.map { object(with: $0) }, forKey: relationship.name)
            }
        }
    }

    /// Empties a losing object's relationships before it is deleted, so its delete rules reach none of the objects it
    /// pointed at (they belong to the survivor now, or stay as they are).
    private func detachRelationships(of loser: ManagedObject) {
        for relationship in loser.entity.allRelationships where !relationship.isTransient {
            if relationship.isToMany {
                guard !loser.loadedStorage(for: relationship).objectIDs.isEmpty else { continue }
                loser.setValue(relationship.isOrdered ? [ManagedObject]() as Any : Set<ManagedObject>() as Any, forKey: relationship.name)
            } else if case .toOne(.some) = loser.loadedStorage(for: relationship) {
                loser.setValue(nil, forKey: relationship.name)
            }
        }
    }

    /// A conflict found before a save as a merge policy gets it, its objects filled in.
    private func constraintConflict(_ conflict: FoundConstraintConflict) -> ConstraintConflict {
        var result = ConstraintConflict(
            entityName: conflict.group.owner.name, constraint: conflict.group.constraint,
            constraintValues: Dictionary(
                zip(conflict.group.constraint, conflict.group.values).map { name, value in
                    switch value {
                    case .attribute(let value): return (name, value)
                    case .object(let id): return (name, AttributeValue.uri(id.uriRepresentation()))
                    }
                }, uniquingKeysWith: { first, _ in first }),
            databaseObjectID: conflict.databaseObject?.objectID,
            conflictingObjectIDs: conflict.conflicting.map(\.objectID),
            conflictingValues: conflict.conflicting.map {
                MergeConflict.snapshot(of: $0.entity, attributes: $0.attributeStorage, relationships: $0.relationshipStorage)
            },
            databaseValues: conflict.databaseObject.map {
                MergeConflict.snapshot(
                    of: $0.entity, attributes: $0.committedAttributes ?? $0.attributeValues(),
                    relationships: $0.committedRelationships ?? $0.relationshipStorage)
            })
        result.source = ConflictObjects([conflict.databaseObject ?? NSNull()] + conflict.conflicting)
        return result
    }

    /// The error of a save whose constraint conflicts the merge policy does not resolve.
    func constraintError(_ conflicts: [ConstraintConflict]) -> QuireError {
        let first = conflicts.first
        var error = QuireError(
            .managedObjectConstraintMerge,
            "The save would break \(conflicts.count) uniqueness constraint\(conflicts.count == 1 ? "" : "s") "
                + "(\(conflicts.prefix(5).map(\.description).joined(separator: "; "))\(conflicts.count > 5 ? "; …" : "")).",
            context: .init(
                entity: first?.entityName, key: first?.constraint.joined(separator: ","),
                object: first?.conflictingObjectIDs.first?.uriRepresentation(), objectID: first?.conflictingObjectIDs.first))
        error.constraintConflicts = conflicts
        return error
    }
}

extension ManagedObject {
    /// The attribute values, the fault fired first.
    fileprivate func attributeValues() -> [AttributeValue] {
        fireFaultIfNeeded()
        return attributeStorage
    }
}
