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
/// - A to-many relationship without an inverse: a hidden column `Z<n><RELATIONSHIP>` on the destination's table
///   holding the owner's key (`n` the owner entity's number), as Core Data lays it out; stores Quire wrote before
///   2026-12 keep such members in a join table `Z_<n><RELATIONSHIP>`, which is read and written where it is.
/// - A join table `Z_<n><RELATIONSHIP>` per many-to-many relationship, with columns `Z_<n><INVERSE>` (the owner's
///   key) and `Z_<m><RELATIONSHIP>` (the member's key), a column name already taken by another join table getting
///   a numeric suffix (`Z_23USERS1`), and `Z_FOK_…` order columns for ordered sides; a relationship that is its
///   own inverse names its member column `REFLEXIVE`.
/// - `Z_PRIMARYKEY`, `Z_METADATA`, and `Z_QUIREMODEL` (the embedded model).
///
/// For an existing store, every table and column name is taken from the file (``init(model:numbers:storeTables:)``):
/// the rules above only choose among what the file has, and name what a new store gets.
package final class CoreDataSchema {
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
            /// The owner's key of a member of a to-many relationship without an inverse (a column of the
            /// destination's table that no property of its entity describes).
            case ownerKey(RelationshipDescription)
            /// The member's position in such a relationship when it is ordered.
            case ownerOrderKey(RelationshipDescription)
        }
        /// The column's name (the existing store's, when it has the column).
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
        /// Whether the relationship is its own inverse (its member column is `REFLEXIVE`): a link is a row either
        /// way round, so reads look at both columns and writes put both rows.
        let isReflexive: Bool

        /// What a query reads the table as, with the columns ``sourceColumn`` and ``destinationColumn``: the table
        /// itself, or for an unordered relationship that is its own inverse, its rows both ways round (Quire writes
        /// both; a store with a link written one way round still reads it from either object).
        package func readSource(_ quote: (String) -> String) -> String {
            guard isReflexive, orderColumn == nil else { return quote(name) }
            let (table, source, destination) = (quote(name), quote(sourceColumn), quote(destinationColumn))
            return "(SELECT \(source) AS \(source), \(destination) AS \(destination) FROM \(table) UNION "
                + "SELECT \(destination), \(source) FROM \(table))"
        }
    }

    /// The column of the members' rows that holds their owner's key, for a to-many relationship whose members
    /// are found that way: through the inverse to-one's foreign key, or through the hidden column of a to-many
    /// without an inverse.
    package struct MemberKey {
        /// The members' table.
        package let table: Table
        /// The column holding the owner's key.
        package let column: String
        /// The column holding a member's position, for an ordered relationship.
        package let orderColumn: String?
        /// Whether the column is a hidden one (no inverse): the owner's saves write it, not the members'.
        let isHidden: Bool
    }

    /// Where an entity's values live: per attribute and relationship slot, the column index in its table's
    /// `SELECT *`-style column list (after `Z_PK, Z_ENT, Z_OPT`), or -1.
    package struct EntityMapping {
        package let table: Table
        package var attributeColumns: [Int]
        var foreignKeyColumns: [Int]
        var foreignEntityColumns: [Int]
        var orderKeyColumns: [Int]
    }

    package let model: ManagedObjectModel
    /// The store's entity numbers (`Z_ENT`).
    package let numbers: CoreDataEntityNumbers
    package private(set) var tables: [Table] = []
    package private(set) var tablesByRoot: [ObjectIdentifier: Table] = [:]
    package private(set) var mappings: [ObjectIdentifier: EntityMapping] = [:]
    /// Join tables keyed by both the relationship and its inverse.
    package private(set) var joinTables: [ObjectIdentifier: JoinTable] = [:]
    package private(set) var allJoinTables: [JoinTable] = []
    /// The member key of every to-many relationship kept in the members' rows, by relationship.
    private(set) var memberKeys: [ObjectIdentifier: MemberKey] = [:]
    /// The hidden member keys (to-many relationships without an inverse), in table order.
    private(set) var hiddenMemberKeys: [(relationship: RelationshipDescription, key: MemberKey)] = []

    /// The schema of a model in a store numbering its entities with `numbers` (Core Data's numbering by default,
    /// which is what a new store gets).
    ///
    /// - Parameter storeTables: The tables and columns of the existing store the schema is for: every join table
    ///   and join, hidden and entity column is then named as the file names it (see ``StoreTables``). Nil for a
    ///   new store, which is laid out as Core Data lays one out.
    package init(model: ManagedObjectModel, numbers: CoreDataEntityNumbers? = nil, storeTables: StoreTables? = nil) {
        self.model = model
        self.numbers = numbers ?? .coreData(for: model)
        build(storeTables)
    }

    package static func columnName(_ name: String) -> String { "Z" + name.uppercased() }

    /// The place of a declared column type in Core Data's column order: `INTEGER`, then `FLOAT` and `TIMESTAMP`
    /// as one group, `DECIMAL`, `VARCHAR`, `BLOB` (Moody's `ZDATE TIMESTAMP, ZLATITUDE FLOAT, ZLONGITUDE FLOAT,
    /// ZMARKEDFORDELETIONDATE TIMESTAMP`).
    package static func typeRank(_ type: String) -> Int {
        switch type {
        case "INTEGER": 0
        case "FLOAT", "TIMESTAMP": 1
        case "DECIMAL": 2
        case "VARCHAR": 3
        case "BLOB": 4
        default: 5
        }
    }

    /// The place of a column in Core Data's column order: its declared type's (``typeRank(_:)``), then, within
    /// `VARCHAR`, strings before URIs (Apple Notes' `ZICINVITATION`: `… ZTITLE VARCHAR, ZSHAREURL VARCHAR`) and,
    /// within `BLOB`, UUIDs, then transformables, then binary data (Notes' `ZICCLOUDSYNCINGOBJECT`, XCServerCoreData's
    /// `ZINTEGRATION`, CoreDataPlus's `ZBOOK`); within a group, entity by entity in property order.
    static func columnRank(_ column: Column) -> (Int, Int) {
        guard case .attribute(let attribute) = column.role else { return (typeRank(column.type), 0) }
        let subgroup: Int
        switch attribute.attributeType {
        case .uri: subgroup = 1
        case .uuid: subgroup = 0
        case .transformable: subgroup = 1
        case .binaryData: subgroup = 2
        default: subgroup = 0
        }
        return (typeRank(column.type), subgroup)
    }

    /// An identifier as Core Data writes it in DDL: bare when it is a plain ASCII word starting with `Z` (no SQL
    /// keyword does; every name made from ASCII entity and property names is one) or `REFLEXIVE`, quoted
    /// otherwise.
    static func ddlName(_ identifier: String) -> String {
        let plain = (identifier.hasPrefix("Z") || identifier == reflexiveColumn)
            && identifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        return plain ? identifier : SQLDialect.quoteRaw(identifier)
    }

    /// The DDL of the join tables: each with its two key columns (and order columns), its primary key and Core
    /// Data's index on the destination column (`Z_2TAGS_3TAGS_INDEX`), names written by `name`, integers of
    /// `integerType`; every engine creates them alike.
    package func joinTableStatements(name: (String) -> String, integerType: String) -> [String] {
        var sql: [String] = []
        for join in allJoinTables {
            var columns = ["\(name(join.sourceColumn)) \(integerType)", "\(name(join.destinationColumn)) \(integerType)"]
            if let order = join.orderColumn { columns.append("\(name(order)) \(integerType)") }
            if let order = join.inverseOrderColumn { columns.append("\(name(order)) \(integerType)") }
            columns.append("PRIMARY KEY (\(name(join.sourceColumn)), \(name(join.destinationColumn)))")
            sql.append("CREATE TABLE \(name(join.name)) ( \(columns.joined(separator: ", ")) )")
            sql.append(
                "CREATE INDEX \(name("\(join.name)_\(join.destinationColumn)_INDEX")) ON \(name(join.name)) "
                    + "(\(name(join.destinationColumn)), \(name(join.sourceColumn)))")
        }
        return sql
    }

    /// The member column of a join table whose relationship is its own inverse.
    static let reflexiveColumn = "REFLEXIVE"

    /// The order column of a join-table key column: `Z_FOK_23USERS1` for `Z_23USERS1` (the position of the member
    /// that column holds), `Z_FOK_REFLEXIVE` for `REFLEXIVE`. A name found in a PostgreSQL database comes
    /// lower-cased (`z_23users1`): its `z_` is the same prefix.
    static func orderColumnName(of keyColumn: String) -> String {
        "Z_FOK_" + (keyColumn.uppercased().hasPrefix("Z_") ? String(keyColumn.dropFirst(2)) : keyColumn)
    }

    package func table(for entity: EntityDescription) -> Table? { tablesByRoot[ObjectIdentifier(entity.rootEntity)] }
    package func mapping(for entity: EntityDescription) -> EntityMapping? { mappings[ObjectIdentifier(entity)] }
    package func joinTable(for relationship: RelationshipDescription) -> JoinTable? { joinTables[ObjectIdentifier(relationship)] }
    /// The members' key column of a to-many relationship whose members hold their owner's key (a to-one inverse,
    /// or no inverse in Core Data's layout); nil for one kept in a join table.
    package func memberKey(for relationship: RelationshipDescription) -> MemberKey? { memberKeys[ObjectIdentifier(relationship)] }

    /// Whether a to-many relationship's members are found through the destination's foreign key.
    static func usesForeignKey(_ relationship: RelationshipDescription) -> Bool {
        relationship.isToMany && relationship.resolvedInverse.map { !$0.isToMany } == true
    }

    private func build(_ storeTables: StoreTables?) {
        let entities = numbers.entitiesInOrder
        for entity in entities where entity.superentity == nil {
            let table = Table(name: CoreDataSchema.columnName(entity.name), root: entity)
            tables.append(table)
            tablesByRoot[ObjectIdentifier(entity)] = table
        }
        // How each to-many relationship without a to-one inverse is kept: a hidden column (no inverse) or a join
        // table (many-to-many, and a to-many without an inverse in stores Quire wrote before 2026-12).
        var hiddenByDestination: [ObjectIdentifier: [(RelationshipDescription, hidden: String, order: String?)]] = [:]
        for entity in entities {
            for case let relationship as RelationshipDescription in entity.properties
            where relationship.isToMany && !relationship.isTransient && relationship.resolvedInverse == nil {
                guard let destination = relationship.resolvedDestination else { continue }
                let n = numbers.number(of: entity)
                let relName = relationship.name.uppercased()
                let hidden = "Z\(n)\(relName)"
                let legacy = "Z_\(n)\(relName)"
                if let storeTables, let destinationTable = table(for: destination),
                    !storeTables.has(hidden, in: destinationTable.name), let columns = storeTables.columns(of: legacy)
                {
                    let source = "Z_\(n)\(entity.name.uppercased())"
                    let member = "Z_\(numbers.number(of: destination))\(relName)"
                    addJoin(JoinTable(
                        name: storeTables.spelling(of: legacy) ?? legacy, relationship: relationship,
                        sourceColumn: StoreTables.pick(source, in: columns) ?? source,
                        destinationColumn: StoreTables.pick(member, in: columns) ?? member,
                        orderColumn: relationship.isOrdered ? CoreDataSchema.orderColumnName(of: member) : nil, inverseOrderColumn: nil,
                        isReflexive: false))
                    continue
                }
                hiddenByDestination[ObjectIdentifier(destination), default: []].append(
                    (relationship, hidden, relationship.isOrdered ? "Z_FOK_\(n)\(relName)" : nil))
            }
        }
        buildManyToMany(entities, storeTables)

        // Columns, hierarchy by hierarchy, entity by entity (by number), own attributes then to-one relationships
        // in declaration order, then the hidden keys of the to-many relationships without an inverse that point
        // at the entity; then grouped by declared type, as Core Data orders them (see the SQLiteStoreFormat article).
        var used: [ObjectIdentifier: Set<String>] = [:]
        func add(_ base: String, type: String, role: Column.Role, to table: Table) {
            var names = used[ObjectIdentifier(table)] ?? ["Z_PK", "Z_ENT", "Z_OPT"]
            let name = Self.suffixed(base, avoiding: names)
            names.insert(name)
            used[ObjectIdentifier(table)] = names
            table.columns.append(Column(name: name, type: type, role: role))
        }
        for entity in entities {
            guard let table = table(for: entity) else { continue }
            var toOne: [RelationshipDescription] = []
            for property in entity.properties where !property.isTransient {
                if let attribute = property as? AttributeDescription {
                    add(
                        CoreDataSchema.columnName(attribute.name), type: attribute.attributeType.sqliteColumnType,
                        role: .attribute(attribute), to: table)
                } else if let composite = property as? CompositeAttributeDescription {
                    // Core Data flattens a composite into a column per element, named by the element alone
                    // (`ZCITY`, then `ZCITY1` if the name is taken) in the entity's table.
                    for leaf in composite.leaves where !leaf.attribute.isTransient {
                        add(
                            CoreDataSchema.columnName(leaf.element.name), type: leaf.attribute.attributeType.sqliteColumnType,
                            role: .attribute(leaf.attribute), to: table)
                    }
                } else if let relationship = property as? RelationshipDescription, !relationship.isToMany {
                    toOne.append(relationship)
                }
            }
            for relationship in toOne {
                add(CoreDataSchema.columnName(relationship.name), type: "INTEGER", role: .foreignKey(relationship), to: table)
                if let destination = relationship.resolvedDestination, !destination.subentities.isEmpty {
                    add(
                        "Z\(numbers.number(of: destination))_" + relationship.name.uppercased(), type: "INTEGER",
                        role: .foreignEntity(relationship), to: table)
                }
                if let inverse = relationship.resolvedInverse, inverse.isToMany, inverse.isOrdered {
                    add("Z_FOK_" + relationship.name.uppercased(), type: "INTEGER", role: .orderKey(relationship), to: table)
                }
            }
            for (relationship, hidden, order) in hiddenByDestination[ObjectIdentifier(entity)] ?? [] {
                add(hidden, type: "INTEGER", role: .ownerKey(relationship), to: table)
                if let order { add(order, type: "INTEGER", role: .ownerOrderKey(relationship), to: table) }
            }
        }
        var attributeColumn: [ObjectIdentifier: Int] = [:]
        var foreignKeyColumn: [ObjectIdentifier: Int] = [:]
        var foreignEntityColumn: [ObjectIdentifier: Int] = [:]
        var orderKeyColumn: [ObjectIdentifier: Int] = [:]
        for table in tables {
            table.columns = table.columns.enumerated()
                .sorted { a, b in
                    let (ra, rb) = (CoreDataSchema.columnRank(a.element), CoreDataSchema.columnRank(b.element))
                    return (ra.0, ra.1, a.offset) < (rb.0, rb.1, b.offset)
                }
                .map(\.element)
            if let storeTables { adoptLegacyNames(of: table, storeTables) }
            for (index, column) in table.columns.enumerated() {
                switch column.role {
                case .attribute(let attribute): attributeColumn[ObjectIdentifier(attribute)] = index
                case .foreignKey(let relationship): foreignKeyColumn[ObjectIdentifier(relationship)] = index
                case .foreignEntity(let relationship): foreignEntityColumn[ObjectIdentifier(relationship)] = index
                case .orderKey(let relationship): orderKeyColumn[ObjectIdentifier(relationship)] = index
                case .ownerKey, .ownerOrderKey: break
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
        buildMemberKeys(entities)
    }

    /// `base`, or the first of `base1`, `base2`, … that `names` does not hold: how Core Data tells apart two
    /// columns of a table that would have the same name.
    private static func suffixed(_ base: String, avoiding names: Set<String>) -> String {
        var name = base
        var suffix = 1
        while names.contains(name) {
            name = base + String(suffix)
            suffix += 1
        }
        return name
    }

    /// The join tables of the many-to-many relationships. Core Data makes them entity by entity in name order
    /// (case-insensitively, the hierarchy aside), each entity's relationships in declaration order, the table
    /// named by the side met first; a column name another join table took first gets a numeric suffix (with
    /// `Z_19USERS(Z_19REACTIONS, Z_23USERS)` made first, Wire's `Z_15USERS(Z_15SYSTEMMESSAGES, Z_23USERS1)`). An
    /// existing store's tables and columns are found in the file instead (either side's name, any suffix).
    private func buildManyToMany(_ entities: [EntityDescription], _ storeTables: StoreTables?) {
        var usedColumns: Set<String> = []
        func unique(_ base: String) -> String {
            let name = Self.suffixed(base, avoiding: usedColumns)
            usedColumns.insert(name)
            return name
        }
        for entity in CoreDataEntityNumbers.sortedByName(entities) {
            for case let relationship as RelationshipDescription in entity.properties
            where relationship.isToMany && !relationship.isTransient {
                guard joinTables[ObjectIdentifier(relationship)] == nil, let inverse = relationship.resolvedInverse, inverse.isToMany,
                    let destination = relationship.resolvedDestination
                else { continue }
                if let storeTables, let found = existingJoin(relationship, inverse, storeTables) {
                    addJoin(found)
                    continue
                }
                let n = numbers.number(of: entity)
                let m = numbers.number(of: destination)
                let reflexive = inverse === relationship
                let source = unique("Z_\(n)\(inverse.name.uppercased())")
                let member = reflexive ? CoreDataSchema.reflexiveColumn : unique("Z_\(m)\(relationship.name.uppercased())")
                addJoin(JoinTable(
                    name: "Z_\(n)\(relationship.name.uppercased())", relationship: relationship, sourceColumn: source,
                    destinationColumn: member, orderColumn: relationship.isOrdered ? CoreDataSchema.orderColumnName(of: member) : nil,
                    inverseOrderColumn: !reflexive && inverse.isOrdered ? CoreDataSchema.orderColumnName(of: source) : nil,
                    isReflexive: reflexive))
            }
        }
    }

    /// The join table an existing store keeps a many-to-many pair in, named by either side, its columns as
    /// the file names them; nil when the store has no table of either name.
    private func existingJoin(
        _ relationship: RelationshipDescription, _ inverse: RelationshipDescription, _ storeTables: StoreTables
    ) -> JoinTable? {
        for (owned, other) in [(relationship, inverse), (inverse, relationship)] {
            guard let owner = owned.entity, let destination = owned.resolvedDestination, let otherOwner = other.entity,
                let otherDestination = other.resolvedDestination
            else { continue }
            let name = "Z_\(numbers.number(of: owner))\(owned.name.uppercased())"
            guard let columns = storeTables.columns(of: name) else { continue }
            let reflexive = owned === other
            // The member column is numbered by the destination (or the entity declaring the inverse), the owner
            // column by the owner (or the inverse's destination); either may carry a numeric suffix.
            let memberNames = [destination, otherOwner].map { "Z_\(numbers.number(of: $0))\(owned.name.uppercased())" }
            let ownerNames = [owner, otherDestination].map { "Z_\(numbers.number(of: $0))\(other.name.uppercased())" }
            var member = memberNames[0]
            var source = ownerNames[0]
            if reflexive {
                // Core Data's own: `Z_<n><REL>` and `REFLEXIVE`.
                if let found = StoreTables.pick(CoreDataSchema.reflexiveColumn, in: columns) { member = found }
                if let found = memberNames.lazy.compactMap({ StoreTables.pick($0, in: columns, suffixed: true) }).first { source = found }
            } else {
                if let found = memberNames.lazy.compactMap({ StoreTables.pick($0, in: columns, suffixed: true) }).first { member = found }
                if let found = ownerNames.lazy.compactMap({ StoreTables.pick($0, in: columns, suffixed: true, excluding: member) }).first {
                    source = found
                }
            }
            func orderColumn(of key: String, ordered: Bool) -> String? {
                let base = CoreDataSchema.orderColumnName(of: key)
                return ordered ? (StoreTables.pick(base, in: columns) ?? base) : nil
            }
            return JoinTable(
                name: storeTables.spelling(of: name) ?? name, relationship: owned, sourceColumn: source, destinationColumn: member,
                orderColumn: orderColumn(of: member, ordered: owned.isOrdered),
                inverseOrderColumn: reflexive ? nil : orderColumn(of: source, ordered: other.isOrdered), isReflexive: reflexive)
        }
        return nil
    }

    private func addJoin(_ join: JoinTable) {
        allJoinTables.append(join)
        joinTables[ObjectIdentifier(join.relationship)] = join
        if let inverse = join.relationship.resolvedInverse { joinTables[ObjectIdentifier(inverse)] = join }
    }

    /// The member keys of the to-many relationships whose members hold their owner's key.
    private func buildMemberKeys(_ entities: [EntityDescription]) {
        for table in tables {
            for column in table.columns {
                guard case .ownerKey(let relationship) = column.role else { continue }
                let order = table.columns.first { candidate in
                    if case .ownerOrderKey(let ordered) = candidate.role { return ordered === relationship }
                    return false
                }
                let key = MemberKey(table: table, column: column.name, orderColumn: order?.name, isHidden: true)
                memberKeys[ObjectIdentifier(relationship)] = key
                hiddenMemberKeys.append((relationship, key))
            }
        }
        for entity in entities {
            for case let relationship as RelationshipDescription in entity.properties where CoreDataSchema.usesForeignKey(relationship) {
                guard let inverse = relationship.resolvedInverse, let inverseOwner = inverse.entity,
                    let mapping = mapping(for: inverseOwner), inverse.slot < mapping.foreignKeyColumns.count,
                    mapping.foreignKeyColumns[inverse.slot] >= 0
                else { continue }
                let order = relationship.isOrdered && mapping.orderKeyColumns[inverse.slot] >= 0
                    ? mapping.table.columns[mapping.orderKeyColumns[inverse.slot]].name : nil
                memberKeys[ObjectIdentifier(relationship)] = MemberKey(
                    table: mapping.table, column: mapping.table.columns[mapping.foreignKeyColumns[inverse.slot]].name,
                    orderColumn: order, isHidden: false)
            }
        }
    }

    /// Adopts an existing store's spelling of the entity columns of to-one relationships: `Z<N><REL>`, without
    /// the underscore, in stores Quire wrote before it followed Core Data's `Z<N>_<REL>`.
    private func adoptLegacyNames(of table: Table, _ storeTables: StoreTables) {
        guard storeTables.columns(of: table.name) != nil else { return }
        for index in table.columns.indices {
            guard case .foreignEntity = table.columns[index].role, !storeTables.has(table.columns[index].name, in: table.name)
            else { continue }
            var legacy = table.columns[index].name
            if let underscore = legacy.firstIndex(of: "_") { legacy.remove(at: underscore) }
            if storeTables.has(legacy, in: table.name) { table.columns[index].name = legacy }
        }
    }

    /// The DDL that creates the schema (tables and indexes), without metadata rows, as the Core Data version
    /// `style` names lays a store out. Engine-specific objects are not among them: the SQLite engine adds its
    /// derived-attribute triggers after running these (`QuireSQLite`, `CoreDataSchema+DerivedAttributes.swift`).
    package func createStatements(style: DDLStyle = .quire) -> [String] {
        var sql: [String] = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_QUIREMODEL (Z_VERSION INTEGER PRIMARY KEY, Z_CONTENT BLOB)",
        ]
        for table in tables {
            var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
                + table.columns.map { "\(CoreDataSchema.ddlName($0.name)) \($0.type)" }
            let constraints = inlineUniquenessConstraints(of: table, style: style)
            columns += constraints
            // Core Data 637 closes a table with constraints without the space (`… UNIQUE (ZA, ZB))`).
            let end = constraints.isEmpty ? " )" : ")"
            sql.append("CREATE TABLE \(CoreDataSchema.ddlName(table.name)) ( \(columns.joined(separator: ", "))\(end)")
            if !table.root.subentities.isEmpty {
                sql.append("CREATE INDEX \(CoreDataSchema.ddlName("\(table.name)_Z_ENT_INDEX")) ON \(CoreDataSchema.ddlName(table.name)) (Z_ENT)")
            }
            for column in table.columns {
                let indexed: Bool
                switch column.role {
                case .attribute(let attribute):
                    indexed = style.indexesAttributesByColumn && attribute.isIndexed && !isCoveredByFetchIndex(attribute)
                case .foreignKey, .ownerKey: indexed = true
                case .foreignEntity, .orderKey, .ownerOrderKey: indexed = false
                }
                guard indexed else { continue }
                sql.append(
                    "CREATE INDEX \(CoreDataSchema.ddlName("\(table.name)_\(column.name)_INDEX")) ON "
                        + "\(CoreDataSchema.ddlName(table.name)) (\(CoreDataSchema.ddlName(column.name)))")
            }
        }
        // Fetch indexes and uniqueness constraints: Z_<Entity>_<name>, Z_<Entity>_UNIQUE_<properties>.
        sql += entityIndexStatements(style: style)
        sql += joinTableStatements(name: CoreDataSchema.ddlName, integerType: "INTEGER")
        // The SQLite engine adds its derived-attribute triggers after these (they may be on join tables).
        return sql
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
