import QuireCore

/// The XML, binary, in-memory and custom atomic stores hold every record in memory: a save applies the members
/// recorded while a to-many relationship was a fault to the record's members (`atomicSave`), so the context
/// never loads the set to change it.
extension AtomicStore: MemberChangeApplyingBackend {
    /// A record as fetches and faults hand it to contexts: its to-many relationships as faults, loaded by
    /// ``relatedObjectIDs(of:relationship:)`` when read, as Core Data presents them whatever the store (and as
    /// the SQLite store does), so adding one member to a large set neither copies nor keeps the whole set.
    /// Batch reads (`snapshots(for:)`, what Save As, migration and batch requests copy) keep the members.
    static func withToManyFaults(_ row: RowSnapshot) -> RowSnapshot {
        guard row.objectID.entity.hasToManyRelationships else { return row }
        var row = row
        for relationship in row.objectID.entity.allRelationships where relationship.isToMany && relationship.slot < row.relationships.count {
            row.relationships[relationship.slot] = .fault
        }
        return row
    }
}
