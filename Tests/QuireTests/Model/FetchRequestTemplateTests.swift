import Foundation
import Testing

import Quire

@Suite("Fetch request templates")
struct FetchRequestTemplateTests {
    static let exampleFormat =
        "(mainAuthor.firstName like[cd] $FIRST_NAME) AND (mainAuthor.lastName like[cd] $LAST_NAME) AND (publicationDate > $DATE)"

    /// Core Data's example model with its template, and one template without variables.
    static func modelWithTemplates() throws -> ManagedObjectModel {
        let model = LibraryFixture.model()
        let request = FetchRequest<ManagedObject>(entityName: "Publication")
        request.predicate = try QueryPredicate(format: exampleFormat)
        request.sortDescriptors = [SortKey("publicationDate")]
        model.setFetchRequestTemplate(request, forName: "publicationsForAuthorSinceDate")
        let plain = FetchRequest<ManagedObject>(entityName: "Publication")
        plain.predicate = try QueryPredicate(format: "title CONTAINS[c] 'swift' OR year < 2011")
        plain.sortDescriptors = [SortKey("title")]
        model.setFetchRequestTemplate(plain, forName: "swiftOrOld")
        return model
    }

    static func date(year: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(year - 2001) * 31_557_600) }

    @Test func coreDataExampleWorksAsWritten() throws {
        let library = try LibraryFixture(model: try Self.modelWithTemplates())
        let model = library.coordinator.managedObjectModel
        let request = try #require(
            try model.fetchRequestFromTemplate(
                withName: "publicationsForAuthorSinceDate",
                substitutionVariables: ["FIRST_NAME": "ann", "LAST_NAME": "LEE", "DATE": Self.date(year: 2018)]))
        #expect(try library.context.fetch(request).map { $0.value(forKey: "title") as? String }
            == ["Swift Patterns", "Data Stores"])
        // Wildcards and diacritics: `[cd]` folds "Émile" and "O'Brien" matches O*.
        let other = try #require(
            try model.fetchRequestFromTemplate(
                withName: "publicationsForAuthorSinceDate",
                substitutionVariables: ["FIRST_NAME": "e*", "LAST_NAME": "o*", "DATE": Self.date(year: 2000)]))
        #expect(try library.context.fetch(other).map { $0.value(forKey: "title") as? String } == ["ÉCOLE des données"])
        // The predicate compiles to SQL as a whole: see coreDataExamplesPredicateCompilesToSQLAsAWhole.
    }

    @Test func templatesWithoutVariables() throws {
        let library = try LibraryFixture(model: try Self.modelWithTemplates())
        let model = library.coordinator.managedObjectModel
        let template = try #require(model.fetchRequestTemplate(forName: "swiftOrOld"))
        #expect(try library.context.fetch(template).map { $0.value(forKey: "title") as? String }
            == ["Orphan", "Swift Patterns", "ÉCOLE des données"])
        let copy = try #require(try model.fetchRequestFromTemplate(withName: "swiftOrOld", substitutionVariables: [:]))
        copy.fetchLimit = 1
        #expect(try library.context.fetch(copy).count == 1)
        let ids = try #require(
            try model.fetchRequestFromTemplate(withName: "swiftOrOld", substitutionVariables: [:], as: ObjectID.self))
        ids.resultType = .managedObjectID
        #expect(try library.context.fetch(ids).count == 3)
    }

    @Test func missingVariablesAndNamesAreReported() throws {
        let model = try Self.modelWithTemplates()
        #expect(throws: QuireError.self) {
            try model.fetchRequestFromTemplate(
                withName: "publicationsForAuthorSinceDate", substitutionVariables: ["FIRST_NAME": "ann"])
        }
        do {
            _ = try model.fetchRequestFromTemplate(withName: "publicationsForAuthorSinceDate", substitutionVariables: [:])
        } catch let error as QuireError {
            #expect(error.code == .predicateEvaluation)
            #expect(error.message.contains("$"))
        }
        #expect(try model.fetchRequestFromTemplate(withName: "nothing", substitutionVariables: [:]) == nil)
        #expect(model.fetchRequestTemplate(forName: "nothing") == nil)
    }

    @Test func templatesRoundTripThroughTheSerializedModel() throws {
        let model = try Self.modelWithTemplates()
        let grouped = FetchRequestTemplate(entityName: "Publication")
        var full = grouped
        full.resultType = .dictionary
        full.propertiesToFetch = [
            "mainAuthor.lastName",
            .expression(ExpressionDescription(name: "pages", function: .sum, of: "pages", resultType: .integer64)),
        ]
        full.propertiesToGroupBy = ["mainAuthor.lastName"]
        full.havingPredicate = try QueryPredicate(format: "pages > $MIN")
        full.returnsDistinctResults = true
        full.fetchLimit = 5
        full.fetchOffset = 1
        full.fetchBatchSize = 20
        full.includesPendingChanges = false
        full.returnsObjectsAsFaults = false
        full.includesSubentities = false
        full.relationshipKeyPathsForPrefetching = ["mainAuthor"]
        full.sortDescriptors = [SortKey("title", ascending: false, comparator: .localizedStandardCompare)]
        model.setFetchRequestTemplate(full, forName: "full")
        let data = try model.serializedRepresentation()
        let read = try ManagedObjectModel(serializedRepresentation: data)
        #expect(read.fetchRequestTemplatesByName == model.fetchRequestTemplatesByName)
        #expect(try read.serializedRepresentation() == data)
        // A model without templates serializes as before.
        let plain = try LibraryFixture.model().serializedRepresentation()
        #expect(!String(decoding: plain, as: UTF8.self).contains("fetchRequestTemplates"))
        // Templates survive freezing, and stores embed them.
        let library = try LibraryFixture(model: read)
        #expect(library.coordinator.managedObjectModel.fetchRequestTemplate(forName: "full")?.fetchLimit == 5)
    }

    @Test func malformedTemplatesAreRefused() throws {
        let model = try Self.modelWithTemplates()
        var text = String(decoding: try model.serializedRepresentation(), as: UTF8.self)
        text = text.replacingOccurrences(of: "publicationDate > $DATE", with: "publicationDate >> $DATE")
        #expect(throws: QuireError.self) { try ManagedObjectModel(serializedRepresentation: Data(text.utf8)) }
    }

    @Test func templatesOfFrozenModelsCannotChange() async throws {
        await #expect(processExitsWith: .failure) {
            let model = LibraryFixture.model()
            model.setFetchRequestTemplate(FetchRequestTemplate(entityName: "Author"), forName: "all")
            _ = try? PersistentStoreCoordinator(managedObjectModel: model)
            model.fetchRequestTemplate(forName: "all")?.fetchLimit = 3
        }
        await #expect(processExitsWith: .failure) {
            let model = LibraryFixture.model()
            _ = try? PersistentStoreCoordinator(managedObjectModel: model)
            model.setFetchRequestTemplate(FetchRequestTemplate(entityName: "Author"), forName: "all")
        }
    }
}
