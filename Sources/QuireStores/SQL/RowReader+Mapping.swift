import QuireCore
import Foundation

extension RowReader {
    /// How to read an entity's rows from a statement that selects `Z_PK, Z_ENT, Z_OPT` and then its table's
    /// columns in the schema's order (the SQLite and PostgreSQL stores' select lists); nil for an entity without
    /// a table.
    package static func reading(_ entity: EntityDescription, in schema: CoreDataSchema) -> RowReader? {
        guard let mapping = schema.mapping(for: entity) else { return nil }
        let attributes = entity.allAttributes.map { attribute -> RowReader.AttributeRead in
            let index = mapping.attributeColumns[attribute.slot]
            let external = attribute.allowsExternalBinaryDataStorage
            guard index >= 0 else { return .init(column: -1, kind: .none, type: attribute.attributeType, external: external) }
            return .init(
                column: Int32(index + 3), kind: RowReader.kind(of: attribute.attributeType, external: external),
                type: attribute.attributeType, external: external)
        }
        let relationships = entity.allRelationships.map { relationship -> RowReader.RelationshipRead? in
            let index = mapping.foreignKeyColumns[relationship.slot]
            guard index >= 0, let destination = relationship.resolvedDestination else { return nil }
            let entityIndex = mapping.foreignEntityColumns[relationship.slot]
            return .init(
                foreignKey: Int32(index + 3), foreignEntity: entityIndex >= 0 ? Int32(entityIndex + 3) : -1,
                destination: destination)
        }
        return RowReader(entity: entity, tableName: mapping.table.name, attributes: attributes, relationships: relationships)
    }
}
