import Foundation
import Testing

import Quire

/// Issue 29: what a Core Data port meets, item by item (merge policies, classes bound by the model, managed
/// properties in extensions, casts through `NSNumber`, the behaviour bugs, the app-shaped paths). Every test runs on
/// a real SQLite store.
@Suite struct PortingFromCoreDataTests {
    /// Shelves hold books (to-many, required, no minimum); a book has a unique `isbn`, a `pages` count, a
    /// `rating`, a `price`, a `weight`, an `inPrint` flag, an `edition` (Integer 16), a `copies` count (Integer 32)
    /// and a transformable `tags` with a transformer name nobody registers.
    static func model() -> ManagedObjectModel {
        let shelf = EntityDescription(name: "Shelf", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "bookCount", type: .integer64, defaultValue: 0),
            RelationshipDescription(name: "books", destination: "Book", toMany: true, inverse: "shelf"),
        ])
        shelf.managedObjectClassName = "SomeAppModule.PortedShelf"
        shelf.properties.compactMap { $0 as? RelationshipDescription }.forEach { $0.isOptional = false }
        let tags = AttributeDescription(name: "tags", type: .transformable)
        tags.valueTransformerName = "PortingTestsUnregisteredTransformer"
        let book = EntityDescription(name: "Book", properties: [
            AttributeDescription(name: "isbn", type: .string),
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "pages", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "edition", type: .integer16, defaultValue: 1),
            AttributeDescription(name: "copies", type: .integer32, defaultValue: 0),
            AttributeDescription(name: "rating", type: .double, defaultValue: 0.0),
            AttributeDescription(name: "weight", type: .float, defaultValue: Float(0)),
            AttributeDescription(name: "price", type: .decimal),
            AttributeDescription(name: "inPrint", type: .boolean, defaultValue: true),
            tags,
            RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "books"),
        ])
        book.managedObjectClassName = "PortedBook"
        book.uniquenessConstraints = [["isbn"]]
        return ManagedObjectModel(entities: [shelf, book])
    }

    let folder: TemporaryFolder
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext

    init() throws {
        // One line per class, as an app does at launch: under its qualified and bare names.
        ManagedObjectClassRegistry.register(PortedShelf.self, PortedBook.self)
        folder = try TemporaryFolder()
        coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("Books.sqlite"))
        context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
    }

    func insertBook(_ isbn: String, pages: Int64 = 100, on shelf: PortedShelf? = nil) -> PortedBook {
        let book: PortedBook = context.insertPorted()
        book.isbn = isbn
        book.pages = pages
        book.shelf = shelf
        return book
    }

    // MARK: 1. Merge policies

    /// A subclass overriding both resolve methods, recording what it was given.
    final class RecordingPolicy: MergePolicy {
        var optimistic: [(pagesBefore: Int?, pagesMine: Int?, pagesStore: Int?, source: ManagedObject)] = []
        var constraintObjects: [(database: ManagedObject?, conflicting: [ManagedObject])] = []

        override func resolve(optimisticLockingConflicts list: [MergeConflict]) throws {
            for conflict in list {
                optimistic.append((
                    conflict.cachedSnapshot?["pages"] as? Int, conflict.objectSnapshot?["pages"] as? Int,
                    conflict.persistedSnapshot?["pages"] as? Int, conflict.sourceObject))
            }
            try super.resolve(optimisticLockingConflicts: list)
            // After super, the object holds the merged values: derive another one from them.
            for conflict in list {
                let book = try #require(conflict.sourceObject as? PortedBook)
                book.title = "pages: \(book.pages)"
            }
        }

        override func resolve(constraintConflicts list: [ConstraintConflict]) throws {
            for conflict in list {
                constraintObjects.append((conflict.databaseObject, conflict.conflictingObjects))
                #expect(conflict.constraintValues["isbn"] as? String == "978-1")
            }
            try super.resolve(constraintConflicts: list)
        }
    }

    @Test func aMergePolicySubclassResolvesOptimisticLockingConflicts() throws {
        let book = insertBook("978-1", pages: 100)
        try context.save()
        let other = ManagedObjectContext()
        other.persistentStoreCoordinator = coordinator
        let theirs = try #require(try other.existingObject(with: book.objectID) as? PortedBook)
        theirs.pages = 200
        try other.save()

        let policy = RecordingPolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        context.mergePolicy = policy
        book.pages = 300
        try context.save()
        #expect(policy.optimistic.count == 1)
        let seen = try #require(policy.optimistic.first)
        #expect(seen.pagesBefore == 100 && seen.pagesMine == 300 && seen.pagesStore == 200)
        #expect(seen.source === book)
        // Object trump kept 300, and what the override set after super was saved with it.
        other.refresh(theirs, mergeChanges: false)
        #expect(theirs.pages == 300 && theirs.title == "pages: 300")
    }

    @Test func aMergePolicySubclassSeesConstraintConflictsWithTheirObjects() throws {
        _ = insertBook("978-1", pages: 100)
        try context.save()
        let policy = RecordingPolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        context.mergePolicy = policy
        let duplicate = insertBook("978-1", pages: 250)
        try context.save()
        let seen = try #require(policy.constraintObjects.first)
        #expect(seen.conflicting.first === duplicate)
        let stored = try #require(seen.database as? PortedBook)
        #expect(stored.pages == 250 && duplicate.managedObjectContext == nil)
    }

    @Test func theStandardPoliciesAreInstancesWithCoreDataNames() {
        #expect(MergePolicy.allCases.map(\.mergeType) == MergePolicyType.allCases)
        #expect(MergeByPropertyObjectTrumpMergePolicy === MergePolicy.mergeByPropertyObjectTrump)
        #expect(MergePolicy(merge: .overwriteMergePolicyType) == .overwrite)
        #expect("\(MergePolicy.rollback)" == "NSRollbackMergePolicy")
        #expect(RecordingPolicy(merge: .overwriteMergePolicyType) != .overwrite)
        // The default stays the error policy, which throws what it did.
        #expect(ManagedObjectContext().mergePolicy == .error)
    }

    @Test func theErrorPolicyStillThrowsTheConflicts() throws {
        let book = insertBook("978-1")
        try context.save()
        let other = ManagedObjectContext()
        other.persistentStoreCoordinator = coordinator
        try #require(try other.existingObject(with: book.objectID) as? PortedBook).pages = 7
        try other.save()
        book.pages = 8
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .managedObjectMerge)
        #expect(error.conflicts.first?.sourceObject === book)
        #expect(error.conflicts.first?.persistedSnapshot?["pages"] as? Int64 == 7)
    }

    // MARK: 2. Classes bound by the model

    @Test func theModelsClassNamesPickTheClasses() throws {
        let shelf = EntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
        #expect(shelf is PortedShelf)
        #expect(PortedShelf.entity().name == "Shelf")
        #expect(PortedBook.entity().name == "Book")
        let request: FetchRequest<PortedBook> = PortedBook.fetchRequest()
        #expect(request.entityName == "Book")
        let byEntity = FetchRequest<PortedShelf>()
        byEntity.entity = PortedShelf.entity()
        #expect(byEntity.entityName == "Shelf" && byEntity.entity === PortedShelf.entity())
        try context.save()
        #expect(try context.fetch(byEntity).first === shelf)
    }

    @Test func theRegistryFindsClassesByQualifiedBareAndExplicitNames() {
        #expect(ManagedObjectClassRegistry.registeredClass(forClassName: "PortedBook") == PortedBook.self)
        #expect(ManagedObjectClassRegistry.registeredClass(forClassName: "QuireTests.PortedBook") == PortedBook.self)
        // Another module's name for the class finds it by its last component.
        #expect(ManagedObjectClassRegistry.registeredClass(forClassName: "SomeAppModule.PortedShelf") == PortedShelf.self)
        // An unregistered class of a loaded module is found by its qualified name.
        #expect(ManagedObjectClassRegistry.registeredClass(forClassName: "QuireTests.UnregisteredPortedNote") == UnregisteredPortedNote.self)
        #expect(ManagedObjectClassRegistry.registeredClass(forClassName: "NoSuchPortedClass") == nil)
        ManagedObjectClassRegistry.register(UnregisteredPortedNote.self, forClassName: "Legacy.NoteObject")
        #expect(ManagedObjectClassRegistry.registeredClass(forClassName: "Legacy.NoteObject") == UnregisteredPortedNote.self)
    }

    @Test func contextUserInfoKeepsTheApplicationsValues() {
        context.userInfo["syncToken"] = 42
        #expect(context.userInfo["syncToken"] as? Int == 42)
    }

    // MARK: @ManagedProperty

    @Test func managedPropertiesWorkInExtensionsAndAsPrimitiveAccessors() throws {
        let book = insertBook("978-2", pages: 10)
        // Declared in an extension.
        book.rating = 4.5
        #expect(book.value(forKey: "rating") as? Double == 4.5)
        // An Int property of an Integer 64 attribute, an NSNumber property, a renamed key.
        book.pageCount = 12
        #expect(book.pages == 12)
        #expect(book.copiesNumber?.intValue == 0)
        book.copiesNumber = NSNumber(value: 3)
        #expect(book.value(forKey: "copies") as? Int == 3)
        #expect(book.named == nil)
        book.named = "Lovelace"
        #expect(book.title == "Lovelace")
        // The primitive accessor reads and writes the key without going through the typed property.
        book.primitiveTitle = "Babbage"
        #expect(book.title == "Babbage")
        #expect(book.primitiveTitle == "Babbage")
        try context.save()
        context.refresh(book, mergeChanges: false)
        #expect(book.rating == 4.5 && book.pages == 12 && book.title == "Babbage")
    }

    // MARK: 3. Casts

    @Test func numbersCastToEveryNumericTypeAsOnTheMac() throws {
        let book = insertBook("978-3", pages: 321)
        book.setValue(7, forKey: "edition")
        book.setValue(9, forKey: "copies")
        book.setValue(2.0, forKey: "rating")
        book.setValue(Float(1.5), forKey: "weight")
        book.setValue(Decimal(string: "12.5"), forKey: "price")
        try context.save()
        context.refresh(book, mergeChanges: false)
        for object in [book, try ManagedObjectContext.fresh(coordinator).existingObject(with: book.objectID)] {
            #expect(object.value(forKey: "pages") as? Int == 321)
            #expect(object.value(forKey: "pages") as? Int64 == 321)
            #expect(object.value(forKey: "pages") as? Int16 == 321)
            #expect(object.value(forKey: "pages") as? Double == 321)
            #expect((object.value(forKey: "pages") as? NSNumber)?.intValue == 321)
            #expect(object.value(forKey: "edition") as? Int == 7)
            #expect(object.value(forKey: "edition") as? Int16 == 7)
            #expect(object.value(forKey: "copies") as? Int == 9)
            #expect(object.value(forKey: "copies") as? Int32 == 9)
            #expect(object.value(forKey: "rating") as? Double == 2)
            #expect(object.value(forKey: "rating") as? Int == 2)
            #expect(object.value(forKey: "weight") as? Float == 1.5)
            #expect(object.value(forKey: "weight") as? Double == 1.5)
            #expect(object.value(forKey: "price") as? Decimal == Decimal(string: "12.5"))
            #expect(object.value(forKey: "price") as? Double == 12.5)
            #expect(object.value(forKey: "inPrint") as? Bool == true)
            #expect(object.value(forKey: "inPrint") as? Int == 1)
        }
        // A value that does not fit the type is nil, as on the Mac, not a silent wrong number.
        book.setValue(2.5, forKey: "rating")
        #expect(book.value(forKey: "rating") as? Int == nil)
        #expect(book.value(forKey: "pages") as? Bool == nil)
        // Values read as NSNumbers go back in unchanged.
        book.setValue(book.value(forKey: "pages"), forKey: "copies")
        book.setValue(book.value(forKey: "inPrint"), forKey: "inPrint")
        #expect(book.copiesNumber?.intValue == 321 && book.inPrint == true)
    }

    @Test func sharedSmallNumbersCastAsNewOnesDo() throws {
        // Booleans and integers from -128 to 1,023 come from a table of numbers made once (NumberBoxes); the
        // values at and past its edges, read fresh from the store, cast exactly as numbers made per read do.
        let values: [Int64] = [-129, -128, -1, 0, 1, 127, 128, 255, 256, 1_023, 1_024, 40_000, Int64.max]
        let books = values.enumerated().map { insertBook("979-\($0.offset)", pages: $0.element) }
        books[0].setValue(false, forKey: "inPrint")
        try context.save()
        let fresh = try ManagedObjectContext.fresh(coordinator)
        for (book, value) in zip(books, values) {
            let object = try fresh.existingObject(with: book.objectID)
            let read = object.value(forKey: "pages")
            let made: Any = NSNumber(value: value)
            #expect(read as? Int64 == value)
            #expect(read as? Int == Int(value))
            #expect(read as? Int16 == made as? Int16 && read as? Int8 == made as? Int8)
            #expect(read as? Double == made as? Double && read as? Bool == made as? Bool)
            #expect((read as? NSNumber) == NSNumber(value: value))
            let inPrint = book !== books[0]
            #expect(object.value(forKey: "inPrint") as? Bool == inPrint)
            #expect(object.value(forKey: "inPrint") as? Int == (inPrint ? 1 : 0))
        }
        // The small integers the test reads fit Int16 and Int8 where they should (the comparison above is not
        // vacuous).
        #expect(try fresh.existingObject(with: books[1].objectID).value(forKey: "pages") as? Int8 == -128)
        #expect(try fresh.existingObject(with: books[10].objectID).value(forKey: "pages") as? Int16 == 1_024)
    }

    @Test func changedAndCommittedValuesAndDictionariesCastTheSameWay() throws {
        let book = insertBook("978-4", pages: 5)
        try context.save()
        book.pages = 6
        #expect(book.changedValues()["pages"] as? Int == 6)
        #expect(book.committedValues(forKeys: ["pages"])["pages"] as? Int == 5)
        try context.save()
        let request = FetchRequest<[String: Any]>(entityName: "Book")
        request.propertiesToFetch = ["pages", "inPrint"]
        let row = try #require(try context.fetch(request).first)
        #expect(row["pages"] as? Int == 6 && row["inPrint"] as? Bool == true)
    }

    // MARK: 4. Behaviour

    @Test func changedValuesOfAnInsertedObjectListItsRelationships() throws {
        let shelf: PortedShelf = context.insertPorted()
        let book = insertBook("978-5", on: shelf)
        #expect(book.changedValues()["shelf"] as? ManagedObject === shelf)
        #expect((shelf.changedValues()["books"] as? Set<ManagedObject>) == [book])
        // Relationships that hold nothing are not changes.
        #expect(insertBook("978-6").changedValues()["shelf"] == nil)
    }

    @Test func changedValuesListAToManyChangedThroughItsInverseWhileAFault() throws {
        let shelf: PortedShelf = context.insertPorted()
        shelf.name = "A"
        _ = insertBook("978-7", on: shelf)
        try context.save()
        let reader = try ManagedObjectContext.fresh(coordinator)
        let stored = try #require(try reader.existingObject(with: shelf.objectID) as? PortedShelf)
        let book: PortedBook = reader.insertPorted()
        book.isbn = "978-8"
        book.shelf = stored
        #expect(stored.hasFault(forRelationshipNamed: "books"))
        #expect(stored.isUpdated)
        let books = try #require(stored.changedValues()["books"] as? Set<ManagedObject>)
        #expect(books.count == 2 && books.contains(book))
        // Asked again, the same set, not built again.
        #expect((stored.changedValues()["books"] as? Set<ManagedObject>) == books)
    }

    @Test func willSaveRunsOnObjectsChangedByConstraintResolution() throws {
        let shelf: PortedShelf = context.insertPorted()
        _ = insertBook("978-9", on: shelf)
        try context.save()
        #expect(shelf.bookCount == 1)
        // Another context inserts a duplicate of the stored book on its own copy of the shelf: object trump merges
        // the duplicate into the stored book, which then is the shelf's book; its willSave() recounts nothing new,
        // but the duplicate's shelf loses a book by the resolution and recounts.
        let other = try ManagedObjectContext.fresh(coordinator)
        other.mergePolicy = .mergeByPropertyObjectTrump
        let otherShelf: PortedShelf = other.insertPorted()
        let duplicate: PortedBook = other.insertPorted()
        duplicate.isbn = "978-9"
        duplicate.shelf = otherShelf
        try other.save()
        // The duplicate was merged into the stored book, which moved to the new shelf: both shelves recounted.
        let reader = try ManagedObjectContext.fresh(coordinator)
        let shelves = try reader.fetch(FetchRequest<PortedShelf>(entityName: "Shelf"))
        #expect(shelves.count == 2)
        for stored in shelves { #expect(stored.bookCount == Int64(stored.books.count)) }
        #expect(shelves.map(\.books.count).sorted() == [0, 1])
    }

    @Test func aRequiredToManyWithNoMinimumMayBeSavedEmpty() throws {
        let shelf: PortedShelf = context.insertPorted()
        shelf.name = "Empty"
        try context.save()
        let book = insertBook("978-10", on: shelf)
        try context.save()
        book.shelf = nil
        try context.save()
        #expect(shelf.books.isEmpty)
    }

    @Test func aRequiredToManyBelowItsMinimumStillFails() throws {
        let model = Self.model()
        let books = try #require(model.entitiesByName["Shelf"]?.propertiesByName["books"] as? RelationshipDescription)
        books.minCount = 1
        let (_, context) = try Fixtures.stack(model, at: folder.file("Minimum.sqlite"))
        _ = EntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .validationRelationshipLacksMinimumCount)
    }

    @Test func anUnregisteredTransformerNameFallsBackToTheDefault() throws {
        let book = insertBook("978-11")
        book.setValue(["swift", "core data"], forKey: "tags")
        try context.save()
        #expect(ValueTransformerRegistry.unregisteredNamesUsed.contains("PortingTestsUnregisteredTransformer"))
        let reader = try ManagedObjectContext.fresh(coordinator)
        let stored = try reader.existingObject(with: book.objectID)
        #expect(stored.value(forKey: "tags") as? [String] == ["swift", "core data"])
    }

    // MARK: 6. App-shaped paths

    @Test func registeredObjectsHoldChangedAndHeldObjectsOnly() throws {
        var held: [PortedBook] = []
        for index in 0..<50 { held.append(insertBook("978-r\(index)")) }
        try context.save()
        #expect(context.registeredObjects.count == 50)
        held.removeLast(20)
        // The 20 nobody holds any more are left out, as Core Data's weak registry would have let them go.
        #expect(context.registeredObjects.count == 30)
        held[0].pages = 1
        let changedID = held[0].objectID
        held.removeAll()
        // A changed object stays, held or not.
        #expect(Array(context.registeredObjects).map(\.objectID) == [changedID])
        let again = try #require(context.registeredObject(for: changedID))
        #expect(context.registeredObjects.contains(again))
    }

    @Test func aKeyPathPredicateEvaluatesInMemoryTheSameEveryTime() throws {
        let shelf: PortedShelf = context.insertPorted()
        shelf.name = "Fiction"
        let books = (0..<10).map { insertBook("978-k\($0)", pages: Int64($0), on: $0 % 2 == 0 ? shelf : nil) }
        let predicate = try QueryPredicate(format: "shelf.name == %@ AND pages >= 4", "Fiction")
        var comparison = try #require(predicate.comparisons.first)
        #expect(comparison.leftKeyPathKeys == ["shelf", "name"])
        comparison.left = .keyPath("pages")
        #expect(comparison.leftKeyPathKeys == ["pages"])
        for _ in 0..<3 {
            let matching = try books.filter { try predicate.evaluate(with: $0) }.map(\.pages)
            #expect(matching == [4, 6, 8])
        }
    }
}

// MARK: The ported classes

/// A class whose model names it `SomeAppModule.PortedShelf`: found by its bare name once registered.
final class PortedShelf: ManagedObject {
    @ManagedProperty var name: String?
    @ManagedProperty var bookCount: Int64
    @ManagedProperty var books: Set<PortedBook>

    override func willSave() {
        super.willSave()
        // A counter kept from changedValues(), as apps keep them.
        if changedValues()["books"] != nil, bookCount != Int64(books.count) { bookCount = Int64(books.count) }
    }
}

final class PortedBook: ManagedObject {
    @ManagedProperty var isbn: String?
    @ManagedProperty var title: String?
    @ManagedProperty var pages: Int64
    @ManagedProperty var shelf: PortedShelf?
}

extension PortedBook {
    // As Xcode's code generation writes them: in an extension.
    @ManagedProperty var rating: Double
    @ManagedProperty var inPrint: Bool
    @ManagedProperty("pages") var pageCount: Int
    @ManagedProperty("copies") var copiesNumber: NSNumber?
    @ManagedProperty("title") var named: String?
    @ManagedProperty var primitiveTitle: String?
}

/// Never registered: found through its module-qualified name.
final class UnregisteredPortedNote: ManagedObject {}

extension ManagedObjectContext {
    /// A context on the same coordinator.
    static func fresh(_ coordinator: PersistentStoreCoordinator) throws -> ManagedObjectContext {
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// An object of the entity whose class is `T`, as Core Data apps insert them.
    func insertPorted<T: ManagedObject>() -> T {
        EntityDescription.insertNewObject(forEntityName: T.entity().name, into: self) as! T
    }
}

extension QueryPredicate {
    /// The comparisons of a conjunction (or the one comparison).
    var comparisons: [QueryComparison] {
        switch self {
        case .comparison(let comparison): return [comparison]
        case .and(let operands): return operands.flatMap(\.comparisons)
        default: return []
        }
    }
}

extension QueryComparison {
    /// The keys in-memory evaluation follows for the left key path.
    var leftKeyPathKeys: [String]? { leftKeyPath?.keys }
}
