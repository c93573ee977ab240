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

    package init(insertSQL: String, updateSQL: String, attributeSlots: [(Int, Bool)], relationshipSlots: [(Int, Bool)]) {
        self.insertSQL = insertSQL
        self.updateSQL = updateSQL
        self.attributeSlots = attributeSlots
        self.relationshipSlots = relationshipSlots
    }
}
