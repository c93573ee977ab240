import Foundation

import Quire
import QuirePostgres

/// A small library in a real SQLite store: authors with addresses, publications with reviews, tags
/// (many-to-many) and favorites (to-many without inverse), with values of every kind, nils, accents, case
/// variants and wildcard characters. Core Data's fetch-template example runs on it too (`Publication` with
/// `title`, `publicationDate` and `mainAuthor`; `Author` with `firstName`, `lastName` and `publications`).
///
/// Authors, by `firstName`:
/// - Ann Lee, 41, rating 4.5, active, Zürich; publications Swift Patterns (2019; reviews 5, 4), Data Stores
///   (2021; review 2), The Art of SQL (2015); tags Swift, Databases; favorite Über Datenbanken.
/// - Bob Müller, 29, 3.0, inactive, no address; Über Datenbanken (2022; review 5); favorites Swift Patterns
///   and ÉCOLE des données.
/// - Chloé Ångström, 35, no rating, active, Paris; no publications; tag Swift.
/// - dan (no last name), 30, 5.0, inactive, Oslo (no country); `a*b?c\d` (no year; reviews nil and 3); swift-lang.
/// - Émile O'Brien, 52, 2.5, active, São Paulo; ÉCOLE des données (2010; reviews 1, 1, 1); Databases, swift-lang.
/// - ANN lee, 41, 4.5, active unknown, no address, nickname with CRLF, external photo.
/// - Zoë Ünal, no age, 1.0, active; zeta (2023; reviews 5, 5); Swift.
/// - Publication Orphan (2000) has no author.
final class LibraryFixture {
    let folder: TemporaryFolder
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext
    let store: PersistentStore
    var authors: [String: ManagedObject] = [:]
    var publications: [String: ManagedObject] = [:]
    var addresses: [String: ManagedObject] = [:]
    var tags: [String: ManagedObject] = [:]

    static let uuidAnn = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let uuidBob = UUID(uuidString: "0A3E2B51-2F4C-4C3B-9E1D-5F5B2C7A9D10")!

    static func model() -> ManagedObjectModel {
        let photo = AttributeDescription(name: "photo", type: .binaryData)
        photo.allowsExternalBinaryDataStorage = true
        let notes = AttributeDescription(name: "notes", type: .string)
        notes.isTransient = true
        let author = EntityDescription(name: "Author", properties: [
            AttributeDescription(name: "firstName", type: .string),
            AttributeDescription(name: "lastName", type: .string),
            AttributeDescription(name: "age", type: .integer64),
            AttributeDescription(name: "rating", type: .double),
            AttributeDescription(name: "active", type: .boolean),
            AttributeDescription(name: "born", type: .date),
            AttributeDescription(name: "score", type: .float),
            AttributeDescription(name: "balance", type: .decimal),
            AttributeDescription(name: "uuid", type: .uuid),
            AttributeDescription(name: "website", type: .uri),
            AttributeDescription(name: "avatar", type: .binaryData),
            photo,
            AttributeDescription(name: "nickname", type: .string),
            notes,
            RelationshipDescription(name: "address", destination: "Address", inverse: "resident"),
            RelationshipDescription(name: "publications", destination: "Publication", toMany: true, inverse: "mainAuthor"),
            RelationshipDescription(name: "tags", destination: "Tag", toMany: true, inverse: "authors"),
            RelationshipDescription(name: "favorites", destination: "Publication", toMany: true),
        ])
        let address = EntityDescription(name: "Address", properties: [
            AttributeDescription(name: "city", type: .string),
            AttributeDescription(name: "zip", type: .string),
            AttributeDescription(name: "country", type: .string),
            RelationshipDescription(name: "resident", destination: "Author", inverse: "address"),
        ])
        let publication = EntityDescription(name: "Publication", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "year", type: .integer64),
            AttributeDescription(name: "pages", type: .integer32),
            AttributeDescription(name: "price", type: .double),
            AttributeDescription(name: "publicationDate", type: .date),
            RelationshipDescription(name: "mainAuthor", destination: "Author", inverse: "publications"),
            RelationshipDescription(name: "reviews", destination: "Review", toMany: true, inverse: "publication"),
        ])
        let review = EntityDescription(name: "Review", properties: [
            AttributeDescription(name: "stars", type: .integer16),
            RelationshipDescription(name: "publication", destination: "Publication", inverse: "reviews"),
        ])
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "authors", destination: "Author", toMany: true, inverse: "tags"),
        ])
        return ManagedObjectModel(entities: [author, address, publication, review, tag])
    }

    /// The attribute that names objects of an entity in test output.
    static func nameKey(_ entity: String) -> String {
        switch entity {
        case "Author": return "firstName"
        case "Publication": return "title"
        case "Address": return "city"
        case "Tag": return "name"
        default: return "stars"
        }
    }

    /// The library in an SQLite store (or a store of `type`) in a new folder, or in the PostgreSQL store at
    /// `postgres`.
    init(model: ManagedObjectModel = LibraryFixture.model(), postgres: URL? = nil, type: StoreType = .sqlite) throws {
        folder = try TemporaryFolder()
        if type != .sqlite && postgres == nil {
            coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : folder.file("Library.store"))
            context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
        } else if let postgres {
            coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .postgres, at: postgres)
            context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
        } else {
            (coordinator, context) = try Fixtures.stack(model, at: folder.file("Library.sqlite"))
        }
        guard let store = coordinator.persistentStores.first else { throw QuireError(.persistentStoreOpen, "no store") }
        self.store = store
        try populate()
        try context.save()
    }

    private func insert(_ entity: String, _ values: [String: Any?]) -> ManagedObject {
        guard let description = coordinator.managedObjectModel.entitiesByName[entity] else {
            preconditionFailure("no entity \(entity)")
        }
        let object = ManagedObject(entity: description, insertInto: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    private static func date(_ seconds: Double) -> Date { Date(timeIntervalSinceReferenceDate: seconds) }

    private func populate() throws {
        for name in ["Swift", "Databases", "swift-lang"] { tags[name] = insert("Tag", ["name": name]) }
        for (city, zip, country) in [
            ("Zürich", "8001", "CH"), ("Paris", "75001", "FR"), ("Oslo", "0150", nil), ("São Paulo", "01000", "BR"),
        ] as [(String, String, String?)] {
            addresses[city] = insert("Address", ["city": city, "zip": zip, "country": country])
        }
        func publication(
            _ title: String, _ year: Int?, _ pages: Int, _ price: Double?, _ stars: [Int?]
        ) -> ManagedObject {
            let object = insert("Publication", [
                "title": title, "year": year, "pages": pages, "price": price,
                "publicationDate": year.map { Self.date(Double($0 - 2001) * 31_557_600 + 86_400 * 40) },
            ])
            for star in stars {
                let review = insert("Review", ["stars": star])
                review.setValue(object, forKey: "publication")
            }
            publications[title] = object
            return object
        }
        let p1 = publication("Swift Patterns", 2019, 320, 39.5, [5, 4])
        let p2 = publication("Data Stores", 2021, 210, 25, [2])
        let p3 = publication("The Art of SQL", 2015, 480, 49.99, [])
        let p4 = publication("Über Datenbanken", 2022, 150, 19.0, [5])
        let p5 = publication("a*b?c\\d", nil, 0, nil, [nil, 3])
        let p6 = publication("ÉCOLE des données", 2010, 99, 9.99, [1, 1, 1])
        let p7 = publication("zeta", 2023, 10, 0.0, [5, 5])
        _ = publication("Orphan", 2000, 1, 1.0, [])

        func author(
            _ values: [String: Any?], address: String?, publications: [ManagedObject], tags: [String],
            favorites: [ManagedObject] = []
        ) {
            let object = insert("Author", values)
            if let address { object.setValue(addresses[address], forKey: "address") }
            object.setValue(Set(publications), forKey: "publications")
            object.setValue(Set(tags.compactMap { self.tags[$0] }), forKey: "tags")
            object.setValue(Set(favorites), forKey: "favorites")
            if let name = values["firstName"] as? String { authors[name] = object }
        }
        author(
            [
                "firstName": "Ann", "lastName": "Lee", "age": 41, "rating": 4.5, "active": true,
                "born": Self.date(-600_000_000), "score": Float(1.5), "balance": Decimal(string: "100.25"),
                "uuid": Self.uuidAnn, "website": URL(string: "https://ann.example.com"), "avatar": Data([1, 2, 3]),
                "notes": "likes tea",
            ], address: "Zürich", publications: [p1, p2, p3], tags: ["Swift", "Databases"], favorites: [p4])
        author(
            [
                "firstName": "Bob", "lastName": "Müller", "age": 29, "rating": 3.0, "active": false,
                "born": Self.date(-300_000_000), "score": Float(2.25), "balance": Decimal(0), "uuid": Self.uuidBob,
                "website": URL(string: "https://bob.example.org"), "avatar": Data([9]), "nickname": "bobby",
            ], address: nil, publications: [p4], tags: [], favorites: [p1, p6])
        author(
            ["firstName": "Chloé", "lastName": "Ångström", "age": 35, "active": true, "born": Self.date(-450_000_000)],
            address: "Paris", publications: [], tags: ["Swift"])
        author(
            ["firstName": "dan", "age": 30, "rating": 5.0, "active": false, "nickname": "Dan*?", "score": Float(-1)],
            address: "Oslo", publications: [p5], tags: ["swift-lang"])
        author(
            [
                "firstName": "Émile", "lastName": "O'Brien", "age": 52, "rating": 2.5, "active": true,
                "nickname": "100% sure_thing", "born": Self.date(-900_000_000), "balance": Decimal(string: "-3.5"),
            ], address: "São Paulo", publications: [p6], tags: ["Databases", "swift-lang"])
        author(
            [
                "firstName": "ANN", "lastName": "lee", "age": 41, "rating": 4.5, "nickname": "line1\r\nline2",
                "photo": Data(repeating: 7, count: 10),
            ], address: nil, publications: [], tags: [])
        author(
            ["firstName": "Zoë", "lastName": "Ünal", "rating": 1.0, "active": true, "nickname": "Zoë"],
            address: nil, publications: [p7], tags: ["Swift"])
    }

    /// The names (see ``nameKey(_:)``) of objects, sorted.
    static func names(_ objects: [ManagedObject]) -> [String] {
        objects.map { object in
            let key = nameKey(object.entity.name)
            return (object.value(forKey: key)).map { "\($0)" } ?? "nil"
        }.sorted()
    }
}
