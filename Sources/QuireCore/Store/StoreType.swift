import QuireSupport
/// A kind of persistent store, with Core Data's values (`NSStoreType` in store metadata).
public struct StoreType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The value stored as `NSStoreType`: `SQLite`, `XML`, `Binary`, `InMemory`, or a custom type's name.
    public var rawValue: String

    /// Creates a store type from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Core Data's SQLite store: incremental, schema compatible with Core Data's.
    public static let sqlite = StoreType(rawValue: "SQLite")
    /// Core Data's XML store: atomic, one XML file.
    public static let xml = StoreType(rawValue: "XML")
    /// Quire's binary store: atomic, one compact file.
    public static let binary = StoreType(rawValue: "Binary")
    /// A store in memory only.
    public static let inMemory = StoreType(rawValue: "InMemory")

    /// The type's name.
    public var description: String { rawValue }
}
