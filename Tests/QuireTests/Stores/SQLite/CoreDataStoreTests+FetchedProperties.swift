import Foundation
import Testing

import Quire

/// Fetched properties of a model Core Data cached in its store (CoreDataPlus `SampleModel2_V1`, model built in code):
/// `Author.feedbacks` (`authorAlias == $FETCH_SOURCE.alias`) and `Author.favFeedbacks` (also
/// `comment CONTAINS[c] $FETCHED_PROPERTY.userInfo.search`, with `search` = "great" in the property's user info).
extension CoreDataStoreTests {
    @Test func fetchedPropertiesOfACachedModelFindWhatSQLiteFinds() throws {
        let url = try copy("CoreDataPlus/SampleModel2_V1.sqlite")
        let (model, _) = try ManagedObjectModel.forStore(at: url, type: .sqlite, modelFile: nil)
        let author = try #require(model.entitiesByName["Author"])
        #expect(Set(author.fetchedPropertiesByName.keys) == ["feedbacks", "favFeedbacks"])
        #expect(author.fetchedProperty(named: "favFeedbacks")?.userInfo == ["search": "great"])
        #expect(author.fetchedProperty(named: "feedbacks")?.sortKeys == [.init(keyPath: "rating", ascending: true, selector: "compare:")])
        let (_, context) = try Fixtures.stack(model, at: url)
        let authors = try context.fetch(FetchRequest<ManagedObject>(entityName: "Author"))
        #expect(authors.count == 2)
        for author in authors {
            let alias = try #require(author.value(forKey: "alias") as? String)
            let all = try sqlite3(url, "SELECT COUNT(*) FROM ZFEEDBACK WHERE ZAUTHORALIAS = '\(alias)'")
            let great = try sqlite3(url, "SELECT COUNT(*) FROM ZFEEDBACK WHERE ZAUTHORALIAS = '\(alias)' AND ZCOMMENT LIKE '%great%'")
            let feedbacks = try author.fetchedValue(forKey: "feedbacks")
            #expect(String(feedbacks.count) == all, "\(alias)")
            #expect(feedbacks.allSatisfy { $0.entity.name == "Feedback" && $0.value(forKey: "authorAlias") as? String == alias })
            // In the order of the request's sort descriptor, rating ascending.
            let ratings = feedbacks.compactMap { $0.value(forKey: "rating") as? Double }
            #expect(ratings.count == feedbacks.count && ratings == ratings.sorted())
            #expect(String(try author.fetchedValue(forKey: "favFeedbacks").count) == great, "\(alias)")
        }
        #expect(try sqlite3(url, "SELECT COUNT(*) FROM ZFEEDBACK WHERE ZCOMMENT LIKE '%great%'") != "0")
    }
}
