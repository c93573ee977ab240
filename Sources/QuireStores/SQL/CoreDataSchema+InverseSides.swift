import QuireCore

extension CoreDataSchema {
    /// Whether Core Data's layout keeps a relationship's members apart from its inverse's (what
    /// `PersistentStoreBackend.keepsInverseApart(_:)` answers for the SQLite and PostgreSQL stores): only a
    /// to-one whose inverse is to-one has a column on each side; a to-many with a to-one inverse is read from
    /// the destination's foreign key, and both sides of a many-to-many from one join table.
    package static func keepsInverseApart(_ relationship: RelationshipDescription) -> Bool {
        !relationship.isToMany && relationship.resolvedInverse.map { !$0.isToMany } == true
    }
}
