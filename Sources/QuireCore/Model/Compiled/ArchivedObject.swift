import QuireSupport
/// One class instance of a keyed archive, as archived: its reference, class and keyed fields.
///
/// Fields are kept unresolved (references stay ``PropertyListNode/uid(_:)``), so objects that point at each
/// other (an entity and its properties, a relationship and its inverse) form no cycle in memory; an
/// ``ArchiveResolver`` follows a field when asked.
package struct ArchivedObject: Sendable, Hashable {
    /// The object's index in `$objects`.
    package var uid: UInt64
    /// The object's class (`$classname`).
    package var className: String
    /// The class and its superclasses, most derived first (`$classes`).
    var classNames: [String]
    /// The archived fields, without `$class`.
    package var fields: [String: PropertyListNode]

    /// Creates an object view.
    package init(uid: UInt64, className: String, classNames: [String], fields: [String: PropertyListNode]) {
        self.uid = uid
        self.className = className
        self.classNames = classNames
        self.fields = fields
    }

    /// Whether the object's class is `name` or a subclass of it.
    package func isKind(of name: String) -> Bool {
        className == name || classNames.contains(name)
    }
}
