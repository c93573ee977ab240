import Foundation
import Testing

import Quire

@Suite("Sort keys")
struct SortKeyTests {
    private func names(_ people: [[String: Any]]) -> [String] {
        people.map { $0["name"] as? String ?? "nil" }
    }

    @Test("Creates keys with Core Data's defaults and selector names")
    func defaults() {
        let key = SortKey("name")
        #expect(key.keyPath == "name")
        #expect(key.ascending)
        #expect(key.comparator == .compare)
        #expect(key.reversed == SortKey("name", ascending: false))
        #expect(SortKey.Comparator(selectorName: "localizedStandardCompare:") == .localizedStandardCompare)
        #expect(SortKey.Comparator.caseInsensitiveCompare.selectorName == "caseInsensitiveCompare:")
        #expect(SortKey.Comparator(selectorName: "compare") == nil)
    }

    @Test("Sorts by several keys, nil first ascending and last descending")
    func multipleKeys() throws {
        let people: [[String: Any]] = [
            ["name": "Cleo", "age": 30], ["name": "ann", "age": 41], ["name": "Bob", "age": 30],
            ["name": "Dan"], ["name": "Eve", "age": 25.5],
        ]
        #expect(
            names(try people.sorted(by: [SortKey("age"), SortKey("name")])) == ["Dan", "Eve", "Bob", "Cleo", "ann"])
        #expect(
            names(try people.sorted(by: [SortKey("age", ascending: false), SortKey("name")]))
                == ["ann", "Bob", "Cleo", "Eve", "Dan"]
        )
        #expect(names(try people.sorted(by: [SortKey("name")])) == ["Bob", "Cleo", "Dan", "Eve", "ann"])
        #expect(
            names(try people.sorted(by: [SortKey("name", comparator: .caseInsensitiveCompare)]))
                == ["ann", "Bob", "Cleo", "Dan", "Eve"]
        )
        #expect(names(try people.sorted(by: [])) == ["Cleo", "ann", "Bob", "Dan", "Eve"])
    }

    @Test("Orders file names as the Finder does")
    func localizedStandard() throws {
        let files: [[String: Any]] = [
            "file10.txt", "File2.txt", "file1.txt", "file01.txt", "éclair", "Eclair", "eclair", "file2.txt",
        ]
        .map { ["name": $0] }
        #expect(
            names(try files.sorted(by: [SortKey("name", comparator: .localizedStandardCompare)]))
                == ["eclair", "Eclair", "éclair", "file01.txt", "file1.txt", "file2.txt", "File2.txt", "file10.txt"]
        )
    }

    @Test("Keeps equal elements in their order")
    func stable() throws {
        let items: [[String: Any]] = (0..<50).map { ["name": "n\($0)", "group": $0 % 3] }
        let sorted = try items.sorted(by: [SortKey("group")])
        let expected = (0..<3).flatMap { group in (0..<50).filter { $0 % 3 == group }.map { "n\($0)" } }
        #expect(names(sorted) == expected)
    }

    @Test("Compares objects through key paths and aggregates")
    func keyPaths() throws {
        let graph = PredicateTestGraph()
        let authors = [graph.ann, graph.bob, graph.chloe]
        let byPublications = try authors.sorted(by: [SortKey("publications.@count", ascending: false)])
        #expect(
            byPublications.map { $0.attributes["firstName"] } == [.string("Ann"), .string("Bob"), .string("Chloé")])
        let byCity = try authors.sorted(by: [SortKey("address.city")])
        #expect(byCity.map { $0.attributes["firstName"] } == [.string("Bob"), .string("Chloé"), .string("Ann")])
        #expect(try SortKey.compare(graph.ann, graph.bob, by: [SortKey("age")]) == .orderedDescending)
        #expect(try SortKey.compare(graph.ann, graph.ann, by: [SortKey("age")]) == .orderedSame)
        #expect(
            try SortKey.compare(graph.bob, graph.chloe, by: [SortKey("active"), SortKey("age")]) == .orderedAscending)
    }

    @Test("Rejects key paths that do not yield values")
    func collections() throws {
        let graph = PredicateTestGraph()
        let error = #expect(throws: QuireError.self) {
            try SortKey.compare(graph.ann, graph.bob, by: [SortKey("publications.year")])
        }
        #expect(error?.code == .predicateEvaluation)
        #expect(
            error?.message
                == "The sort key 'publications.year' yields a collection, not a value; "
                + "sort by an aggregate such as @count."
        )
        #expect(throws: QuireError.self) { try SortKey.compare(graph.ann, graph.bob, by: [SortKey("address")]) }
        #expect(throws: QuireError.self) { try SortKey.compare(graph.ann, graph.bob, by: [SortKey("a..b")]) }
    }

    @Test("Orders values of different kinds by kind")
    func mixedKinds() {
        let values: [AttributeValue] = [
            .uri(URL(string: "a:b")!), .string("x"), .null, .date(Date()), .integer(1), .data(Data()),
        ]
        let sorted = values.sorted { SortKey.Comparator.compare.compare($0, $1) == .orderedAscending }
        #expect(sorted.map(\.kindName) == ["null", "integer", "string", "date", "data", "uri"])
    }
}

extension AttributeValue {
    fileprivate var kindName: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .string: return "string"
        case .date: return "date"
        case .data: return "data"
        case .uri: return "uri"
        default: return "other"
        }
    }
}
