import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension CoreDataSchema {
    /// Core Data's triggers for the derived attributes of the stores Quire creates (`Z_DA_<table>_<Entity>_<attribute>_…`),
    /// which keep the derived columns right in the file whoever writes the source values: Quire's saves, batch updates,
    /// raw SQL, another process. Saves then leave those columns to the triggers (see `SQLiteStore.derivedAttributes`).
    ///
    /// | derivation | triggers |
    /// |---|---|
    /// | `pages.@count` (to-many with a to-one inverse) | `…_PARAMETER_INSERT`, `…_PARAMETER_UPDATE_INCREMENT`, `…_PARAMETER_UPDATE_DECREMENT`, `…_PARAMETER_DELETE` on the members' table, `…_SOURCE_INSERT` on the owner's |
    /// | `tags.@count` (many-to-many, in a join table) | `…_PARAMETER_INSERT`, `…_PARAMETER_DELETE` on the join table, `…_SOURCE_INSERT` on the owner's |
    /// | `pages.@sum.words` (integer members) | the same five, adding and subtracting the members' values |
    /// | `pages.@min.words`, `@max` | `…_INSERT`, `…_UPDATE_SET`, `…_UPDATE_UNSET`, `…_DELETE` on the members' table, `…_INSERT` on the owner's |
    /// | `title`, `canonical:(title)`, `uppercase:`, `lowercase:`, `now()` | `…_INSERT`, `…_UPDATE` on the entity's table (`now()` on `Z_OPT`) |
    /// | `author.name`, `canonical:(author.name)` (to-one) | `…_SOURCE_INSERT`, `…_SOURCE_UPDATE` on the entity's table, `…_PARAMETER_INSERT`, `…_PARAMETER_UPDATE` on the destination's |
    ///
    /// Only the `@count` text is confirmed by a Core Data store (CoreDataPlus `SampleModel2`, byte for byte); the rest
    /// follows a public decompilation of Core Data's `NSSQLDerivedAttributeSQLGenerator` (iOS 18). Derivations that
    /// generator does not support or whose SQL result could differ from the context's (``triggerDerivation(for:of:)``
    /// answers nil) are computed by the context at save and written like any attribute.
    package func derivedAttributeTriggerStatements() -> [String] {
        var sql: [String] = []
        for entity in numbers.entitiesInOrder {
            for case let attribute as AttributeDescription in entity.properties {
                guard let derivation = triggerDerivation(for: attribute, of: entity) else { continue }
                sql += derivation.triggers
            }
        }
        return sql
    }

    /// The SQL of one derived attribute's triggers, with the names they take.
    struct TriggerDerivation {
        /// The `CREATE TRIGGER IF NOT EXISTS …` statements, in the order Core Data issues them.
        var triggers: [String]
    }

    /// The triggers that maintain one derived attribute, or nil when its derivation is kept by the context only: a
    /// form Core Data's generator refuses (multi-step key paths, `@avg`, a predicate), an aggregate other than
    /// `@count` of a many-to-many (a join table), a to-many without an inverse or its own inverse, a name that is not a plain identifier, a value whose type differs from the attribute's (the context converts it, SQL would
    /// not), `@sum` of non-integers or into anything but a 64-bit integer (floating-point sums added in another order
    /// can differ in the last bit), and `@min`/`@max` of a relationship to the entity's own table (the members' and
    /// the owner's trigger names would be the same).
    ///
    /// The decompilation also limits some statements to the entity's `Z_ENT` range under a condition it does not
    /// name; the Core Data store in the corpus counts pages of `Book`, which has a sub-entity, without such a
    /// condition, so Quire writes none.
    func triggerDerivation(for attribute: AttributeDescription, of entity: EntityDescription) -> TriggerDerivation? {
        guard let text = attribute.derivationExpression, let expression = DerivationExpression(text),
            let table = table(for: entity), let column = column(named: attribute.name, of: entity, in: table)?.name,
            Self.arePlain(entity.name, attribute.name, table.name, column)
        else { return nil }
        let target = DerivedColumn(table: table.name, entity: entity.name, name: attribute.name, column: column)
        switch expression {
        case .now:
            guard attribute.attributeType == .date else { return nil }
            return TriggerDerivation(triggers: target.rowTriggers(newValue: "NSCoreDataNow()", columns: "Z_OPT"))
        case .keyPath(let path), .string(_, let path):
            var function: String?
            if case .string(let kind, _) = expression {
                guard attribute.attributeType == .string else { return nil }
                function = Self.coreDataFunctionName(kind)
            }
            let parts = path.split(separator: ".").map(String.init)
            if parts.count == 1 {
                guard let source = entity.attributesByName[parts[0]], source.derivationExpression == nil,
                    source.attributeType == attribute.attributeType,
                    let sourceColumn = self.column(named: source.name, of: entity, in: table)?.name, Self.arePlain(sourceColumn)
                else { return nil }
                let value = function.map { "\($0)(NEW.\(sourceColumn))" } ?? "NEW.\(sourceColumn)"
                return TriggerDerivation(triggers: target.rowTriggers(newValue: value, columns: sourceColumn))
            }
            guard parts.count == 2, let relationship = entity.relationshipsByName[parts[0]], !relationship.isToMany,
                let destination = relationship.resolvedDestination, let destinationTable = self.table(for: destination),
                let source = destination.attributesByName[parts[1]], source.derivationExpression == nil,
                source.attributeType == attribute.attributeType,
                let key = self.column(named: relationship.name, of: entity, in: table)?.name,
                let parameter = self.column(named: source.name, of: destination, in: destinationTable)?.name,
                Self.arePlain(destinationTable.name, key, parameter)
            else { return nil }
            return TriggerDerivation(
                triggers: target.toOneTriggers(destination: destinationTable.name, key: key, parameter: parameter, function: function))
        case .aggregate(let aggregate, let name, let keyPath):
            // A many-to-many: Core Data's triggers on the join table. Not for a to-many without an inverse: a context
            // cannot lead back from a deleted member to recompute the owner, and the object would disagree with the file.
            if aggregate == .count, keyPath == nil, attribute.attributeType.isInteger,
                let relationship = entity.relationshipsByName[name], relationship.isToMany,
                relationship.resolvedInverse.map({ $0.isToMany && $0 !== relationship }) == true,
                let join = joinTable(for: relationship)
            {
                let owner = join.relationship === relationship ? join.sourceColumn : join.destinationColumn
                guard Self.arePlain(join.name, owner) else { return nil }
                return TriggerDerivation(triggers: target.joinCountTriggers(join: join.name, owner: owner))
            }
            guard attribute.attributeType.isInteger || aggregate == .min || aggregate == .max,
                let relationship = entity.relationshipsByName[name], relationship.isToMany,
                let inverse = relationship.resolvedInverse, !inverse.isToMany,
                let destination = relationship.resolvedDestination, let members = self.table(for: destination),
                let key = self.column(named: inverse.name, of: destination, in: members)?.name, Self.arePlain(members.name, key)
            else { return nil }
            let member = keyPath.flatMap { path -> (AttributeDescription, String)? in
                guard !path.contains("."), let source = destination.attributesByName[path], source.derivationExpression == nil,
                    let column = self.column(named: source.name, of: destination, in: members)?.name, Self.arePlain(column)
                else { return nil }
                return (source, column)
            }
            switch aggregate {
            case .count:
                guard keyPath == nil else { return nil }
                return TriggerDerivation(triggers: target.aggregateTriggers(members: members.name, key: key, value: nil))
            case .sum:
                guard let (source, column) = member, source.attributeType.isInteger, attribute.attributeType == .integer64 else { return nil }
                return TriggerDerivation(triggers: target.aggregateTriggers(members: members.name, key: key, value: column))
            case .min, .max:
                guard let (source, column) = member, members.name != table.name,
                    source.attributeType == attribute.attributeType || (source.attributeType.isInteger && attribute.attributeType == .integer64),
                    source.attributeType.isInteger || [.double, .float, .date].contains(source.attributeType)
                else { return nil }
                return TriggerDerivation(
                    triggers: target.extremeTriggers(members: members.name, key: key, value: column, maximum: aggregate == .max))
            case .average:
                return nil
            }
        }
    }

    /// Whether names can be written into a trigger's text as they are (ASCII letters, digits and `_`, as Core Data's
    /// always are); a trigger is not written for others, whose value the context keeps at save.
    private static func arePlain(_ names: String...) -> Bool {
        names.allSatisfy { name in
            !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }
    }

    /// The function Core Data's triggers call for a string derivation.
    private static func coreDataFunctionName(_ function: DerivationExpression.StringFunction) -> String {
        switch function {
        case .canonical: "NSCoreDataCanonical"
        case .uppercase: "NSCoreDataToUpper"
        case .lowercase: "NSCoreDataToLower"
        }
    }
}

/// A derived attribute's column and names, and the text of Core Data's triggers for it.
private struct DerivedColumn {
    /// The entity's table.
    let table: String
    /// The entity's and the attribute's names, as the trigger names and the notification calls spell them.
    let entity: String
    let name: String
    /// The derived attribute's column.
    let column: String
    /// The statement telling Core Data's context which objects' value changed (a no-op function in Quire).
    func notify(inserted: Bool = false, where condition: String) -> String {
        let function = inserted ? "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue" : "NSCoreDataDATriggerUpdatedAffectedObjectValue"
        return " SELECT \(function)('\(table)', Z_ENT, Z_PK, '\(name)', \(column)) FROM \(table) WHERE \(condition);"
    }

    /// A value computed from the row itself (a key path, a string function of one, `now()`): set on insert when the
    /// source is not NULL, and again whenever the source columns are updated.
    func rowTriggers(newValue: String, columns: String) -> [String] {
        let prefix = "Z_DA_\(table)_\(entity)_\(name)"
        let body = " UPDATE \(table) SET \(column) = \(newValue) WHERE Z_PK = NEW.Z_PK;"
        return [
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_INSERT AFTER INSERT ON \(table) FOR EACH ROW WHEN (NEW.\(columns) NOT NULL) BEGIN"
                + body + notify(inserted: true, where: "Z_PK = NEW.Z_PK") + " END",
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_UPDATE AFTER UPDATE OF \(columns) ON \(table) FOR EACH ROW BEGIN"
                + body + notify(where: "Z_PK = NEW.Z_PK") + " END",
        ]
    }

    /// A value read through a to-one relationship (`author.name`, `canonical:(author.name)`): the row's value follows
    /// its key (`…_SOURCE_…`) and the destination's value (`…_PARAMETER_…`).
    func toOneTriggers(destination: String, key: String, parameter: String, function: String?) -> [String] {
        let value = function.map { "\($0)(\(parameter))" } ?? parameter
        let newValue = function.map { "\($0)(NEW.\(parameter))" } ?? "NEW.\(parameter)"
        let source = "Z_DA_\(table)_\(entity)_\(name)_SOURCE"
        let target = "Z_DA_\(destination)_\(entity)_\(name)_PARAMETER"
        let lookup = "(SELECT \(value) FROM \(destination) WHERE Z_PK = NEW.\(key))"
        return [
            "CREATE TRIGGER IF NOT EXISTS \(source)_INSERT AFTER INSERT ON \(table) FOR EACH ROW BEGIN"
                + " UPDATE \(table) SET \(column) = \(lookup) WHERE Z_PK = NEW.Z_PK;"
                + notify(inserted: true, where: "Z_PK = NEW.Z_PK") + " END",
            "CREATE TRIGGER IF NOT EXISTS \(source)_UPDATE AFTER UPDATE OF \(key) ON \(table) FOR EACH ROW BEGIN"
                + " UPDATE \(table) SET \(column) = \(lookup) WHERE Z_PK = NEW.Z_PK;" + notify(where: "Z_PK = NEW.Z_PK") + " END",
            "CREATE TRIGGER IF NOT EXISTS \(target)_INSERT AFTER INSERT ON \(destination) FOR EACH ROW BEGIN"
                + " UPDATE \(table) SET \(column) = \(newValue) WHERE \(key) = NEW.Z_PK;"
                + notify(inserted: true, where: "\(key) = NEW.Z_PK") + " END",
            "CREATE TRIGGER IF NOT EXISTS \(target)_UPDATE AFTER UPDATE OF \(parameter) ON \(destination) FOR EACH ROW BEGIN"
                + " UPDATE \(table) SET \(column) = \(newValue) WHERE \(key) = NEW.Z_PK;"
                + notify(where: "\(key) = NEW.Z_PK") + " END",
        ]
    }

    /// `@count` (`value` nil) or `@sum` of a to-many's members: the members' triggers add and subtract, the owner's
    /// computes the whole on insert.
    func aggregateTriggers(members: String, key: String, value: String?) -> [String] {
        let prefix = "Z_DA_\(members)_\(entity)_\(name)_PARAMETER"
        let add = value.map { "+ IFNULL(NEW.\($0), 0)" } ?? "+ 1"
        let subtract = value.map { "- IFNULL(OLD.\($0), 0)" } ?? "- 1"
        let columns = value.map { "\(key), \($0)" } ?? key
        let aggregate = value.map { "SUM(\($0))" } ?? "COUNT(\(key))"
        return [
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_INSERT AFTER INSERT ON \(members) FOR EACH ROW WHEN (NEW.\(key) NOT NULL) BEGIN"
                + " UPDATE \(table) SET \(column) = IFNULL(\(column), 0) \(add) WHERE Z_PK = NEW.\(key);"
                + notify(where: "Z_PK = NEW.\(key)") + " END",
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_UPDATE_INCREMENT AFTER UPDATE OF \(columns) ON \(members) FOR EACH ROW WHEN (NEW.\(key) NOT NULL) BEGIN"
                + " UPDATE \(table) SET \(column) = \(column) \(add) WHERE Z_PK = NEW.\(key);"
                + notify(where: "Z_PK = NEW.\(key)") + " END",
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_UPDATE_DECREMENT AFTER UPDATE OF \(columns) ON \(members) FOR EACH ROW WHEN (OLD.\(key) NOT NULL) BEGIN"
                + " UPDATE \(table) SET \(column) = \(column) \(subtract) WHERE Z_PK = OLD.\(key);"
                + notify(where: "Z_PK = OLD.\(key)") + " END",
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_DELETE AFTER DELETE ON \(members) FOR EACH ROW WHEN (OLD.\(key) NOT NULL) BEGIN"
                + " UPDATE \(table) SET \(column) = \(column) \(subtract) WHERE Z_PK = OLD.\(key);"
                + notify(where: "Z_PK = OLD.\(key)") + " END",
            "CREATE TRIGGER IF NOT EXISTS Z_DA_\(table)_\(entity)_\(name)_SOURCE_INSERT AFTER INSERT ON \(table) FOR EACH ROW BEGIN"
                + " UPDATE \(table) SET \(column) = (SELECT IFNULL(\(aggregate), 0) FROM \(members) WHERE \(key) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;"
                + notify(inserted: true, where: "Z_PK = NEW.Z_PK") + " END",
        ]
    }

    /// `@count` of a to-many kept in a join table: the join table's inserts and deletes add and subtract (Quire writes
    /// join rows with an upsert, which fires no insert trigger for a row already there), the owner's insert counts.
    /// `owner` is the join table's column holding the owner's key.
    func joinCountTriggers(join: String, owner: String) -> [String] {
        let prefix = "Z_DA_\(join)_\(entity)_\(name)_PARAMETER"
        return [
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_INSERT AFTER INSERT ON \(join) FOR EACH ROW BEGIN"
                + " UPDATE \(table) SET \(column) = IFNULL(\(column), 0) + 1 WHERE Z_PK = NEW.\(owner);"
                + notify(where: "Z_PK = NEW.\(owner)") + " END",
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_DELETE AFTER DELETE ON \(join) FOR EACH ROW BEGIN"
                + " UPDATE \(table) SET \(column) = \(column) - 1 WHERE Z_PK = OLD.\(owner);"
                + notify(where: "Z_PK = OLD.\(owner)") + " END",
            "CREATE TRIGGER IF NOT EXISTS Z_DA_\(table)_\(entity)_\(name)_SOURCE_INSERT AFTER INSERT ON \(table) FOR EACH ROW BEGIN"
                + " UPDATE \(table) SET \(column) = (SELECT IFNULL(COUNT(\(owner)), 0) FROM \(join) WHERE \(owner) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;"
                + notify(where: "Z_PK = NEW.Z_PK") + " END",
        ]
    }

    /// `@min` or `@max` of a to-many's members: a member's value replaces the owner's when it goes beyond it, and the
    /// owner's is computed again from all members when the member that held it changes, leaves or is deleted.
    func extremeTriggers(members: String, key: String, value: String, maximum: Bool) -> [String] {
        let prefix = "Z_DA_\(members)_\(entity)_\(name)"
        let (function, beyond) = maximum ? ("MAX", ">") : ("MIN", "<")
        let recompute = " UPDATE \(table) SET \(column) = (SELECT \(function)(\(value)) FROM \(members) WHERE \(key) = OLD.\(key))"
            + " WHERE Z_PK = OLD.\(key) AND OLD.\(value) \(beyond)= \(column);"
        let raise = " UPDATE \(table) SET \(column) = NEW.\(value) WHERE Z_PK = NEW.\(key) AND (\(column) IS NULL OR NEW.\(value) \(beyond) \(column));"
        return [
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_INSERT AFTER INSERT ON \(members) FOR EACH ROW WHEN (NEW.\(key) NOT NULL AND NEW.\(value) NOT NULL) BEGIN"
                + raise + notify(where: "Z_PK = NEW.\(key) AND (\(column) IS NULL OR NEW.\(value) \(beyond)= \(column))") + " END",
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_UPDATE_SET AFTER UPDATE OF \(key), \(value) ON \(members) FOR EACH ROW WHEN (NEW.\(key) NOT NULL AND NEW.\(value) NOT NULL) BEGIN"
                + recompute + notify(where: "Z_PK = OLD.\(key) AND OLD.\(value) \(beyond)= \(column)")
                + raise + notify(where: "Z_PK = NEW.\(key) AND NEW.\(value) \(beyond)= \(column)") + " END",
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_UPDATE_UNSET AFTER UPDATE OF \(key), \(value) ON \(members) FOR EACH ROW WHEN (OLD.\(key) NOT NULL AND OLD.\(value) NOT NULL AND (NEW.\(key) IS NULL OR NEW.\(value) IS NULL)) BEGIN"
                + recompute + notify(where: "Z_PK = OLD.\(key) AND (\(column) IS NULL OR OLD.\(value) \(beyond)= \(column))") + " END",
            "CREATE TRIGGER IF NOT EXISTS \(prefix)_DELETE AFTER DELETE ON \(members) FOR EACH ROW WHEN (OLD.\(key) NOT NULL AND OLD.\(value) NOT NULL) BEGIN"
                + recompute + notify(where: "Z_PK = OLD.\(key) AND (\(column) IS NULL OR OLD.\(value) \(beyond)= \(column))") + " END",
            "CREATE TRIGGER IF NOT EXISTS Z_DA_\(table)_\(entity)_\(name)_INSERT AFTER INSERT ON \(table) FOR EACH ROW BEGIN"
                + " UPDATE \(table) SET \(column) = (SELECT \(function)(\(value)) FROM \(members) WHERE \(key) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;"
                + notify(inserted: true, where: "Z_PK = NEW.Z_PK") + " END",
        ]
    }
}
