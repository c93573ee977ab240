import QuireCore

extension WritePlan {
    /// Which of a plan's columns an UPDATE writes: bit `i` for `attributeSlots[i]`, then bit
    /// `attributeSlots.count + j` for `relationshipSlots[j]` (its key and, where stored, entity number). The
    /// first 64 bits are kept inline, so that the key of a usual entity allocates nothing.
    package struct ChangedColumns: Hashable, Sendable {
        private var low: UInt64 = 0
        private var high: [UInt64] = []
        /// How many columns are set.
        package private(set) var count = 0

        package init() {}

        /// Marks column `index`.
        package mutating func insert(_ index: Int) {
            if index < 64 {
                let bit = UInt64(1) << UInt64(index)
                if low & bit == 0 { count += 1 }
                low |= bit
                return
            }
            let word = index / 64 - 1
            if high.count <= word { high += [UInt64](repeating: 0, count: word + 1 - high.count) }
            let bit = UInt64(1) << UInt64(index % 64)
            if high[word] & bit == 0 { count += 1 }
            high[word] |= bit
        }

        /// Whether column `index` is marked.
        package func contains(_ index: Int) -> Bool {
            if index < 64 { return low & (UInt64(1) << UInt64(index)) != 0 }
            let word = index / 64 - 1
            return word < high.count && high[word] & (UInt64(1) << UInt64(index % 64)) != 0
        }
    }

    /// The columns of `change` an UPDATE has to write, or nil when the whole row has to be written.
    ///
    /// As Core Data does (`UPDATE ZMOOD SET ZCOLOR = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?`), an update
    /// writes only the attributes whose values differ from the committed ones the change carries (the values the
    /// object was read or last saved with, at the version its `Z_OPT` check expects, so the row still holds them
    /// when the check passes) and the to-ones that differ from its committed relationships. Without committed
    /// relationships no to-one is written: a context records them before it changes a relationship of a saved
    /// object, and an object moved onto a newer row keeping to-ones the row no longer has (`MergePolicy.overwrite`)
    /// records the row's, so a change without them has its to-ones as the row holds them at its version. Without
    /// committed attributes (a change not made by a context) the whole row is written, as it is when every column
    /// changed.
    package func changedColumns(of change: UnsafePointer<SaveRequest.Change>) -> ChangedColumns? {
        guard updateParts != nil, let committed = change.pointee.committedAttributes,
              committed.count == change.pointee.attributes.count else { return nil }
        let committedRelationships = change.pointee.committedRelationships
        if let committedRelationships, committedRelationships.count != change.pointee.relationships.count { return nil }
        var columns = ChangedColumns()
        change.pointee.attributes.withUnsafeBufferPointer { attributes in
            committed.withUnsafeBufferPointer { committed in
                for (index, (slot, _)) in attributeSlots.enumerated() where attributes[slot] != committed[slot] {
                    columns.insert(index)
                }
            }
        }
        let first = attributeSlots.count
        change.pointee.relationships.withUnsafeBufferPointer { relationships in
            for (index, (slot, _)) in relationshipSlots.enumerated()
            where committedRelationships.map({ relationships[slot] != $0[slot] }) ?? false {
                columns.insert(first + index)
            }
        }
        return columns.count == attributeSlots.count + relationshipSlots.count ? nil : columns
    }

    /// The UPDATE of only `columns` (and `Z_OPT`) of a row, with the attribute and to-one slots it binds in
    /// order, then the key and the version it expects, like ``updateSQL``. Nil for a plan made without its
    /// parts.
    package func updateSQL(writing columns: ChangedColumns) -> (sql: String, attributeSlots: [(Int, Bool)], relationshipSlots: [(Int, Bool)])? {
        guard let parts = updateParts else { return nil }
        var assignments = ["\(parts.opt) = \(parts.opt) + 1"]
        var attributes: [(Int, Bool)] = []
        var relationships: [(Int, Bool)] = []
        func assign(_ column: String) {
            assignments.append("\(column) = \(parts.dialect.positional(assignments.count))")
        }
        for index in attributeSlots.indices where columns.contains(index) {
            assign(parts.attributeColumns[index])
            attributes.append(attributeSlots[index])
        }
        for index in relationshipSlots.indices where columns.contains(attributeSlots.count + index) {
            parts.relationshipColumns[index].forEach(assign)
            relationships.append(relationshipSlots[index])
        }
        let next = assignments.count
        let sql = "UPDATE \(parts.table) SET \(assignments.joined(separator: ", ")) WHERE \(parts.pk) = \(parts.dialect.positional(next)) "
            + "AND \(parts.opt) = \(parts.dialect.positional(next + 1))"
        return (sql, attributes, relationships)
    }
}
