import Foundation
import Quire

// The Swift examples of the Predicates article's sections on functions, Swift comparators and dictionary
// results of expressions, word for word (see ArticleExamples); never called.
enum ExpressionArticleExamples {
    final class Book: ManagedObject {
        var published: Date { value(forKey: "published") as? Date ?? .distantPast }
    }

    static func functions() throws {
        let raise = try QueryPredicate(format: "salary * 12 > %d AND lowercase:(lastName) BEGINSWITH %@", 100_000, "m")
        let recent = try QueryPredicate(format: "hired > now() - 86400 * 30")
        let yearly = try QueryExpression(format: "sum:(employees.salary) * 12")
        _ = (raise, recent, yearly)
    }

    static func comparators(request: FetchRequest<ManagedObject>) {
        let byLength = SortKey("title") { a, b in
            let x = (a as? String)?.count ?? 0, y = (b as? String)?.count ?? 0
            return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        }
        let newestFirst = SortKey(using: KeyPathComparator(\Book.published, order: .reverse))
        request.sortDescriptors = [byLength, SortKey("author.name", using: String.StandardComparator.lexical)]
        _ = newestFirst
    }

    static func dictionaryExpressions() throws {
        let request = FetchRequest<[String: Any]>(entityName: "Employee")
        request.propertiesToFetch = [
            .expression(try ExpressionDescription(name: "team", format: "lowercase:(department.name)", resultType: .string)),
            .expression(try ExpressionDescription(name: "yearly", format: "sum:(salary * 12)", resultType: .integer64)),
            .expression(ExpressionDescription(name: "middle", function: .median, of: "salary", resultType: .double)),
        ]
        request.propertiesToGroupBy = ["team"]
        request.sortDescriptors = [SortKey("team")]
    }
}
