import Foundation
import Testing

import Quire

/// Every validation rule, passing and failing, at save and through `validateValue(_:forKey:)`.
@Suite struct ValidationTests {
    /// One attribute rule: a value that passes and one that fails with `code`.
    struct RuleCase: Sendable, CustomStringConvertible {
        var key: String
        var valid: AttributeValue
        var invalid: AttributeValue
        var code: QuireError.Code
        var description: String { "\(key) \(code)" }
    }

    static let start = Date(timeIntervalSinceReferenceDate: 600_000_000)
    static let end = Date(timeIntervalSinceReferenceDate: 700_000_000)

    static let ruleCases: [RuleCase] = [
        RuleCase(key: "title", valid: .string("Run"), invalid: .null, code: .validationMissingMandatoryProperty),
        RuleCase(key: "count", valid: .integer(1), invalid: .integer(0), code: .validationNumberTooSmall),
        RuleCase(key: "count", valid: .integer(10), invalid: .integer(11), code: .validationNumberTooLarge),
        RuleCase(key: "ratio", valid: .double(0.5), invalid: .double(0.25), code: .validationNumberTooSmall),
        RuleCase(key: "ratio", valid: .double(2.5), invalid: .double(2.75), code: .validationNumberTooLarge),
        RuleCase(key: "price", valid: .decimal(Decimal(string: "99.99") ?? 0), invalid: .decimal(Decimal(string: "100.01") ?? 0), code: .validationNumberTooLarge),
        RuleCase(key: "price", valid: .decimal(0), invalid: .decimal(Decimal(string: "-0.01") ?? 0), code: .validationNumberTooSmall),
        RuleCase(key: "name", valid: .string("ab"), invalid: .string("a"), code: .validationStringTooShort),
        RuleCase(key: "name", valid: .string("abcde"), invalid: .string("abcdef"), code: .validationStringTooLong),
        RuleCase(key: "name", valid: .string("é€"), invalid: .string("😀😀😀"), code: .validationStringTooLong),
        RuleCase(key: "code", valid: .string("ABC-42"), invalid: .string("ABC-42x"), code: .validationStringPatternMatching),
        RuleCase(key: "code", valid: .string("XYZ-1"), invalid: .string("ab-1"), code: .validationStringPatternMatching),
        RuleCase(key: "when", valid: .date(start), invalid: .date(start.addingTimeInterval(-1)), code: .validationDateTooSoon),
        RuleCase(key: "when", valid: .date(end), invalid: .date(end.addingTimeInterval(1)), code: .validationDateTooLate),
        RuleCase(key: "score", valid: .integer(50), invalid: .integer(0), code: .managedObjectValidation),
        RuleCase(key: "score", valid: .integer(99), invalid: .integer(100), code: .managedObjectValidation),
    ]

    /// An entity with a rule on each attribute, and relationships with counts, a required to-one and a
    /// predicate.
    static func rulesModel(localization: [String: String] = [:]) throws -> ManagedObjectModel {
        let count = AttributeDescription(name: "count", type: .integer32)
        count.minimumValue = .integer(1)
        count.maximumValue = .integer(10)
        let ratio = AttributeDescription(name: "ratio", type: .double)
        ratio.minimumValue = .double(0.5)
        ratio.maximumValue = .double(2.5)
        let price = AttributeDescription(name: "price", type: .decimal)
        price.minimumValue = .integer(0)
        price.maximumValue = .integer(100)
        let name = AttributeDescription(name: "name", type: .string)
        name.minimumValue = .integer(2)
        name.maximumValue = .integer(5)
        let code = AttributeDescription(name: "code", type: .string)
        code.regularExpression = "[A-Z]{2,3}-[0-9]+"
        let when = AttributeDescription(name: "when", type: .date)
        when.minimumValue = .date(start)
        when.maximumValue = .date(end)
        let score = AttributeDescription(name: "score", type: .integer64)
        score.setValidationPredicates(
            [try QueryPredicate(format: "SELF > 0"), try QueryPredicate(format: "SELF < 100")],
            withValidationWarnings: ["Score < 1", "Score > 99"])
        let items = RelationshipDescription(name: "items", destination: "Item", toMany: true, inverse: "holder")
        items.minCount = 2
        items.maxCount = 3
        let owner = RelationshipDescription(name: "owner", destination: "Owner", inverse: "things")
        owner.isOptional = false
        owner.setValidationPredicates([try QueryPredicate(format: "name BEGINSWITH 'A'")], withValidationWarnings: ["Owner must be an A"])
        let thing = EntityDescription(name: "Thing", properties: [
            AttributeDescription(name: "title", type: .string, isOptional: false),
            count, ratio, price, name, code, when, score, items, owner,
        ])
        let item = EntityDescription(name: "Item", properties: [
            RelationshipDescription(name: "holder", destination: "Thing", inverse: "items")
        ])
        let ownerEntity = EntityDescription(name: "Owner", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "things", destination: "Thing", toMany: true, inverse: "owner"),
        ])
        let model = ManagedObjectModel(entities: [thing, item, ownerEntity])
        model.localizationDictionary = localization
        return model
    }

    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder() }

    private func entity(_ context: ManagedObjectContext, _ name: String) throws -> EntityDescription {
        try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name])
    }

    /// A thing whose every value is valid, with two items and an owner named Ann.
    private func validThing(_ context: ManagedObjectContext) throws -> ManagedObject {
        let thing = ManagedObject(entity: try entity(context, "Thing"), insertInto: context)
        thing.setValue("Run", forKey: "title")
        thing.setValue(Int32(5), forKey: "count")
        thing.setValue(1.0, forKey: "ratio")
        thing.setValue(Decimal(1), forKey: "price")
        thing.setValue("abc", forKey: "name")
        thing.setValue("AB-1", forKey: "code")
        thing.setValue(Self.start.addingTimeInterval(10), forKey: "when")
        thing.setValue(Int64(7), forKey: "score")
        let owner = ManagedObject(entity: try entity(context, "Owner"), insertInto: context)
        owner.setValue("Ann", forKey: "name")
        thing.setValue(owner, forKey: "owner")
        for _ in 0..<2 {
            let item = ManagedObject(entity: try entity(context, "Item"), insertInto: context)
            thing.addObject(item, toRelationship: "items")
        }
        return thing
    }

    @Test(arguments: ruleCases)
    func attributeRuleFailsAndPasses(_ rule: RuleCase) throws {
        let (_, context) = try Fixtures.stack(Self.rulesModel(), at: folder.file("Rules.sqlite"))
        let thing = try validThing(context)
        // Invalid values may live in the context; only save (or validateValue) enforces.
        thing.setValue(rule.invalid.anyValue, forKey: rule.key)
        #expect(thing.attributeValue(forKey: rule.key) == rule.invalid)
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == rule.code)
        #expect(error.context.key == rule.key)
        #expect(error.context.entity == "Thing")
        #expect(error.context.objectID == thing.objectID)
        #expect(error.context.value == rule.invalid)
        #expect(thing.objectID.isTemporaryID)
        var invalid: Any? = rule.invalid.anyValue
        let direct = try #require(throws: QuireError.self) { try thing.validateValue(&invalid, forKey: rule.key) }
        #expect(direct.code == rule.code)
        var valid: Any? = rule.valid.anyValue
        try thing.validateValue(&valid, forKey: rule.key)
        thing.setValue(rule.valid.anyValue, forKey: rule.key)
        try context.save()
        #expect(!thing.objectID.isTemporaryID)
        // An update is checked too.
        thing.setValue(rule.invalid.anyValue, forKey: rule.key)
        let update = try #require(throws: QuireError.self) { try context.save() }
        #expect(update.code == rule.code)
    }

    @Test func predicateFailureCarriesItsPredicateAndWarning() throws {
        let (_, context) = try Fixtures.stack(Self.rulesModel(), at: folder.file("Rules.sqlite"))
        let thing = try validThing(context)
        thing.setValue(Int64(100), forKey: "score")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .managedObjectValidation)
        #expect(error.message == "Score > 99")
        #expect(error.context.predicate == (try QueryPredicate(format: "SELF < 100")))
    }

    @Test func validateValueRefusesValuesOfTheWrongType() throws {
        let (_, context) = try Fixtures.stack(Self.rulesModel(), at: folder.file("Rules.sqlite"))
        let thing = try validThing(context)
        var text: Any? = "seven"
        let error = try #require(throws: QuireError.self) { try thing.validateValue(&text, forKey: "count") }
        #expect(error.code == .invalidValue)
        var fine: Any? = 7
        try thing.validateValue(&fine, forKey: "count")
        var tooBig: Any? = 70
        #expect(throws: QuireError.self) { try thing.validateValue(&tooBig, forKey: "count") }
        // Checking a value does not set it.
        #expect(thing.value(forKey: "count") as? Int32 == 5)
    }

    @Test func nilSkipsEveryRuleButOptionality() throws {
        let (_, context) = try Fixtures.stack(Self.rulesModel(), at: folder.file("Rules.sqlite"))
        let thing = try validThing(context)
        for key in ["count", "ratio", "price", "name", "code", "when", "score"] { thing.setValue(nil, forKey: key) }
        try context.save()
    }

    @Test func relationshipCountsRequiredToOneAndPredicate() throws {
        let (_, context) = try Fixtures.stack(Self.rulesModel(), at: folder.file("Rules.sqlite"))
        let thing = try validThing(context)
        let itemEntity = try entity(context, "Item")
        let items = try #require(thing.value(forKey: "items") as? Set<ManagedObject>)
        // One item: below the minimum of 2.
        thing.removeObject(try #require(items.first), fromRelationship: "items")
        var error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .validationRelationshipLacksMinimumCount)
        #expect(error.context.key == "items")
        #expect(error.context.value == .integer(1))
        #expect(error.message == "items must have at least 2 objects.")
        // Four items: above the maximum of 3.
        for _ in 0..<3 { thing.addObject(ManagedObject(entity: itemEntity, insertInto: context), toRelationship: "items") }
        error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .validationRelationshipExceedsMaximumCount)
        #expect(error.context.value == .integer(4))
        // An optional to-many may be empty whatever its minimum.
        thing.setValue(Set<ManagedObject>(), forKey: "items")
        try context.save()
        // The required to-one, then its predicate.
        let owner = try #require(thing.value(forKey: "owner") as? ManagedObject)
        thing.setValue(nil, forKey: "owner")
        error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .validationMissingMandatoryProperty)
        #expect(error.context.key == "owner")
        owner.setValue("Bob", forKey: "name")
        thing.setValue(owner, forKey: "owner")
        error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .managedObjectValidation)
        #expect(error.message == "Owner must be an A")
        var candidate: Any? = owner
        #expect(throws: QuireError.self) { try thing.validateValue(&candidate, forKey: "owner") }
        owner.setValue("Alice", forKey: "name")
        try thing.validateValue(&candidate, forKey: "owner")
        try context.save()
    }

    @Test func severalFailuresMakeOneMultipleErrorsError() throws {
        let (_, context) = try Fixtures.stack(Self.rulesModel(), at: folder.file("Rules.sqlite"))
        let first = try validThing(context)
        let second = try validThing(context)
        first.setValue(Int32(0), forKey: "count")
        first.setValue("x", forKey: "name")
        second.setValue(nil, forKey: "title")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .validationMultipleErrors)
        #expect(error.code.isValidationError)
        let failures = error.detailedErrors.map { "\($0.context.objectID == first.objectID ? "first" : "second") \($0.context.key ?? "") \($0.code.rawValue)" }
        #expect(failures.sorted() == ["first count 1620", "first name 1670", "second title 1570"])
        #expect(error.detailedErrors.allSatisfy { $0.context.entity == "Thing" && $0.context.object != nil })
        #expect(error.message.contains("count must not be less than 1."))
        // Through the object, both of its own failures at once.
        let direct = try #require(throws: QuireError.self) { try first.validateForInsert() }
        #expect(direct.code == .validationMultipleErrors)
        #expect(direct.detailedErrors.count == 2)
    }

    @Test func denyRuleThroughValidateForDelete() throws {
        let model = Fixtures.companyModel(departmentEmployeesRule: .deny)
        model.localizationDictionary = ["Entity/Department": "Abteilung", "Property/employees": "Mitarbeiter"]
        let (_, context) = try Fixtures.stack(model, at: folder.file("Company.sqlite"))
        let department = ManagedObject(entity: try entity(context, "Department"), insertInto: context)
        let employee = ManagedObject(entity: try entity(context, "Employee"), insertInto: context)
        employee.setValue(department, forKey: "department")
        try context.save()
        context.delete(department)
        let error = try #require(throws: QuireError.self) { try department.validateForDelete() }
        #expect(error.code == .validationRelationshipDeniedDelete)
        #expect(error.message == "Abteilung cannot be deleted while Mitarbeiter is not empty.")
        #expect(throws: QuireError.self) { try context.save() }
        context.delete(employee)
        try context.save()
    }
}

/// Per-key validation methods and cross-property checks in a typed subclass.
final class CheckedRun: ManagedObject {
    @Managed("date") var date: Date
    @Managed("processID") var processID: Int64

    override class var keysWithValidationMethods: Set<String> { ["processID"] }

    struct Reserved: Error, LocalizedError {
        var errorDescription: String? { "Process ID 13 is reserved." }
    }

    override func validate(key: String, value: inout Any?) throws {
        guard key == "processID" else { return try super.validate(key: key, value: &value) }
        if value as? Int64 == 13 { throw Reserved() }
        if value as? Int64 == 0 {
            throw QuireError(.validationNumberTooSmall, "Process ID 0 belongs to the kernel.")
        }
        if let pid = value as? Int64, pid < 0 { value = Int64(1) }
    }

    override func validateForInsert() throws {
        try super.validateForInsert()
        if date > Date(timeIntervalSinceReferenceDate: 1_000_000_000) {
            throw QuireError(.managedObjectValidation, "A run cannot be that far in the future.")
        }
    }
}

@Suite struct ValidationMethodTests {
    @Test func perKeyMethodRunsAtSaveAndOnDemand() throws {
        let folder = try TemporaryFolder()
        let model = Fixtures.runModel()
        model.entities[0].managedObjectClass = CheckedRun.self
        let (_, context) = try Fixtures.stack(model, at: folder.file("Runs.sqlite"))
        let run = CheckedRun(context: context)
        run.date = Date(timeIntervalSinceReferenceDate: 10)
        run.processID = 13
        var error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .managedObjectValidation)
        #expect(error.message == "Process ID 13 is reserved.")
        #expect(error.context.key == "processID")
        #expect(error.context.objectID == run.objectID)
        #expect(error.underlying is CheckedRun.Reserved)
        run.processID = 0
        error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .validationNumberTooSmall)
        #expect(error.context.entity == "Run")
        // On demand the method may replace the value.
        var value: Any? = Int64(-5)
        try run.validateValue(&value, forKey: "processID")
        #expect(value as? Int64 == 1)
        // Cross-property checks in an override of validateForInsert.
        run.processID = 42
        run.date = Date(timeIntervalSinceReferenceDate: 2_000_000_000)
        error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.message == "A run cannot be that far in the future.")
        run.date = Date(timeIntervalSinceReferenceDate: 20)
        try context.save()
    }
}

/// A subclass whose entity has no rules of its own, refusing values in overrides of the validation methods.
final class RefusingNote: ManagedObject {
    override func validateForInsert() throws {
        try super.validateForInsert()
        if value(forKey: "text") as? String == "refused" { throw QuireError(.managedObjectValidation, "Refused on insert.") }
    }

    override func validateForUpdate() throws {
        try super.validateForUpdate()
        if value(forKey: "text") as? String == "refused" { throw QuireError(.managedObjectValidation, "Refused on update.") }
    }
}

@Suite struct ValidationWithoutRulesTests {
    /// An entity without a rule (one optional attribute), and another whose attribute is required.
    static func model() -> ManagedObjectModel {
        let note = EntityDescription(name: "Note", properties: [AttributeDescription(name: "text", type: .string)])
        let tagged = EntityDescription(name: "Tagged", properties: [AttributeDescription(name: "tag", type: .string, isOptional: false)])
        return ManagedObjectModel(entities: [note, tagged])
    }

    /// Saves skip the validation methods only of plain objects whose entity has no rules: a subclass's overrides
    /// still run on insert and on update, and a plain object's entity rules still fail the save.
    @Test func overridesRunWhenTheEntityHasNoRules() throws {
        let folder = try TemporaryFolder()
        let model = Self.model()
        model.entitiesByName["Note"]?.managedObjectClass = RefusingNote.self
        let (coordinator, context) = try Fixtures.stack(model, at: folder.file("Notes.sqlite"))
        let noteEntity = try #require(model.entitiesByName["Note"])
        let note = try #require(ManagedObject(entity: noteEntity, insertInto: context) as? RefusingNote)
        note.setValue("refused", forKey: "text")
        var error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.message == "Refused on insert.")
        #expect(note.isInserted)
        note.setValue("kept", forKey: "text")
        try context.save()
        note.setValue("refused", forKey: "text")
        error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.message == "Refused on update.")
        note.setValue("changed", forKey: "text")
        try context.save()

        // Plain objects: one of the entity without rules saves whatever it holds; the required attribute of the
        // other still fails the save, and saves once set.
        let (otherCoordinator, other) = try Fixtures.stack(Self.model(), at: folder.file("Plain.sqlite"))
        let plainModel = otherCoordinator.managedObjectModel
        let plainNote = try #require(plainModel.entitiesByName["Note"])
        let plainTagged = try #require(plainModel.entitiesByName["Tagged"])
        let plain = ManagedObject(entity: plainNote, insertInto: other)
        #expect(type(of: plain) == ManagedObject.self)
        plain.setValue("refused", forKey: "text")
        let tagged = ManagedObject(entity: plainTagged, insertInto: other)
        error = try #require(throws: QuireError.self) { try other.save() }
        #expect(error.code == .validationMissingMandatoryProperty)
        tagged.setValue("t", forKey: "tag")
        try other.save()
        #expect(!plain.isInserted && !tagged.isInserted)
        withExtendedLifetime(coordinator) {}
    }
}
