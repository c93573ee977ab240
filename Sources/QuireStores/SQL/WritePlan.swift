import QuireCore

/// The statements that write an entity's rows, and which slots they bind in order. A class, so that the
/// per-row lookup retains one object, and so that an engine can keep its prepared statements in it.
package final class WritePlan {
    package let insertSQL: String
    package let updateSQL: String
    /// Attribute slots, and whether each uses Core Data's external-storage encoding.
    package let attributeSlots: [(Int, Bool)]
    /// To-one relationship slots, and whether each also stores the destination's entity number.
    package let relationshipSlots: [(Int, Bool)]
    /// The engine's prepared statements for the plan (SQLite: its INSERT, UPDATE and several-row INSERT), owned
    /// by the engine's connection cache and cleared with the plans on close; typed by the engine that sets them.
    package var insertStatement: AnyObject?
    package var updateStatement: AnyObject?
    package var batchInsertStatement: AnyObject?
    /// The engine's UPDATEs of only some columns (``updateSQL(changedAttributes:changedRelationships:)``), by
    /// the set of columns they write; typed and bounded by the engine that keeps them.
    package var partialUpdates: [ChangedColumns: AnyObject] = [:]
    /// What the partial UPDATEs are made of: the quoted table name and `Z_PK`, `Z_OPT`, each attribute slot's
    /// quoted column (in `attributeSlots`' order), each to-one's one or two columns (in `relationshipSlots`'
    /// order), and the dialect's parameters.
    let updateParts: UpdateParts?

    struct UpdateParts {
        let table: String
        let pk: String
        let opt: String
        let attributeColumns: [String]
        let relationshipColumns: [[String]]
        let dialect: SQLDialect
    }

    init(
        insertSQL: String, updateSQL: String, attributeSlots: [(Int, Bool)], relationshipSlots: [(Int, Bool)],
        updateParts: UpdateParts? = nil
    ) {
        self.insertSQL = insertSQL
        self.updateSQL = updateSQL
        self.attributeSlots = attributeSlots
        self.relationshipSlots = relationshipSlots
        self.updateParts = updateParts
    }
}
