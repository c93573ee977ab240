import QuireCore

extension CoreDataSchema {
    /// Whether deleting rows of an entity by one statement would skip something a delete must do: a delete rule
    /// that reaches other rows (cascade, deny, nullify of an inverse to-one), join-table rows, or the hidden keys of
    /// members of its to-many relationships without an inverse. The SQLite and
    /// PostgreSQL stores then run a batch delete as a pass over the records instead of one `DELETE`.
    package func batchDeleteNeedsRecordPass(_ entity: EntityDescription) -> Bool {
        let inJoinTable = allJoinTables.contains { join in
            [join.relationship.entity, join.relationship.resolvedDestination].contains { owner in owner.map(entity.isKind(of:)) ?? false }
        }
        // An owner of a to-many relationship without an inverse: its members' hidden key must be cleared.
        let ownsHiddenKeys = hiddenMemberKeys.contains { $0.relationship.entity.map(entity.isKind(of:)) ?? false }
        return inJoinTable || ownsHiddenKeys || entity.allRelationships.contains { relationship in
            guard !relationship.isTransient else { return false }
            switch relationship.deleteRule {
            case .cascade, .deny: return true
            case .nullify: return relationship.resolvedInverse.map { !$0.isToMany && !$0.isTransient } ?? false
            case .noAction: return false
            }
        }
    }

    /// The declared (SQLite) type of a persistent attribute's column, in the table of its entity.
    package func declaredType(of attribute: AttributeDescription) -> String? {
        guard let entity = attribute.entity, let mapping = mapping(for: entity) else { return nil }
        let index = mapping.attributeColumns[attribute.slot]
        return index >= 0 ? mapping.table.columns[index].type : nil
    }
}
