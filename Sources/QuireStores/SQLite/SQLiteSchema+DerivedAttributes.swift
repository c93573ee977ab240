import QuireCore
import Foundation

extension SQLiteSchema {
    /// Core Data's triggers for the derived attributes that count a to-many relationship with a to-one inverse
    /// (`pages.@count`), the one shape a Core Data store shows (CoreDataPlus `SampleModel2`), written byte for byte as
    /// Core Data writes them: `Z_DA_<table>_<Entity>_<attribute>_PARAMETER_INSERT`, `…_PARAMETER_UPDATE_INCREMENT`,
    /// `…_PARAMETER_UPDATE_DECREMENT`, `…_PARAMETER_DELETE` on the members' table and `…_SOURCE_INSERT` on the owner's.
    /// They keep the count right in the file whoever writes the members; saves then leave the column to them. Other
    /// derivations are computed by the context at save and written like any attribute.
    func derivedAttributeTriggerStatements() -> [String] {
        var sql: [String] = []
        for entity in numbers.entitiesInOrder {
            guard let table = table(for: entity) else { continue }
            for case let attribute as AttributeDescription in entity.properties {
                guard let text = attribute.derivationExpression,
                    case .aggregate(.count, let name, nil) = DerivationExpression(text),
                    let relationship = entity.relationshipsByName[name], relationship.isToMany,
                    let inverse = relationship.resolvedInverse, !inverse.isToMany,
                    let destination = relationship.resolvedDestination, let members = self.table(for: destination),
                    let countColumn = column(named: attribute.name, of: entity, in: table)?.name,
                    let keyColumn = column(named: inverse.name, of: destination, in: members)?.name
                else { continue }
                let owner = table.name
                let prefix = "Z_DA_\(members.name)_\(entity.name)_\(attribute.name)_"
                func notify(_ key: String, function: String = "NSCoreDataDATriggerUpdatedAffectedObjectValue") -> String {
                    "SELECT \(function)('\(owner)', Z_ENT, Z_PK, '\(attribute.name)', \(countColumn)) FROM \(owner) WHERE Z_PK = \(key);"
                }
                sql.append(
                    "CREATE TRIGGER \(prefix)PARAMETER_INSERT AFTER INSERT ON \(members.name) FOR EACH ROW WHEN (NEW.\(keyColumn) NOT NULL) "
                        + "BEGIN UPDATE \(owner) SET \(countColumn) = IFNULL(\(countColumn), 0) + 1 WHERE Z_PK = NEW.\(keyColumn); "
                        + "\(notify("NEW.\(keyColumn)")) END")
                sql.append(
                    "CREATE TRIGGER \(prefix)PARAMETER_UPDATE_INCREMENT AFTER UPDATE OF \(keyColumn) ON \(members.name) FOR EACH ROW "
                        + "WHEN (NEW.\(keyColumn) NOT NULL) BEGIN UPDATE \(owner) SET \(countColumn) = \(countColumn) + 1 "
                        + "WHERE Z_PK = NEW.\(keyColumn); \(notify("NEW.\(keyColumn)")) END")
                sql.append(
                    "CREATE TRIGGER \(prefix)PARAMETER_UPDATE_DECREMENT AFTER UPDATE OF \(keyColumn) ON \(members.name) FOR EACH ROW "
                        + "WHEN (OLD.\(keyColumn) NOT NULL) BEGIN UPDATE \(owner) SET \(countColumn) = \(countColumn) - 1 "
                        + "WHERE Z_PK = OLD.\(keyColumn); \(notify("OLD.\(keyColumn)")) END")
                sql.append(
                    "CREATE TRIGGER \(prefix)PARAMETER_DELETE AFTER DELETE ON \(members.name) FOR EACH ROW WHEN (OLD.\(keyColumn) NOT NULL) "
                        + "BEGIN UPDATE \(owner) SET \(countColumn) = \(countColumn) - 1 WHERE Z_PK = OLD.\(keyColumn); "
                        + "\(notify("OLD.\(keyColumn)")) END")
                sql.append(
                    "CREATE TRIGGER Z_DA_\(owner)_\(entity.name)_\(attribute.name)_SOURCE_INSERT AFTER INSERT ON \(owner) FOR EACH ROW "
                        + "BEGIN UPDATE \(owner) SET \(countColumn) = (SELECT IFNULL(COUNT(\(keyColumn)), 0) FROM \(members.name) "
                        + "WHERE \(keyColumn) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; "
                        + "\(notify("NEW.Z_PK", function: "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue")) END")
            }
        }
        return sql
    }
}
