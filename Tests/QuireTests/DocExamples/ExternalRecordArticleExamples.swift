import Foundation
import Quire

// The Swift examples of the Search indexing article's section on external records, word for word (see
// ArticleExamples); never called.
enum ExternalRecordArticleExamples {
    static func options(coordinator: PersistentStoreCoordinator, storeURL: URL) throws {
        var options = StoreOptions()
        options.externalRecordsDirectory = URL(fileURLWithPath: "/home/ann/Notes/Records")
        options.externalRecordExtension = "quirerecord"
        options.externalRecordsFileFormat = .xml          // the default; .binary for binary property lists
        try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
    }

    static func hit(_ hit: URL, coordinator: PersistentStoreCoordinator, context: ManagedObjectContext) {
        if let uri = SearchMetadata.objectURI(forIndexedFile: hit),
            let id = coordinator.managedObjectID(forURIRepresentation: uri) {
            let note = context.object(with: id)
            print(note.value(forKey: "title") ?? "")
        }
    }

    static func record(_ hit: URL, storeModelURL: URL) throws {
        let record = try ExternalRecord(at: hit)
        let model = try ManagedObjectModel(contentsOf: record.modelURL ?? storeModelURL)
        print(record.entityName, record.storeURL?.path ?? "", try record.values()["title"] ?? "")
        _ = model
    }
}
