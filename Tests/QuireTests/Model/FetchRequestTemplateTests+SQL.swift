// Asks the SQLite store whether a template's predicate compiles to SQL (the backend's canEvaluate), which has no public face: uses QuireCore's package API.
import Foundation
import Testing

import Quire
import QuireCore

extension FetchRequestTemplateTests {
    @Test func coreDataExamplesPredicateCompilesToSQLAsAWhole() throws {
        let library = try LibraryFixture(model: try Self.modelWithTemplates())
        let model = library.coordinator.managedObjectModel
        let request = try #require(
            try model.fetchRequestFromTemplate(
                withName: "publicationsForAuthorSinceDate",
                substitutionVariables: ["FIRST_NAME": "ann", "LAST_NAME": "LEE", "DATE": Self.date(year: 2018)]))
        let entity = try #require(model.entitiesByName["Publication"])
        #expect(library.store.backend.canEvaluate(try #require(request.predicate), for: entity))
    }
}
