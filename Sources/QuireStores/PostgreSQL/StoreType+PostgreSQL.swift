import QuireCore

extension StoreType {
    /// A store in a PostgreSQL database, in Core Data's table layout, one schema per store, shared by any number
    /// of processes and machines: `postgresql://user@host:5432/db?schema=team`. See the PostgreSQL article.
    public static let postgres = StoreType(rawValue: "PostgreSQL")
}
