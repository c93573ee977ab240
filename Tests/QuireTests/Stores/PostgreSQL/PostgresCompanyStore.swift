import Foundation
import Testing

import Quire
import QuirePostgres
import QuireTestSupport

/// A PostgreSQL store of the company model for the tests of this folder: Research, Ada (an employee of
/// Research) and Dee (a manager).
enum PostgresCompanyStore {
    /// A coordinator of `model` (the company model unless given) with the store at `url` added, and a context on it.
    static func stack(_ url: URL, model: ManagedObjectModel = Fixtures.companyModel()) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// Saves Research, Ada and Dee (with `deeLevel`, when given) into the store at `url` and removes the store.
    static func save(at url: URL, deeLevel: Int16? = nil) throws {
        let (coordinator, context) = try stack(url)
        let model = coordinator.managedObjectModel
        let research = ManagedObject(entity: try #require(model.entitiesByName["Department"]), insertInto: context)
        research.setValue("Research", forKey: "name")
        let ada = ManagedObject(entity: try #require(model.entitiesByName["Employee"]), insertInto: context)
        ada.setValue("Ada", forKey: "name")
        ada.setValue(research, forKey: "department")
        let dee = ManagedObject(entity: try #require(model.entitiesByName["Manager"]), insertInto: context)
        dee.setValue("Dee", forKey: "name")
        if let deeLevel { dee.setValue(deeLevel, forKey: "level") }
        try context.save()
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }
}
