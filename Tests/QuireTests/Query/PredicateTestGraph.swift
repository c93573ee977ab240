import Foundation

import Quire

/// An object of the test graph: attributes, to-one and to-many relationships, read by key.
final class PredicateTestObject: PredicateEvaluable, CustomStringConvertible {
    let entity: String
    var attributes: [String: AttributeValue]
    var toOne: [String: PredicateTestObject] = [:]
    var toMany: [String: [PredicateTestObject]] = [:]

    init(_ entity: String, _ attributes: [String: AttributeValue]) {
        self.entity = entity
        self.attributes = attributes
    }

    func predicateValue(forKey key: String) throws -> PredicateValue {
        if let value = attributes[key] { return .value(value) }
        if let object = toOne[key] { return .object(object) }
        if let objects = toMany[key] { return .collection(objects.map { .object($0) }) }
        throw QuireError(
            .predicateEvaluation, "\(entity) has no key '\(key)'.", context: .init(entity: entity, key: key))
    }

    var predicateObjectID: ObjectID? { nil }

    var description: String {
        "\(entity)(\(attributes["firstName"] ?? attributes["title"] ?? attributes["name"] ?? .null))"
    }
}

/// A small graph of authors with publications, reviews, tags and addresses.
///
/// - Ann Lee: 41, rating 4.5, active, Zürich 8001 CH, tags Swift and Databases, aliases annie and A. Lee,
///   scores 3, 5, 8; publications (year, pages, price): Swift Patterns (2019, 320, 39.5; reviews 5, 4),
///   Data Stores (2021, 210, 25; review 2), The Art of SQL (2015, 480, 49.99).
/// - Bob Müller: 29, rating 3.0, not active, no address, no tags, alias bobby;
///   Über Datenbanken (2022, 150, 19.0; review 5).
/// - Chloé Ångström: 35, no rating, active, Paris 75001 FR, tag Swift, no publications.
/// - Dana (a dictionary): 30, Oslo, pets cat (3) and dog (5).
struct PredicateTestGraph {
    let ann: PredicateTestObject
    let bob: PredicateTestObject
    let chloe: PredicateTestObject
    /// A dictionary-backed person.
    let dana: [String: Any]

    static let annUUID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    init() {
        let swift = PredicateTestObject("Tag", ["name": .string("Swift")])
        let databases = PredicateTestObject("Tag", ["name": .string("Databases")])

        func review(_ stars: Int64) -> PredicateTestObject {
            PredicateTestObject("Review", ["stars": .integer(stars)])
        }
        func publication(
            _ title: String, _ year: Int64, _ pages: Int64, _ price: AttributeValue,
            tags: [PredicateTestObject], reviews: [PredicateTestObject]
        ) -> PredicateTestObject {
            let object = PredicateTestObject(
                "Publication",
                ["title": .string(title), "year": .integer(year), "pages": .integer(pages), "price": price]
            )
            object.toMany["tags"] = tags
            object.toMany["reviews"] = reviews
            return object
        }

        let p1 = publication(
            "Swift Patterns", 2019, 320, .double(39.5), tags: [swift], reviews: [review(5), review(4)])
        let p2 = publication("Data Stores", 2021, 210, .integer(25), tags: [databases], reviews: [review(2)])
        let p3 = publication("The Art of SQL", 2015, 480, .double(49.99), tags: [databases], reviews: [])
        let p4 = publication("Über Datenbanken", 2022, 150, .double(19.0), tags: [], reviews: [review(5)])

        ann = PredicateTestObject(
            "Author",
            [
                "firstName": .string("Ann"), "lastName": .string("Lee"), "age": .integer(41), "rating": .double(4.5),
                "active": .boolean(true), "email": .string("ann@example.com"), "nickname": .null,
                "bio": .string("Writes about Swift and SQL."),
                "born": .date(Date(timeIntervalSinceReferenceDate: -600_000_000)),
                "score": .float(1.5), "balance": .decimal(Decimal(string: "100.25")!),
                "uuid": .uuid(Self.annUUID), "website": .uri(URL(string: "https://ann.example.com")!),
                "avatar": .data(Data([1, 2, 3])), "size": .integer(7),
            ]
        )
        ann.toOne["address"] = PredicateTestObject(
            "Address", ["city": .string("Zürich"), "zip": .string("8001"), "country": .string("CH")]
        )
        ann.toMany["publications"] = [p1, p2, p3]
        ann.toMany["tags"] = [swift, databases]

        bob = PredicateTestObject(
            "Author",
            [
                "firstName": .string("Bob"), "lastName": .string("Müller"), "age": .integer(29),
                "rating": .double(3.0),
                "active": .boolean(false), "nickname": .string("bobby"), "address": .null,
                "born": .date(Date(timeIntervalSinceReferenceDate: -300_000_000)), "score": .float(2.25),
            ]
        )
        bob.toMany["publications"] = [p4]
        bob.toMany["tags"] = []

        chloe = PredicateTestObject(
            "Author",
            [
                "firstName": .string("Chloé"), "lastName": .string("Ångström"), "age": .integer(35), "rating": .null,
                "active": .boolean(true), "born": .date(Date(timeIntervalSinceReferenceDate: -450_000_000)),
            ]
        )
        chloe.toOne["address"] = PredicateTestObject(
            "Address", ["city": .string("Paris"), "zip": .string("75001"), "country": .string("FR")]
        )
        chloe.toMany["publications"] = []
        chloe.toMany["tags"] = [swift]

        for publication in [p1, p2, p3] { publication.toOne["author"] = ann }
        p4.toOne["author"] = bob

        dana = [
            "name": "Dana", "age": 30,
            "pets": [["kind": "cat", "age": 3], ["kind": "dog", "age": 5]] as [[String: Any]],
            "address": ["city": "Oslo"] as [String: Any],
        ]
    }

    /// The subject a test case names: `ann`, `bob`, `chloe`, `dana`, or a plain value (`int5`, `hello`, `nil`).
    func subject(_ name: String) -> any PredicateEvaluable {
        switch name {
        case "ann": return AliasingObject(base: ann, aliases: ["annie", "A. Lee"], scores: [3, 5, 8])
        case "bob": return AliasingObject(base: bob, aliases: ["bobby"], scores: [])
        case "chloe": return AliasingObject(base: chloe, aliases: [], scores: [10])
        case "dana": return dana
        case "int5": return AttributeValue.integer(5)
        case "hello": return AttributeValue.string("hello")
        case "nil": return AttributeValue.null
        default: return AttributeValue.null
        }
    }
}

/// Adds collections of plain values (`aliases`, `scores`) to an object, as a transformable array would.
struct AliasingObject: PredicateEvaluable {
    let base: PredicateTestObject
    let aliases: [String]
    let scores: [Int64]

    func predicateValue(forKey key: String) throws -> PredicateValue {
        switch key {
        case "aliases": return .collection(aliases.map { .value(.string($0)) })
        case "scores": return .collection(scores.map { .value(.integer($0)) })
        default: return try base.predicateValue(forKey: key)
        }
    }

    var predicateObjectID: ObjectID? { nil }
}
