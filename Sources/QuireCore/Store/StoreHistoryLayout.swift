import QuireSupport
import Foundation

/// How persistent history names an entity's properties, shared by every store that records history: the bit
/// of each property in `ACHANGE.ZCOLUMNS` and the column of each preserved attribute in `ACHANGE.ZTOMBSTONE<n>`.
///
/// Core Data's layout as observed on macOS by a public project that reads these columns raw and checks every
/// read against `NSPersistentHistoryChangeRequest` (CoreDataDabbi, `RawHistoryReader`): no store of the corpus
/// records an update or a tombstone, so no file here confirms it (see <doc:SQLiteStoreFormat>).
package enum StoreHistoryLayout {
    /// The properties an update bitmap counts, in bit order: the entity's persistent attributes and
    /// relationships, inherited ones included, in one list sorted by name.
    static func updateOrder(_ entity: EntityDescription) -> [PropertyDescription] {
        let properties: [PropertyDescription] = entity.allAttributes.filter { !$0.isTransient }
            + entity.allRelationships.filter { !$0.isTransient }
        return properties.sorted { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) }
    }

    /// The attributes whose values a deletion keeps (`preservesValueInHistoryOnDeletion`), in tombstone column
    /// order: sorted by name. Attributes stored outside the row (external binary data) are left out, as Core Data
    /// is reported to leave them out.
    package static func tombstoneAttributes(_ entity: EntityDescription) -> [AttributeDescription] {
        entity.allAttributes
            .filter { $0.preservesValueInHistoryOnDeletion && !$0.isTransient && !$0.allowsExternalBinaryDataStorage }
            .sorted { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) }
    }

    /// The number of tombstone columns a model needs: the most preserved attributes of any one entity.
    package static func tombstoneColumnCount(_ entities: [EntityDescription]) -> Int {
        entities.map { tombstoneAttributes($0).count }.max() ?? 0
    }

    /// `ZCOLUMNS` for properties of an entity: bit `n` is the `n`-th property of ``updateOrder(_:)``, counted
    /// from the most significant bit of the first byte (`0x80` is property 0); one byte per eight properties.
    package static func columns(_ names: some Sequence<String>, of entity: EntityDescription) -> Data {
        let order = updateOrder(entity)
        var index: [String: Int] = [:]
        for (position, property) in order.enumerated() { index[property.name] = position }
        var bytes = [UInt8](repeating: 0, count: max(1, (order.count + 7) / 8))
        for name in names {
            guard let bit = index[name] else { continue }
            bytes[bit / 8] |= UInt8(0x80) >> UInt8(bit % 8)
        }
        return Data(bytes)
    }

    /// The names of the properties a `ZCOLUMNS` bitmap sets (see ``columns(_:of:)``); bits past the entity's
    /// properties (a store written with another model) name nothing.
    package static func propertyNames(_ columns: Data, of entity: EntityDescription) -> [String] {
        let order = updateOrder(entity)
        var names: [String] = []
        for (byteIndex, byte) in columns.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (UInt8(0x80) >> UInt8(bit)) != 0 {
                let position = byteIndex * 8 + bit
                if position < order.count { names.append(order[position].name) }
            }
        }
        return names
    }

    /// The names of the persistent properties an update changed: attributes whose value differs from the one
    /// last read, loaded relationships whose members differ from those last saved, and relationships with
    /// members recorded while they were faults (``SaveRequest/Change/memberChanges``). Empty when the save
    /// carries no earlier values.
    package static func changedPropertyNames(_ change: SaveRequest.Change) -> [String] {
        let entity = change.objectID.entity
        var names: [String] = []
        if let committed = change.committedAttributes {
            for attribute in entity.allAttributes where !attribute.isTransient && attribute.slot < committed.count
                && attribute.slot < change.attributes.count && committed[attribute.slot] != change.attributes[attribute.slot]
            {
                names.append(attribute.name)
            }
        }
        if let committed = change.committedRelationships {
            for relationship in entity.allRelationships where !relationship.isTransient && relationship.slot < committed.count
                && relationship.slot < change.relationships.count
            {
                let now = change.relationships[relationship.slot]
                let then = committed[relationship.slot]
                if !now.isFault, !then.isFault, Set(now.objectIDs) != Set(then.objectIDs) {
                    names.append(relationship.name)
                } else if now.isFault, change.memberChanges[relationship.slot].map({ !$0.isEmpty }) == true {
                    // Members added or removed while the relationship was a fault.
                    names.append(relationship.name)
                }
            }
        }
        return names
    }

    /// The tombstone of a deleted record: its preserved attributes' values by name, from its attribute values by
    /// slot; attributes without a value are left out. Nil when the entity preserves nothing.
    package static func tombstone(of entity: EntityDescription, attributes: [AttributeValue]) -> [String: AttributeValue]? {
        let preserved = tombstoneAttributes(entity)
        guard !preserved.isEmpty else { return nil }
        var values: [String: AttributeValue] = [:]
        for attribute in preserved where attribute.slot < attributes.count && !attributes[attribute.slot].isNull {
            values[attribute.name] = attributes[attribute.slot]
        }
        return values
    }
}
