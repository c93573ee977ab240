import QuireCore

extension SQLStore {
    /// The members of a to-many relationship of many objects, in the relationship's order (ordered relationships)
    /// or key order: one query per ``relatedKeysPerStatement`` owners, the owners' keys bound as the dialect's key
    /// list. Every owner asked for has an entry; owners of other stores, or not yet saved, have no members here.
    ///
    /// - Throws: ``CoreDataSchema``'s error naming the store and the row for a member row whose entity number is
    ///   not one of the destination's entities; the engine's errors.
    package func relatedObjectIDs(of objectIDs: [ObjectID], relationship: RelationshipDescription) throws -> [ObjectID: [ObjectID]] {
        var owners: [Int64: ObjectID] = [:]
        var result: [ObjectID: [ObjectID]] = [:]
        for id in objectIDs {
            result[id] = []
            if id.isStored(in: store), let key = id.primaryKey { owners[key] = id }
        }
        guard !owners.isEmpty, let destination = relationship.resolvedDestination,
            let sql = relatedRowsSQL(relationship, destination: destination)
        else { return result }
        let keys = owners.keys.sorted()
        let perStatement = max(1, relatedKeysPerStatement)
        var start = 0
        while start < keys.count {
            let end = keys.count - start > perStatement ? start + perStatement : keys.count
            try visitKeyTriples(querying: sql, keyList: dialect.keyList.text(Array(keys[start..<end]))) { owner, member, entityNumber in
                guard let ownerID = owners[owner] else { return }
                let entity = try schema.entity(
                    number: entityNumber, row: member, kindOf: destination, store: errorDescription, file: errorFile)
                result[ownerID, default: []].append(ObjectID(entity: entity, store: store, primaryKey: member))
            }
            start = end
        }
        return result
    }

    /// The query of ``relatedObjectIDs(of:relationship:)``: per member row its owner's key, its own key and its
    /// entity number, ordered by owner, then the relationship's order column (if any), then key; nil for a
    /// relationship the schema keeps in neither a foreign key nor a join table.
    private func relatedRowsSQL(_ relationship: RelationshipDescription, destination: EntityDescription) -> String? {
        let dialect = self.dialect
        let q = { (identifier: String) in dialect.quote(identifier) }
        let list = dialect.positional(1)
        if let key = schema.memberKey(for: relationship) {
            let owner = "t0.\(q(key.column))"
            var order = owner
            if let column = key.orderColumn { order += ", t0.\(q(column))" }
            return "SELECT \(owner), t0.\(q("Z_PK")), t0.\(q("Z_ENT")) FROM \(q(key.table.name)) t0 "
                + "WHERE \(dialect.keyList.condition(owner, list)) ORDER BY \(order), t0.\(q("Z_PK"))"
        }
        guard let join = schema.joinTable(for: relationship), let destinationTable = schema.table(for: destination) else { return nil }
        let forward = join.relationship === relationship
        let owner = "j.\(q(forward ? join.sourceColumn : join.destinationColumn))"
        let member = "j.\(q(forward ? join.destinationColumn : join.sourceColumn))"
        var order = owner
        if let column = forward ? join.orderColumn : join.inverseOrderColumn { order += ", j.\(q(column))" }
        return "SELECT \(owner), d.\(q("Z_PK")), d.\(q("Z_ENT")) FROM \(join.readSource(q)) j JOIN \(q(destinationTable.name)) d "
            + "ON d.\(q("Z_PK")) = \(member) WHERE \(dialect.keyList.condition(owner, list)) ORDER BY \(order), d.\(q("Z_PK"))"
    }
}
