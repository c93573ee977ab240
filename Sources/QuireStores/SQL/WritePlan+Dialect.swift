import QuireCore
import Foundation

extension WritePlan {
    /// The INSERT and UPDATE of an entity's rows in a dialect, and the slots they bind: `Z_PK, Z_ENT, Z_OPT`, the
    /// stored attributes (but `excluded`, which the database maintains itself), then each to-one relationship's
    /// key and, when its destination has sub-entities, entity number; the UPDATE checks `Z_OPT` last. Nil for an
    /// entity without a table.
    package static func make(
        for entity: EntityDescription, schema: CoreDataSchema, dialect: SQLDialect, excluding excluded: Set<ObjectIdentifier> = []
    ) -> WritePlan? {
        guard let mapping = schema.mapping(for: entity) else { return nil }
        let table = mapping.table
        var names: [String] = []
        var attributeSlots: [(Int, Bool)] = []
        var relationshipSlots: [(Int, Bool)] = []
        var relationshipColumns: [[String]] = []
        for attribute in entity.allAttributes
        where mapping.attributeColumns[attribute.slot] >= 0 && !excluded.contains(ObjectIdentifier(attribute)) {
            names.append(table.columns[mapping.attributeColumns[attribute.slot]].name)
            attributeSlots.append((attribute.slot, attribute.allowsExternalBinaryDataStorage))
        }
        for relationship in entity.allRelationships where mapping.foreignKeyColumns[relationship.slot] >= 0 {
            var columns = [table.columns[mapping.foreignKeyColumns[relationship.slot]].name]
            let entityColumn = mapping.foreignEntityColumns[relationship.slot]
            if entityColumn >= 0 { columns.append(table.columns[entityColumn].name) }
            names += columns
            relationshipColumns.append(columns.map(dialect.quote))
            relationshipSlots.append((relationship.slot, entityColumn >= 0))
        }
        let quoted = names.map(dialect.quote)
        let tableName = dialect.quote(table.name)
        let (pk, ent, opt) = (dialect.plain("Z_PK"), dialect.plain("Z_ENT"), dialect.plain("Z_OPT"))
        let columns = ([pk, ent, opt] + quoted).joined(separator: ", ")
        let marks = (1...(names.count + 3)).map(dialect.positional).joined(separator: ", ")
        // An update binds the values first, then the key and the version it expects.
        let assignments = (["\(opt) = \(opt) + 1"] + quoted.enumerated().map { "\($1) = \(dialect.positional($0 + 1))" })
            .joined(separator: ", ")
        return WritePlan(
            insertSQL: "INSERT INTO \(tableName) (\(columns)) VALUES (\(marks))",
            updateSQL: "UPDATE \(tableName) SET \(assignments) WHERE \(pk) = \(dialect.positional(names.count + 1)) "
                + "AND \(opt) = \(dialect.positional(names.count + 2))",
            attributeSlots: attributeSlots, relationshipSlots: relationshipSlots,
            updateParts: UpdateParts(
                table: tableName, pk: pk, opt: opt, attributeColumns: Array(quoted.prefix(attributeSlots.count)),
                relationshipColumns: relationshipColumns, dialect: dialect))
    }
}
