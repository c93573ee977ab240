import QuireCore
import Foundation

extension CoreDataSchema {
    /// The column of `table` that holds the property `name` of `entity` (an attribute's column, or a to-one
    /// relationship's key column), or nil when the property has none.
    package func column(named name: String, of entity: EntityDescription, in table: Table) -> Column? {
        table.columns.first { column in
            switch column.role {
            case .attribute(let attribute): return attribute.name == name && entity.isKind(of: attribute.entity ?? entity)
            case .foreignKey(let relationship): return relationship.name == name && entity.isKind(of: relationship.entity ?? entity)
            case .foreignEntity, .orderKey, .ownerKey, .ownerOrderKey: return false
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

    /// The DDL of the entities' fetch indexes, indexed attributes and uniqueness constraints, named and shaped as
    /// the Core Data version `style` names writes them; since Core Data 836:
    ///
    /// ```sql
    /// CREATE INDEX Z_Car_byMakerAndNumberPlate ON ZCAR (ZMAKER COLLATE BINARY ASC, ZNUMBERPLATE COLLATE BINARY ASC)
    /// CREATE INDEX Z_Bot_identifier ON ZBOT (ZIDENTIFIER COLLATE BINARY ASC)
    /// CREATE UNIQUE INDEX Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME COLLATE BINARY ASC)
    /// ```
    ///
    /// (an attribute marked indexed becomes a fetch index named after it, as Core Data turns the flag into one),
    /// before it `ZMOOD_ZMARKEDFORREMOTEDELETION_ZMARKEDFORDELETIONDATE_ZDATE ON ZMOOD (ZMARKEDFORREMOTEDELETION,
    /// ZMARKEDFORDELETIONDATE, ZDATE)` for a compound index, indexed attributes being `<TABLE>_<COLUMN>_INDEX` and
    /// uniqueness declared in the table (``inlineUniquenessConstraints(of:style:)``). All sit on the table of the
    /// entity's hierarchy and keep the model's spelling (`Z_Author_UNIQUE_alias` is on `ZWRITER`); per entity, its
    /// fetch indexes in the model's order, then its indexed attributes, then its uniqueness constraints.
    func entityIndexStatements(style: DDLStyle = .quire) -> [String] {
        var sql: [String] = []
        for entity in numbers.entitiesInOrder {
            guard let table = table(for: entity) else { continue }
            for index in entity.fetchIndexes where Self.createsFetchIndex(index) {
                let columns = index.elements.compactMap { element in
                    column(named: element.propertyName, of: entity, in: table).map { ($0, element.isAscending) }
                }
                guard columns.count == index.elements.count else { continue }
                if style.indexesAttributesByColumn {
                    // An indexed attribute's own index is written with its column; others are compound indexes.
                    if index.isSingleAscendingIndex, entity.attributesByName[index.elements[0].propertyName]?.isIndexed == true { continue }
                    let names = columns.map(\.0.name)
                    sql.append(
                        "CREATE INDEX \(Self.ddlName(([table.name] + names).joined(separator: "_"))) ON \(Self.ddlName(table.name)) ("
                            + names.map(Self.ddlName).joined(separator: ", ") + ")")
                    continue
                }
                sql.append(
                    "CREATE INDEX \(Self.ddlName("Z_\(entity.name)_\(index.name)")) ON \(Self.ddlName(table.name)) ("
                        + columns.map { "\(Self.ddlName($0.0.name)) COLLATE BINARY \($0.1 ? "ASC" : "DESC")" }
                        .joined(separator: ", ") + ")")
            }
            if !style.indexesAttributesByColumn {
                for case let attribute as AttributeDescription in entity.properties
                where attribute.isIndexed && !attribute.isTransient && !isCoveredByFetchIndex(attribute) {
                    guard let column = column(named: attribute.name, of: entity, in: table) else { continue }
                    sql.append(
                        "CREATE INDEX \(Self.ddlName("Z_\(entity.name)_\(attribute.name)")) ON \(Self.ddlName(table.name)) "
                            + "(\(Self.ddlName(column.name)) COLLATE BINARY ASC)")
                }
            }
            guard !style.declaresUniquenessInline else { continue }
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

    /// The uniqueness constraints of a table's entities as Core Data before 836 declares them inside `CREATE TABLE`
    /// (Moody, Core Data 637: `CONSTRAINT ZNUMERICISO3166CODE_ZUNIQUENESSDUMMY UNIQUE (ZNUMERICISO3166CODE,
    /// ZUNIQUENESSDUMMY)`); none for later versions.
    func inlineUniquenessConstraints(of table: Table, style: DDLStyle) -> [String] {
        guard style.declaresUniquenessInline else { return [] }
        var clauses: [String] = []
        for entity in numbers.entitiesInOrder where entity.rootEntity === table.root {
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                let columns = constraint.compactMap { column(named: $0, of: entity, in: table)?.name }
                guard columns.count == constraint.count else { continue }
                let names = columns.map(Self.ddlName).joined(separator: ", ")
                clauses.append("CONSTRAINT \(Self.ddlName(columns.joined(separator: "_"))) UNIQUE (\(names))")
            }
        }
        return clauses
    }
}
