import QuireCore
import QuireStores
import Quire

extension StoreType {
    /// A store in a PostgreSQL database, in Core Data's table layout, one schema per store, shared by any number
    /// of processes and machines: `postgresql://user@host:5432/db?schema=team`. See the PostgreSQL article.
    ///
    /// Using this value registers the PostgreSQL store kind with Quire's store registry (once, the first time),
    /// so the coordinator, the metadata functions, migration and Save As know it from then on, also by its name
    /// (`StoreType(rawValue: "PostgreSQL")`) and by a `postgresql://` URL given without a type. An application
    /// that reads the type by name before naming it in code registers it first with `_ = StoreType.postgres`.
    public static let postgres: StoreType = {
        StoreKinds.registerSeparateModuleKind(.postgres)
        return postgresType
    }()

    /// The PostgreSQL type without registering its kind (what the kind itself names, to be made while
    /// ``postgres`` is being initialized).
    static let postgresType = StoreType(rawValue: "PostgreSQL")
}
