import QuireCore
import Foundation

extension SQLiteSchema {
    /// The column of `table` that holds the property `name` of `entity` (an attribute's column, or a to-one
    /// relationship's key column), or nil when the property has none.
    func column(named name: String, of entity: EntityDescription, in table: Table) -> Column? {
        table.columns.first { column in
            switch column.role {
            case .attribute(let attribute): return attribute.name == name && entity.isKind(of: attribute.entity ?? entity)
            case .foreignKey(let relationship): return relationship.name == name && entity.isKind(of: relationship.entity ?? entity)
            case .foreignEntity, .orderKey: return false
            }
        }
    }

    /// Whether the indexed flag of `attribute` is already served by one of its entity's fetch indexes (Xcode writes
    /// the "Indexed" checkbox as a single ascending fetch index), so no `<TABLE>_<COLUMN>_INDEX` is needed beside it.
    func isCoveredByFetchIndex(_ attribute: AttributeDescription) -> Bool {
        guard let entity = attribute.entity else { return false }
        return entity.fetchIndexes.contains { $0.isSingleAscendingIndex && $0.elements[0].propertyName == attribute.name }
    }

    /// Whether stores create a fetch index: B-tree elements over properties with columns, without a partial-index
    /// predicate (R-tree and partial indexes are kept in the model but not created; see
    /// ``ManagedObjectModel/unsupportedFeatures``).
    static func createsFetchIndex(_ index: FetchIndexDescription) -> Bool {
        index.partialIndexPredicate == nil && !index.elements.isEmpty
            && index.elements.allSatisfy { $0.collationType == .binary }
    }

    /// The DDL of the entities' fetch indexes and uniqueness constraints, named and shaped as Core Data writes them:
    ///
    /// ```sql
    /// CREATE INDEX Z_Car_byMakerAndNumberPlate ON ZCAR (ZMAKER COLLATE BINARY ASC, ZNUMBERPLATE COLLATE BINARY ASC)
    /// CREATE UNIQUE INDEX Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME COLLATE BINARY ASC)
    /// ```
    ///
    /// Both sit on the table of the entity's hierarchy and keep the model's spelling (`Z_Author_UNIQUE_alias` is on
    /// `ZWRITER`); one statement per fetch index, in the model's order, then one per uniqueness constraint.
    func entityIndexStatements() -> [String] {
        var sql: [String] = []
        for entity in numbers.entitiesInOrder {
            guard let table = table(for: entity) else { continue }
            for index in entity.fetchIndexes where Self.createsFetchIndex(index) {
                let columns = index.elements.compactMap { element in
                    column(named: element.propertyName, of: entity, in: table).map { ($0, element.isAscending) }
                }
                guard columns.count == index.elements.count else { continue }
                sql.append(
                    "CREATE INDEX \(Self.ddlName("Z_\(entity.name)_\(index.name)")) ON \(Self.ddlName(table.name)) ("
                        + columns.map { "\(Self.ddlName($0.0.name)) COLLATE BINARY \($0.1 ? "ASC" : "DESC")" }
                        .joined(separator: ", ") + ")")
            }
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                let columns = constraint.compactMap { column(named: $0, of: entity, in: table) }
                guard columns.count == constraint.count else { continue }
                sql.append(
                    "CREATE UNIQUE INDEX \(Self.ddlName("Z_\(entity.name)_UNIQUE_" + constraint.joined(separator: "_"))) ON "
                        + "\(Self.ddlName(table.name)) ("
                        + columns.map { "\(Self.ddlName($0.name)) COLLATE BINARY ASC" }.joined(separator: ", ") + ")")
            }
        }
        return sql
    }
}
