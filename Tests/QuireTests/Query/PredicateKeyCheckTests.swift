import Foundation
import Testing

import Quire
import QuireTestSupport

/// A predicate key the entity lacks is refused when the fetch is made, on an empty store of every kind too
/// (issue 14, item 15).
@Suite struct PredicateKeyCheckTests {
    static let types: [StoreType] = [.sqlite, .xml, .binary, .inMemory]

    @Test(arguments: types) func anUnknownPredicateKeyIsRefusedOnAnEmptyStore(_ type: StoreType) throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: DocumentFixtures.model())
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : folder.file("Empty.store"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for format in ["titel == 'x'", "folder.nmae == 'Inbox'", "ANY tags.label == 'a'", "SUBQUERY(tags, $t, $t.nam == 'a').@count > 0"] {
                let request = FetchRequest<ManagedObject>(entityName: "Note")
                request.predicate = try QueryPredicate(format: format)
                let error = expectQuireError(.invalidFetchRequest) { try context.fetch(request) }
                #expect(error?.context.key != nil && error?.context.entity != nil, "\(format)")
                expectQuireError(.invalidFetchRequest) { try context.count(for: request) }
            }
            let unknown = FetchRequest<ManagedObject>(entityName: "Note")
            unknown.predicate = try QueryPredicate(format: "titel == 'x'")
            let error = expectQuireError(.invalidFetchRequest) { try context.fetch(unknown) }
            #expect(error?.context.key == "titel")
            #expect(error?.context.entity == "Note")
            // Keys the model has, through relationships and collection operators, still fetch.
            for format in [
                "title == 'x'", "folder.name == 'Inbox'", "ANY tags.name == 'a'", "tags.@count > 0",
                "SUBQUERY(tags, $t, $t.name == 'a').@count > 0", "SELF == nil",
            ] {
                let request = FetchRequest<ManagedObject>(entityName: "Note")
                request.predicate = try QueryPredicate(format: format)
                #expect(try context.fetch(request).isEmpty, "\(format)")
            }
        }
    }
}
