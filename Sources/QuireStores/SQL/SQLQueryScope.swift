import QuireCore
/// Hands out table aliases (`t1`, `t2`, …) that are unique within one SQL statement, subqueries included.
package final class SQLAliasCounter {
    private var next = 1

    /// A counter starting at the first alias.
    package init() {}

    /// A fresh alias.
    package func make() -> String {
        defer { next += 1 }
        return "t\(next)"
    }
}

/// The FROM clause of one SELECT or one subquery: the `LEFT JOIN`s its to-one key paths need, each made once
/// however many sort keys, predicate terms or fetched properties go through it.
package final class SQLQueryScope {
    package let counter: SQLAliasCounter
    /// The SQL dialect written.
    package let dialect: SQLDialect
    private(set) var joins: [String] = []
    private var joinAliases: [String: String] = [:]

    package init(counter: SQLAliasCounter, dialect: SQLDialect) {
        self.counter = counter
        self.dialect = dialect
    }

    /// The joins, each preceded by a space; empty when there are none.
    package var joinSQL: String { joins.map { " " + $0 }.joined() }

    /// The alias of the destination of a to-one relationship followed from the row `alias`, `LEFT JOIN`ed on
    /// first use; nil when the schema has no column for the relationship.
    package func join(from alias: String, through relationship: RelationshipDescription, schema: CoreDataSchema) -> String? {
        let path = alias + "." + relationship.name
        if let existing = joinAliases[path] { return existing }
        guard let destination = relationship.resolvedDestination, let destinationTable = schema.table(for: destination),
            let column = schema.foreignKeyColumn(of: relationship)
        else { return nil }
        let next = counter.make()
        joins.append(
            "LEFT JOIN \(dialect.quote(destinationTable.name)) \(next) ON \(next).Z_PK = \(alias).\(dialect.quote(column))")
        joinAliases[path] = next
        return next
    }

    /// The alias at the end of a chain of to-one relationships from `alias`.
    package func join(from alias: String, through relationships: [RelationshipDescription], schema: CoreDataSchema) -> String {
        var current = alias
        for relationship in relationships {
            if let next = join(from: current, through: relationship, schema: schema) { current = next }
        }
        return current
    }
}

extension CoreDataSchema {
    /// The column of a persistent attribute, in the table of its entity.
    package func column(of attribute: AttributeDescription) -> String? {
        guard let entity = attribute.entity, let mapping = mapping(for: entity) else { return nil }
        let index = mapping.attributeColumns[attribute.slot]
        return index >= 0 ? mapping.table.columns[index].name : nil
    }

    /// The foreign-key column of a persistent to-one relationship, in the table of its entity.
    package func foreignKeyColumn(of relationship: RelationshipDescription) -> String? {
        guard let entity = relationship.entity, let mapping = mapping(for: entity) else { return nil }
        let index = mapping.foreignKeyColumns[relationship.slot]
        return index >= 0 ? mapping.table.columns[index].name : nil
    }

    /// The column holding the destination's entity number for a to-one relationship whose destination has
    /// sub-entities.
    func foreignEntityColumn(of relationship: RelationshipDescription) -> String? {
        guard let entity = relationship.entity, let mapping = mapping(for: entity) else { return nil }
        let index = mapping.foreignEntityColumns[relationship.slot]
        return index >= 0 ? mapping.table.columns[index].name : nil
    }
}
