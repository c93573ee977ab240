import QuireCore
import Foundation

/// How a model maps onto Core Data's SQLite schema: table, column and join-table names, and the DDL.
///
/// - One table `Z<ROOT>` per entity hierarchy, with `Z_PK`, `Z_ENT`, `Z_OPT`, then a `Z<ATTRIBUTE>` column per
///   persistent attribute of every entity in the hierarchy (a name used twice gets a numeric suffix); a composite
///   attribute's elements each get one, named by the element (`ZCITY` for `address.city`).
/// - A `Z<RELATIONSHIP>` column per to-one relationship holding the destination's `Z_PK`, plus
///   `Z<N>_<RELATIONSHIP>` with the destination's `Z_ENT` when the destination has sub-entities (stores Quire
///   wrote before 2026-11 name it `Z<N><RELATIONSHIP>`; both are read), and
///   `Z_FOK_<RELATIONSHIP>` holding the position in an ordered inverse.
/// - A join table `Z_<n><RELATIONSHIP>` per many-to-many (or inverse-less to-many) relationship, with columns
///   `Z_<n><INVERSE>` (the source's key) and `Z_<m><RELATIONSHIP>` (the destination's key), and
///   `Z_FOK_<m><RELATIONSHIP>` when the relationship is ordered.
/// - `Z_PRIMARYKEY`, `Z_METADATA`, and `Z_QUIREMODEL` (the embedded model).
package final class SQLiteSchema {
    /// One table per entity hierarchy.
    package final class Table {
        package let name: String
        package let root: EntityDescription
        /// Every column after `Z_PK, Z_ENT, Z_OPT`, in order.
        package internal(set) var columns: [Column] = []
        package init(name: String, root: EntityDescription) {
            self.name = name
            self.root = root
        }
    }

    package struct Column {
        package enum Role {
            case attribute(AttributeDescription)
            case foreignKey(RelationshipDescription)
            case foreignEntity(RelationshipDescription)
            case orderKey(RelationshipDescription)
        }
        /// The column's name (adjusted to an existing store's spelling by ``adoptNames(present:)``).
        package var name: String
        package let type: String
        package let role: Role
    }

    /// A join table for a to-many relationship without a to-one inverse.
    package struct JoinTable {
        package let name: String
        /// The relationship whose members are listed; its inverse (if any) reads the same table the other way.
        package let relationship: RelationshipDescription
        /// The column holding the key of the relationship's owner.
        package let sourceColumn: String
        /// The column holding the key of the member.
        package let destinationColumn: String
        /// Order of members within the owner's relationship, when ordered.
        package let orderColumn: String?
        /// Order of owners within the inverse relationship, when that is ordered.
        package let inverseOrderColumn: String?
    }

    /// Where an entity's values live: per attribute and relationship slot, the column index in its table's
    /// `SELECT *`-style column list (after `Z_PK, Z_ENT, Z_OPT`), or -1.
    package struct EntityMapping {
        package let table: Table
        package var attributeColumns: [Int]
        package var foreignKeyColumns: [Int]
        package var foreignEntityColumns: [Int]
        package var orderKeyColumns: [Int]
    }

    package let model: ManagedObjectModel
    /// The store's entity numbers (`Z_ENT`).
    package let numbers: SQLiteEntityNumbers
    package private(set) var tables: [Table] = []
    package private(set) var tablesByRoot: [ObjectIdentifier: Table] = [:]
    package private(set) var mappings: [ObjectIdentifier: EntityMapping] = [:]
    /// Join tables keyed by both the relationship and its inverse.
    package private(set) var joinTables: [ObjectIdentifier: JoinTable] = [:]
    package private(set) var allJoinTables: [JoinTable] = []

    /// The schema of a model in a store numbering its entities with `numbers` (Core Data's numbering by default,
    /// which is what a new store gets).
    package init(model: ManagedObjectModel, numbers: SQLiteEntityNumbers? = nil) {
        self.model = model
        self.numbers = numbers ?? .coreData(for: model)
        build()
    }

    package static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    package static func columnName(_ name: String) -> String { "Z" + name.uppercased() }

    /// The place of a declared column type in Core Data's column order: `INTEGER`, `FLOAT`, `TIMESTAMP`,
    /// `DECIMAL`, `VARCHAR`, `BLOB`.
    package static func typeRank(_ type: String) -> Int {
        ["INTEGER", "FLOAT", "TIMESTAMP", "DECIMAL", "VARCHAR", "BLOB"].firstIndex(of: type) ?? 6
    }

    /// An identifier as Core Data writes it in DDL: bare when it is a plain ASCII word starting with `Z` (no SQL
    /// keyword does; every name made from ASCII entity and property names is one), quoted otherwise.
    package static func ddlName(_ identifier: String) -> String {
        let plain = identifier.hasPrefix("Z")
            && identifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        return plain ? identifier : quote(identifier)
    }

    package func table(for entity: EntityDescription) -> Table? { tablesByRoot[ObjectIdentifier(entity.rootEntity)] }
    package func mapping(for entity: EntityDescription) -> EntityMapping? { mappings[ObjectIdentifier(entity)] }
    package func joinTable(for relationship: RelationshipDescription) -> JoinTable? { joinTables[ObjectIdentifier(relationship)] }

    /// Whether a to-many relationship's members are found through the destination's foreign key.
    package static func usesForeignKey(_ relationship: RelationshipDescription) -> Bool {
        relationship.isToMany && relationship.resolvedInverse.map { !$0.isToMany } == true
    }

    private func build() {
        let entities = numbers.entitiesInOrder
        for entity in entities where entity.superentity == nil {
            let table = Table(name: SQLiteSchema.columnName(entity.name), root: entity)
            tables.append(table)
            tablesByRoot[ObjectIdentifier(entity)] = table
        }
        // Columns, hierarchy by hierarchy, entity by entity (by number), own properties in declaration order; then
        // grouped by declared type, as Core Data orders them (see the SQLiteStoreFormat article).
        var used: [ObjectIdentifier: Set<String>] = [:]
        func add(_ base: String, type: String, role: Column.Role, to table: Table) {
            var names = used[ObjectIdentifier(table)] ?? ["Z_PK", "Z_ENT", "Z_OPT"]
            var name = base
            var suffix = 1
            while names.contains(name) {
                name = base + String(suffix)
                suffix += 1
            }
            names.insert(name)
            used[ObjectIdentifier(table)] = names
            table.columns.append(Column(name: name, type: type, role: role))
        }
        for entity in entities {
            guard let table = table(for: entity) else { continue }
            for property in entity.properties where !property.isTransient {
                if let attribute = property as? AttributeDescription {
                    add(
                        SQLiteSchema.columnName(attribute.name), type: attribute.attributeType.sqliteColumnType,
                        role: .attribute(attribute), to: table)
                } else if let composite = property as? CompositeAttributeDescription {
                    // Core Data flattens a composite into a column per element, named by the element alone
                    // (`ZCITY`, then `ZCITY1` if the name is taken) in the entity's table.
                    for leaf in composite.leaves where !leaf.attribute.isTransient {
                        add(
                            SQLiteSchema.columnName(leaf.element.name), type: leaf.attribute.attributeType.sqliteColumnType,
                            role: .attribute(leaf.attribute), to: table)
                    }
                } else if let relationship = property as? RelationshipDescription, !relationship.isToMany {
                    add(
                        SQLiteSchema.columnName(relationship.name), type: "INTEGER", role: .foreignKey(relationship), to: table)
                    if let destination = relationship.resolvedDestination, !destination.subentities.isEmpty {
                        add(
                            "Z\(numbers.number(of: destination))_" + relationship.name.uppercased(), type: "INTEGER",
                            role: .foreignEntity(relationship), to: table)
                    }
                    if let inverse = relationship.resolvedInverse, inverse.isToMany, inverse.isOrdered {
                        add(
                            "Z_FOK_" + relationship.name.uppercased(), type: "INTEGER", role: .orderKey(relationship), to: table)
                    }
                }
            }
        }
        var attributeColumn: [ObjectIdentifier: Int] = [:]
        var foreignKeyColumn: [ObjectIdentifier: Int] = [:]
        var foreignEntityColumn: [ObjectIdentifier: Int] = [:]
        var orderKeyColumn: [ObjectIdentifier: Int] = [:]
        for table in tables {
            table.columns = table.columns.enumerated()
                .sorted { (SQLiteSchema.typeRank($0.element.type), $0.offset) < (SQLiteSchema.typeRank($1.element.type), $1.offset) }
                .map(\.element)
            for (index, column) in table.columns.enumerated() {
                switch column.role {
                case .attribute(let attribute): attributeColumn[ObjectIdentifier(attribute)] = index
                case .foreignKey(let relationship): foreignKeyColumn[ObjectIdentifier(relationship)] = index
                case .foreignEntity(let relationship): foreignEntityColumn[ObjectIdentifier(relationship)] = index
                case .orderKey(let relationship): orderKeyColumn[ObjectIdentifier(relationship)] = index
                }
            }
        }
        for entity in entities {
            guard let table = table(for: entity) else { continue }
            mappings[ObjectIdentifier(entity)] = EntityMapping(
                table: table,
                attributeColumns: entity.allAttributes.map { attributeColumn[ObjectIdentifier($0)] ?? -1 },
                foreignKeyColumns: entity.allRelationships.map { foreignKeyColumn[ObjectIdentifier($0)] ?? -1 },
                foreignEntityColumns: entity.allRelationships.map { foreignEntityColumn[ObjectIdentifier($0)] ?? -1 },
                orderKeyColumns: entity.allRelationships.map { orderKeyColumn[ObjectIdentifier($0)] ?? -1 })
        }
        // Join tables for to-many relationships whose inverse is to-many or missing.
        for entity in entities {
            for case let relationship as RelationshipDescription in entity.properties
            where relationship.isToMany && !relationship.isTransient && !SQLiteSchema.usesForeignKey(relationship) {
                if joinTables[ObjectIdentifier(relationship)] != nil { continue }
                guard let destination = relationship.resolvedDestination else { continue }
                let n = numbers.number(of: entity)
                let m = numbers.number(of: destination)
                let relName = relationship.name.uppercased()
                let sourceName = relationship.resolvedInverse?.name.uppercased() ?? entity.name.uppercased()
                let join = JoinTable(
                    name: "Z_\(n)\(relName)",
                    relationship: relationship,
                    sourceColumn: "Z_\(n)\(sourceName)",
                    destinationColumn: "Z_\(m)\(relName)",
                    orderColumn: relationship.isOrdered ? "Z_FOK_\(m)\(relName)" : nil,
                    inverseOrderColumn: relationship.resolvedInverse?.isOrdered == true ? "Z_FOK_\(n)\(sourceName)" : nil)
                allJoinTables.append(join)
                joinTables[ObjectIdentifier(relationship)] = join
                if let inverse = relationship.resolvedInverse { joinTables[ObjectIdentifier(inverse)] = join }
            }
        }
    }

    /// The DDL that creates the schema (tables and indexes), without metadata rows.
    package func createStatements() -> [String] {
        var sql: [String] = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_QUIREMODEL (Z_VERSION INTEGER PRIMARY KEY, Z_CONTENT BLOB)",
        ]
        for table in tables {
            let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
                + table.columns.map { "\(SQLiteSchema.ddlName($0.name)) \($0.type)" }
            sql.append("CREATE TABLE \(SQLiteSchema.ddlName(table.name)) ( \(columns.joined(separator: ", ")) )")
            if !table.root.subentities.isEmpty {
                sql.append("CREATE INDEX \(SQLiteSchema.ddlName("\(table.name)_Z_ENT_INDEX")) ON \(SQLiteSchema.ddlName(table.name)) (Z_ENT)")
            }
            for column in table.columns {
                let indexed: Bool
                switch column.role {
                case .attribute(let attribute): indexed = attribute.isIndexed && !isCoveredByFetchIndex(attribute)
                case .foreignKey: indexed = true
                case .foreignEntity, .orderKey: indexed = false
                }
                guard indexed else { continue }
                sql.append(
                    "CREATE INDEX \(SQLiteSchema.ddlName("\(table.name)_\(column.name)_INDEX")) ON "
                        + "\(SQLiteSchema.ddlName(table.name)) (\(SQLiteSchema.ddlName(column.name)))")
            }
        }
        // Fetch indexes and uniqueness constraints: Z_<Entity>_<name>, Z_<Entity>_UNIQUE_<properties>.
        sql += entityIndexStatements()
        for join in allJoinTables {
            var columns = ["\(SQLiteSchema.ddlName(join.sourceColumn)) INTEGER", "\(SQLiteSchema.ddlName(join.destinationColumn)) INTEGER"]
            if let order = join.orderColumn { columns.append("\(SQLiteSchema.ddlName(order)) INTEGER") }
            if let order = join.inverseOrderColumn { columns.append("\(SQLiteSchema.ddlName(order)) INTEGER") }
            columns.append("PRIMARY KEY (\(SQLiteSchema.ddlName(join.sourceColumn)), \(SQLiteSchema.ddlName(join.destinationColumn)))")
            sql.append("CREATE TABLE \(SQLiteSchema.ddlName(join.name)) ( \(columns.joined(separator: ", ")) )")
            sql.append(
                "CREATE INDEX \(SQLiteSchema.ddlName("\(join.name)_\(join.destinationColumn)_INDEX")) ON "
                    + "\(SQLiteSchema.ddlName(join.name)) (\(SQLiteSchema.ddlName(join.destinationColumn)), "
                    + "\(SQLiteSchema.ddlName(join.sourceColumn)))")
        }
        // Last: triggers may be on join tables.
        sql += derivedAttributeTriggerStatements()
        return sql
    }

    /// Adopts an existing store's spelling of the entity columns of to-one relationships: `Z<N><REL>`, without
    /// the underscore, in stores Quire wrote before it followed Core Data's `Z<N>_<REL>`.
    ///
    /// - Parameter present: The columns of each table of the store.
    package func adoptNames(present: [String: Set<String>]) {
        for table in tables {
            guard let columns = present[table.name] else { continue }
            for index in table.columns.indices {
                guard case .foreignEntity = table.columns[index].role, !columns.contains(table.columns[index].name) else { continue }
                var legacy = table.columns[index].name
                if let underscore = legacy.firstIndex(of: "_") { legacy.remove(at: underscore) }
                if columns.contains(legacy) { table.columns[index].name = legacy }
            }
        }
    }

    /// Every table and the columns it must have, to check an existing store against the model.
    package func expectedColumns() -> [String: Set<String>] {
        var result: [String: Set<String>] = [
            "Z_PRIMARYKEY": ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"],
            "Z_METADATA": ["Z_VERSION", "Z_UUID", "Z_PLIST"],
        ]
        for table in tables {
            result[table.name] = Set(["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name))
        }
        for join in allJoinTables {
            var columns: Set<String> = [join.sourceColumn, join.destinationColumn]
            if let order = join.orderColumn { columns.insert(order) }
            if let order = join.inverseOrderColumn { columns.insert(order) }
            result[join.name] = columns
        }
        return result
    }
}
