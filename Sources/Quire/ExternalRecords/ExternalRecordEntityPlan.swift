import QuireCore
import Foundation

/// What external records an entity's objects get, worked out once per entity: whether they get one at all (the
/// entity has a persistent property marked ``PropertyDescription/isIndexedBySpotlight``, its own or inherited,
/// as Core Data asks) and which values it holds (the persistent properties marked
/// ``PropertyDescription/isStoredInExternalRecord``, by slot).
struct ExternalRecordEntityPlan {
    /// Whether objects of the entity get a record file.
    let writesRecords: Bool
    /// The attributes whose values the record holds: name, slot.
    let attributes: [(name: String, slot: Int)]
    /// The relationships whose related objects the record holds: the relationship, its slot.
    let relationships: [(relationship: RelationshipDescription, slot: Int)]

    init(_ entity: EntityDescription) {
        let attributes = entity.allAttributes
        let relationships = entity.allRelationships
        writesRecords = !entity.isAbstract
            && (attributes.contains { $0.isIndexedBySpotlight && !$0.isTransient }
                || relationships.contains { $0.isIndexedBySpotlight && !$0.isTransient })
        self.attributes = attributes.indices.compactMap { slot in
            let attribute = attributes[slot]
            return attribute.isStoredInExternalRecord && !attribute.isTransient ? (attribute.name, slot) : nil
        }
        self.relationships = relationships.indices.compactMap { slot in
            let relationship = relationships[slot]
            return relationship.isStoredInExternalRecord && !relationship.isTransient ? (relationship, slot) : nil
        }
    }

    /// Whether the record holds values (otherwise it is a zero-length file, as Core Data writes for an entity
    /// that is indexed but stores nothing in its records).
    var holdsValues: Bool { !attributes.isEmpty || !relationships.isEmpty }
}
