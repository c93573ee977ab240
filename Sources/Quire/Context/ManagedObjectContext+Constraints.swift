import QuireCore
import QuireStores
import Foundation

/// One value of a uniqueness constraint: an attribute's value, or the object a to-one relationship points at.
private enum ConstraintValue: Hashable {
    case attribute(AttributeValue)
    case object(ObjectID)
}

/// The values of one constraint on one object: one value kept inline (the usual constraint names one
/// attribute, and a save checks every changed object, so no array is made for it), or several.
private enum ConstraintValues: Hashable {
    case one(ConstraintValue)
    case several([ConstraintValue])

    init(_ values: [ConstraintValue]) {
        self = values.count == 1 ? .one(values[0]) : .several(values)
    }

    /// The values in the constraint's order.
    var list: [ConstraintValue] {
        switch self {
        case .one(let value): return [value]
        case .several(let values): return values
        }
    }

    /// Whether every value is an attribute's (the constraint's groups can be looked up together).
    var attributesOnly: Bool {
        switch self {
        case .one(.attribute): return true
        case .one(.object): return false
        case .several(let values): return values.allSatisfy { if case .attribute = $0 { return true } else { return false } }
        }
    }
}

/// Identifies the objects of a save that share one constraint's values: the constraint (a number for its declaring
/// entity and its position among that entity's constraints, see ``ConstraintCheck``) and the values.
private struct GroupKey: Hashable {
    let constraint: Int
    let values: ConstraintValues
}

/// How a property a constraint names is read on objects of one entity.
private enum ConstraintProperty {
    case attribute(slot: Int)
    case toOne(slot: Int)
    /// Neither an attribute nor a to-one relationship: the object has no values for the constraint.
    case none
}

/// One uniqueness constraint as a save checks it on the objects of one entity (its own or a superentity's).
private struct EntityConstraint {
    /// The number of the constraint (its declaring entity and position), shared by every entity that inherits it.
    let number: Int
    let owner: EntityDescription
    let names: [String]
    /// The named properties, resolved on the objects' entity.
    let properties: [ConstraintProperty]
}

/// The objects of a save that share one constraint's values.
private struct ConstraintGroup {
    let owner: EntityDescription
    let number: Int
    let constraint: [String]
    let values: ConstraintValues
    let properties: [ConstraintProperty]
    /// The first object with the values, and the others (no array is made for a group of one).
    let first: ManagedObject
    var others: [ManagedObject] = []

    var memberCount: Int { 1 + others.count }
    var members: [ManagedObject] { [first] + others }
}

/// A conflict found before a save, with the objects it involves (what ``ConstraintConflict`` names by ID).
private struct FoundConstraintConflict {
    let group: ConstraintGroup
    /// The object of the store's record with the values, when one exists that the save does not change away.
    let databaseObject: ManagedObject?
    /// The save's objects that hold the values, the database object left out.
    let conflicting: [ManagedObject]
}

/// What a save's uniqueness check knows of the entities it met: per entity, the constraints its objects are
/// checked against (its own and its superentities'), resolved once per save rather than once per object.
private struct ConstraintCheck {
    /// The constraints of each entity met, by the entity's identity.
    private var byEntity: [ObjectIdentifier: [EntityConstraint]] = [:]
    /// The number given to each constraint, by declaring entity and position.
    private var numbers: [ConstraintKey: Int] = [:]
    /// The last entity asked for and its constraints (a save holds runs of objects of one entity).
    private var last: (entity: ObjectIdentifier, constraints: [EntityConstraint])?

    private struct ConstraintKey: Hashable {
        let owner: ObjectIdentifier
        let position: Int
    }

    /// The constraints `object` is checked against (those of its entity and its superentities).
    mutating func constraints(of object: ManagedObject) -> [EntityConstraint] {
        let id = object.withEntity { ObjectIdentifier($0) }
        if let last, last.entity == id { return last.constraints }
        let constraints: [EntityConstraint]
        if let known = byEntity[id] {
            constraints = known
        } else {
            let entity = object.entity
            var made: [EntityConstraint] = []
            var current: EntityDescription? = entity
            while let owner = current {
                for (position, names) in owner.uniquenessConstraints.enumerated() where !names.isEmpty {
                    let key = ConstraintKey(owner: ObjectIdentifier(owner), position: position)
                    let number = numbers[key] ?? numbers.count
                    numbers[key] = number
                    let properties = names.map { name -> ConstraintProperty in
                        switch entity.property(named: name) {
                        case let attribute as AttributeDescription: return .attribute(slot: attribute.slot)
                        case let relationship as RelationshipDescription where !relationship.isToMany:
                            return .toOne(slot: relationship.slot)
                        default: return .none
                        }
                    }
                    made.append(EntityConstraint(number: number, owner: owner, names: names, properties: properties))
                }
                current = owner.superentity
            }
            byEntity[id] = made
            constraints = made
        }
        last = (id, constraints)
        return constraints
    }
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
        var check = ConstraintCheck()
        var groups: [ConstraintGroup] = []
        var indexByKey: [GroupKey: Int] = [:]
        groups.reserveCapacity(changed.count)
        indexByKey.reserveCapacity(changed.count)
        for object in changed where !object.deletedFlag && (object.insertedFlag || object.updatedFlag) {
            for constraint in check.constraints(of: object) {
                guard let values = constraintValues(of: object, constraint.properties) else { continue }
                let key = GroupKey(constraint: constraint.number, values: values)
                if let index = indexByKey[key] {
                    groups[index].others.append(object)
                } else {
                    indexByKey[key] = groups.count
                    groups.append(ConstraintGroup(
                        owner: constraint.owner, number: constraint.number, constraint: constraint.names, values: values,
                        properties: constraint.properties, first: object))
                }
            }
        }
        let stored = try storedObjectIDs(
            for: groups, checking: groups.indices.filter { needsStoreCheck(groups[$0]) }, indexByKey: indexByKey)
        var found: [FoundConstraintConflict] = []
        for index in groups.indices {
            var databaseObject: ManagedObject?
            if let ids = stored[index] {
                let group = groups[index]
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
            guard let databaseObject else {
                // Only saved objects hold the values: a conflict when several do.
                if groups[index].memberCount > 1 {
                    found.append(FoundConstraintConflict(group: groups[index], databaseObject: nil, conflicting: groups[index].members))
                }
                continue
            }
            let conflicting = groups[index].members.filter { $0 !== databaseObject }
            if !conflicting.isEmpty {
                found.append(FoundConstraintConflict(group: groups[index], databaseObject: databaseObject, conflicting: conflicting))
            }
        }
        return found
    }

    /// Whether a group can meet a stored record: unless it is one updated object whose constraint values are those
    /// it was read with (the store's index held them already).
    private func needsStoreCheck(_ group: ConstraintGroup) -> Bool {
        guard group.others.isEmpty, !group.first.insertedFlag else { return true }
        let object = group.first
        guard let committed = object.committedAttributes else {
            return object.committedRelationships != nil
        }
        for property in group.properties {
            guard case .attribute(let slot) = property else { return true }
            if committed[slot] != object.attributeStorage[slot] { return true }
        }
        return false
    }

    /// The values of a constraint on an object; nil when one is nil (or names no attribute or to-one relationship).
    private func constraintValues(of object: ManagedObject, _ properties: [ConstraintProperty]) -> ConstraintValues? {
        if properties.count == 1 { return constraintValue(of: object, properties[0]).map { .one($0) } }
        var values: [ConstraintValue] = []
        values.reserveCapacity(properties.count)
        for property in properties {
            guard let value = constraintValue(of: object, property) else { return nil }
            values.append(value)
        }
        return ConstraintValues(values)
    }

    /// The value of one property of a constraint on an object; nil when it is nil (or the property is neither an
    /// attribute nor a to-one relationship).
    private func constraintValue(of object: ManagedObject, _ property: ConstraintProperty) -> ConstraintValue? {
        switch property {
        case .attribute(let slot):
            let value = object.attributeStorage[slot]
            return value.isNull ? nil : .attribute(value)
        case .toOne(let slot):
            guard slot < object.relationshipStorage.count, case .toOne(let id?) = object.relationshipStorage[slot] else { return nil }
            return .object(id)
        case .none:
            return nil
        }
    }

    /// Per group (by index), the IDs of the stored records with its values: nil for the groups not to check. Groups
    /// of a constraint over attributes only are looked up together, up to 200 value tuples per fetch; the others
    /// one by one. A fetched record is matched to its group through `indexByKey` (every group's key), kept to the
    /// groups of the fetch that found it.
    private func storedObjectIDs(
        for groups: [ConstraintGroup], checking indices: [Int], indexByKey: [GroupKey: Int]
    ) throws -> [[ObjectID]?] {
        var result = [[ObjectID]?](repeating: nil, count: groups.count)
        guard !indices.isEmpty else { return result }
        // The groups to look up together, by constraint number.
        var batches: [[Int]] = []
        var batchByConstraint: [Int: Int] = [:]
        for index in indices {
            result[index] = []
            // The group read in place: a copy retains and releases each of its arrays.
            guard groups[index].values.attributesOnly else {
                result[index] = try storedObjectIDs(matching: groups[index])
                continue
            }
            let number = groups[index].number
            if let batch = batchByConstraint[number] {
                batches[batch].append(index)
            } else {
                batchByConstraint[number] = batches.count
                batches.append([index])
            }
        }
        // The fetch each group is looked up in, so that a record is given only to a group its fetch asked about.
        var fetchOf = [Int](repeating: -1, count: groups.count)
        var fetchNumber = 0
        for batch in batches {
            for start in stride(from: 0, to: batch.count, by: 200) {
                let chunk = batch[start..<min(start + 200, batch.count)]
                guard let first = chunk.first.map({ groups[$0] }) else { continue }
                fetchNumber += 1
                for index in chunk { fetchOf[index] = fetchNumber }
                let request = FetchRequest<ManagedObject>(entityName: first.owner.name)
                request.predicate = Self.storedRecordsPredicate(groups, chunk)
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
                    guard values.count == first.constraint.count,
                        let index = indexByKey[GroupKey(constraint: first.number, values: ConstraintValues(values))],
                        fetchOf[index] == fetchNumber
                    else { continue }
                    result[index]?.append(object.objectID)
                }
            }
        }
        return result
    }

    /// The predicate of the stored records holding any of the groups' values (groups of one constraint over
    /// attributes only): `key IN {…}` for a one-attribute constraint's strings and integers (one comparison, however
    /// many values: the form an import of many records checks its keys in), `key == value` or-ed for the others, and
    /// for constraints over several attributes the and-ed comparisons of each tuple, or-ed.
    private static func storedRecordsPredicate(_ groups: [ConstraintGroup], _ chunk: ArraySlice<Int>) -> QueryPredicate {
        var listed: [QueryExpression] = []
        var compared: [QueryPredicate] = []
        listed.reserveCapacity(chunk.count)
        for index in chunk {
            if groups[index].constraint.count == 1, case .one(.attribute(let value)) = groups[index].values {
                switch value {
                case .string, .integer:
                    listed.append(.constant(value))
                    continue
                default:
                    break
                }
            }
            compared.append(.conjunction(zip(groups[index].constraint, groups[index].values.list).map { name, value in
                guard case .attribute(let value) = value else { return .false }
                return .comparison(QueryComparison(.keyPath(name), .equalTo, .constant(value)))
            }))
        }
        if let first = chunk.first, !listed.isEmpty {
            compared.append(.comparison(QueryComparison(.keyPath(groups[first].constraint[0]), .in, .array(listed))))
        }
        return .disjunction(compared)
    }

    /// The IDs of the stored records of the constraint's entity (and its sub-entities) with the group's values.
    private func storedObjectIDs(matching group: ConstraintGroup) throws -> [ObjectID] {
        var comparisons: [QueryPredicate] = []
        for (name, value) in zip(group.constraint, group.values.list) {
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
                zip(conflict.group.constraint, conflict.group.values.list).map { name, value in
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
