import Foundation
import Testing

import Quire
import QuireTestSupport

/// Managed objects answer comparisons of key paths with constants from their slots (`remoteID == %@`,
/// `owner.name ==[c] %@`): every answer must be the general evaluator's, which `PredicateValue.object(_:)` still
/// takes (issue 29, item 6).
@Suite struct CompiledPredicateTests {
    /// Departments, and people of an abstract entity with two sub-entities whose properties sit in different slots.
    static func model() -> ManagedObjectModel {
        let department = EntityDescription(name: "Department", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "budget", type: .double, defaultValue: 0.0),
            RelationshipDescription(name: "staff", destination: "Person", toMany: true, inverse: "department"),
        ])
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "nickname", type: .string),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "score", type: .double),
            AttributeDescription(name: "active", type: .boolean, defaultValue: false),
            AttributeDescription(name: "born", type: .date),
            RelationshipDescription(name: "department", destination: "Department", inverse: "staff"),
            RelationshipDescription(name: "mentor", destination: "Person", inverse: "mentees"),
            RelationshipDescription(name: "mentees", destination: "Person", toMany: true, inverse: "mentor"),
        ])
        person.isAbstract = true
        let employee = EntityDescription(name: "Employee", properties: [
            AttributeDescription(name: "salary", type: .integer64, defaultValue: 0),
        ])
        let contractor = EntityDescription(name: "Contractor", properties: [
            AttributeDescription(name: "rate", type: .double, defaultValue: 0.0),
            AttributeDescription(name: "agency", type: .string),
        ])
        person.subentities = [employee, contractor]
        return ManagedObjectModel(entities: [department, person, employee, contractor])
    }

    static let day = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// Six people (one nameless) in two departments and none, mentoring each other.
    static func fill(_ context: ManagedObjectContext) throws {
        let entities = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName)
        func department(_ title: String?, _ budget: Double) throws -> ManagedObject {
            let object = ManagedObject(entity: try #require(entities["Department"]), insertInto: context)
            object.setValue(title, forKey: "title")
            object.setValue(budget, forKey: "budget")
            return object
        }
        let research = try department("R&D", 5_000)
        let sales = try department("Sales", 800.5)
        let people: [(String, String?, Int64, Double?, Bool, ManagedObject?)] = [
            ("Employee", "Ann", 41, 4.5, true, research),
            ("Contractor", "ann", 29, nil, false, sales),
            ("Employee", "Ångström", 35, 2.5, true, sales),
            ("Contractor", "Zoë", 52, 4, true, nil),
            ("Employee", "Zoe", 18, 0, false, research),
            ("Contractor", nil, 30, 1.25, false, research),
        ]
        var made: [ManagedObject] = []
        for (index, (entity, name, age, score, active, place)) in people.enumerated() {
            let object = ManagedObject(entity: try #require(entities[entity]), insertInto: context)
            object.setValue(name, forKey: "name")
            object.setValue(index == 2 ? "Ång" : nil, forKey: "nickname")
            object.setValue(age, forKey: "age")
            object.setValue(score, forKey: "score")
            object.setValue(active, forKey: "active")
            object.setValue(day.addingTimeInterval(Double(index) * 86_400), forKey: "born")
            object.setValue(place, forKey: "department")
            if entity == "Employee" { object.setValue(Int64(index * 1_000), forKey: "salary") }
            if entity == "Contractor" { object.setValue(index == 1 ? "Acme" : nil, forKey: "agency") }
            made.append(object)
        }
        for (mentee, mentor) in [(1, 0), (2, 0), (3, 2), (4, 3), (5, 1)] {
            made[mentee].setValue(made[mentor], forKey: "mentor")
        }
    }

    /// Predicates of every shape the compiled form takes, and of shapes it leaves to the general evaluator.
    static var predicates: [(String, [Any])] { [
        ("name == %@", ["Ann"]), ("name ==[c] %@", ["ann"]), ("name ==[d] %@", ["Angstrom"]),
        ("name ==[cd] %@", ["angström"]), ("name != %@", ["Ann"]), ("name !=[c] %@", ["ANN"]),
        ("name < %@", ["M"]), ("name <= %@", ["ann"]), ("name > %@", ["Zoe"]), ("name >=[cd] %@", ["zoe"]),
        ("name <[c] %@", ["b"]), ("name == nil", []), ("name != nil", []), ("nickname == nil", []),
        ("nickname ==[d] 'Ang'", []), ("name < nil", []), ("name = %@", [NSNull()]),
        ("age == 41", []), ("age == %@", [41.0]), ("age > %d", [30]), ("age <= 30.5", []), ("age != 29", []),
        ("age >= %@", [Int16(35)]), ("age < %@", [true]), ("age == 'Ann'", []), ("age > nil", []),
        ("score > 2.5", []), ("score == 4", []), ("score == nil", []), ("score != nil", []), ("score <= %@", [Decimal(2.5)]),
        ("active == YES", []), ("active == 1", []), ("active != TRUE", []), ("active < 1", []),
        ("born == %@", [day]), ("born > %@", [day.addingTimeInterval(86_400)]), ("born <= %@", [day]),
        ("department.title == %@", ["R&D"]), ("department.title ==[c] 'r&d'", []), ("department.title == nil", []),
        ("department.title != 'Sales'", []), ("department.budget > 1000", []), ("department.budget <= 800.5", []),
        ("mentor.name == 'Ann'", []), ("mentor.name == nil", []), ("mentor.department.title == 'Sales'", []),
        ("mentor.mentor.name ==[cd] 'ANN'", []), ("mentor.age > 40", []), ("mentor.department.budget < %@", [1_000]),
        ("salary > 1000", []), ("rate == 0", []), ("agency == 'Acme'", []), ("mentor.salary >= 0", []),
        ("mentor == nil", []), ("department != nil", []), ("mentees.name == 'Zoë'", []), ("ANY mentees.name == 'Ann'", []),
        ("ALL mentees.age > 20", []), ("NONE mentees.age > 40", []), ("department.staff.name == 'Ann'", []),
        ("name.length > 3", []), ("mentees.@count > 0", []), ("name IN {'Ann', 'Zoe'}", []), ("name BEGINSWITH 'A'", []),
        ("name == 'Ann' AND age > 30", []), ("name ==[c] 'ann' OR department.title == 'Sales'", []),
        ("NOT (age > 30)", []), ("NOT (name == nil) AND NOT (mentor.name == 'Ann')", []),
        ("age > 30 AND mentees.@count > 0", []), ("age > 100 AND nosuchkey == 1", []), ("age < 100 AND nosuchkey == 1", []),
        ("age < 100 OR nosuchkey == 1", []), ("nosuchkey == 1", []), ("mentor.nosuchkey == 1", []),
        ("TRUEPREDICATE", []), ("FALSEPREDICATE", []), ("SELF == SELF", []), ("name == $NAME", []),
    ] }

    /// `true`, `false`, or `error`: what a managed object's overload answers must be what the general evaluator
    /// answers.
    static func answer(_ body: () throws -> Bool) -> String {
        do { return try body() ? "true" : "false" } catch { return "error" }
    }

    /// Compares both evaluations of every predicate on every person and department; returns how many matched.
    static func compareAll(_ objects: [ManagedObject], substitutionVariables: [String: Any] = ["NAME": "Ann"]) throws -> [String: Int] {
        var matches: [String: Int] = [:]
        for (format, arguments) in predicates {
            let predicate = try QueryPredicate(format: format, argumentArray: arguments)
            for object in objects {
                let compiled = answer { try predicate.evaluate(with: object, substitutionVariables: substitutionVariables) }
                let general = answer {
                    try predicate.evaluate(with: PredicateValue.object(object), substitutionVariables: substitutionVariables)
                }
                #expect(compiled == general, "\(format) \(arguments) on \(object.entity.name) \(object.objectID)")
                if compiled == "true" { matches[format, default: 0] += 1 }
            }
        }
        return matches
    }

    static func people(_ context: ManagedObjectContext, faults: Bool) throws -> [ManagedObject] {
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        request.returnsObjectsAsFaults = faults
        request.sortDescriptors = [SortKey(key: "born", ascending: true)]
        return try context.fetch(request)
    }

    /// The matches every pass must find (so the comparison of both evaluations is not of two wrong answers).
    static func checkKnownMatches(_ matches: [String: Int]) {
        #expect(matches["name == %@"] == 1)
        #expect(matches["name ==[c] %@"] == 2)
        #expect(matches["name ==[cd] %@"] == 1)
        #expect(matches["name ==[d] %@"] == 1)
        #expect(matches["name == nil"] == 1)
        #expect(matches["age > %d"] == 3)
        #expect(matches["department.title == %@"] == 3)
        #expect(matches["department.title == nil"] == 1)
        #expect(matches["mentor.name == 'Ann'"] == 2)
        #expect(matches["mentor.name == nil"] == 1)
        #expect(matches["mentor.mentor.name ==[cd] 'ANN'"] == 2)
        #expect(matches["mentor.department.title == 'Sales'"] == 2)
        #expect(matches["name ==[c] 'ann' OR department.title == 'Sales'"] == 3)
        #expect(matches["born == %@"] == 1)
    }

    /// One predicate evaluated on objects of several models whose entities keep its key at different slots: the
    /// compiled comparison remembers the slot it found in the entity it last met, and each answer must still be
    /// that entity's (models made and dropped in turn, so an address could only name another entity if the
    /// comparison let the entity it remembered go).
    @Test func oneCompiledComparisonAnswersForEntitiesThatKeepItsKeyAtDifferentSlots() throws {
        let folder = try TemporaryFolder()
        let predicate = try QueryPredicate(format: "code == %@", "b")
        for round in 0..<12 {
            // `code` after `round % 4` other attributes, so at slot 0, 1, 2 or 3.
            var properties: [PropertyDescription] = (0..<(round % 4)).map { AttributeDescription(name: "pad\($0)", type: .string) }
            properties.append(AttributeDescription(name: "code", type: .string))
            let model = ManagedObjectModel(entities: [EntityDescription(name: "Thing", properties: properties)])
            let (_, context) = try Fixtures.stack(model, at: folder.file("Things\(round).sqlite"))
            try context.performAndWait {
                let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Thing"])
                var things: [ManagedObject] = []
                for code in ["a", "b", "c"] {
                    let thing = ManagedObject(entity: entity, insertInto: context)
                    for pad in 0..<(round % 4) { thing.setValue("b", forKey: "pad\(pad)") }
                    thing.setValue(code, forKey: "code")
                    things.append(thing)
                }
                let matching = try things.filter { try predicate.evaluate(with: $0) }.map { $0.value(forKey: "code") as? String }
                #expect(matching == ["b"], "round \(round)")
                #expect(try things.map { try predicate.evaluateInterpreted(with: $0, substitutionVariables: [:]) } == [false, true, false])
            }
        }
    }

    /// One comparison met in turn by an entity where its key is an attribute, one where it is a to-one relationship
    /// and one without it: the attribute slot the comparison remembers for the first must not answer for the others
    /// (the relationship is compared by the general evaluator, the missing key refused), in memory and when a fetch
    /// checks its key paths against the model.
    @Test func aRememberedAttributeSlotAnswersOnlyForItsOwnEntity() throws {
        let folder = try TemporaryFolder()
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "pad", type: .string),
            AttributeDescription(name: "code", type: .string),
        ])
        let label = EntityDescription(name: "Label", properties: [
            AttributeDescription(name: "text", type: .string),
            RelationshipDescription(name: "code", destination: "Tag"),
        ])
        let note = EntityDescription(name: "Note", properties: [AttributeDescription(name: "text", type: .string)])
        let (_, context) = try Fixtures.stack(ManagedObjectModel(entities: [tag, label, note]), at: folder.file("Slots.sqlite"))
        try context.performAndWait {
            let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
            let tags = try ["a", "b"].map { code -> ManagedObject in
                let object = ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context)
                object.setValue("b", forKey: "pad")
                object.setValue(code, forKey: "code")
                return object
            }
            let labelled = ManagedObject(entity: try #require(model.entitiesByName["Label"]), insertInto: context)
            labelled.setValue("b", forKey: "text")
            labelled.setValue(tags[1], forKey: "code")
            let plain = ManagedObject(entity: try #require(model.entitiesByName["Note"]), insertInto: context)
            plain.setValue("b", forKey: "text")
            try context.save()

            let byString = try QueryPredicate(format: "code == %@", "b")
            let byObject = try QueryPredicate(format: "code == %@", tags[1])
            for _ in 0..<2 {
                #expect(try tags.map { try byString.evaluate(with: $0) } == [false, true])
                // On the label `code` is the relationship: a tag is no string, and the tag itself matches.
                #expect(try byString.evaluate(with: labelled) == false)
                #expect(try byObject.evaluate(with: labelled) == true)
                #expect(throws: QuireError.self) { try byString.evaluate(with: plain) }
            }
            let tagRequest = FetchRequest<ManagedObject>(entityName: "Tag")
            tagRequest.predicate = byString
            #expect(try context.fetch(tagRequest).map { $0.value(forKey: "code") as? String } == ["b"])
            let labelRequest = FetchRequest<ManagedObject>(entityName: "Label")
            labelRequest.predicate = byObject
            #expect(try context.fetch(labelRequest).count == 1)
            let noteRequest = FetchRequest<ManagedObject>(entityName: "Note")
            noteRequest.predicate = byString
            #expect(throws: QuireError.self) { try context.fetch(noteRequest) }
        }
    }

    @Test func compiledComparisonsAnswerAsTheGeneralEvaluatorOnInsertedObjects() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Self.model(), at: folder.file("Compiled.sqlite"))
        try context.performAndWait {
            try Self.fill(context)
            let people = Array(context.insertedObjects).filter { $0.entity.name != "Department" }
                .sorted { ($0.value(forKey: "born") as? Date ?? .distantPast) < ($1.value(forKey: "born") as? Date ?? .distantPast) }
            let departments = Array(context.insertedObjects).filter { $0.entity.name == "Department" }
            Self.checkKnownMatches(try Self.compareAll(people))
            _ = try Self.compareAll(departments)
        }
    }

    @Test func compiledComparisonsAnswerAsTheGeneralEvaluatorOnFetchedObjectsAndFaults() throws {
        let folder = try TemporaryFolder()
        let (coordinator, setup) = try Fixtures.stack(Self.model(), at: folder.file("Compiled.sqlite"))
        try setup.performAndWait {
            try Self.fill(setup)
            try setup.save()
        }
        for faults in [true, false] {
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                // Fetched as faults (their mentors and departments are faults too), or with their values.
                let people = try Self.people(context, faults: faults)
                #expect(people.count == 6)
                Self.checkKnownMatches(try Self.compareAll(people))
                // Faults made from IDs alone, asked first through the compiled form.
                let other = ManagedObjectContext()
                other.persistentStoreCoordinator = coordinator
                try other.performAndWait {
                    let bare = people.map { other.object(with: $0.objectID) }
                    let allFaults = bare.allSatisfy { $0.isFault }
                    #expect(allFaults)
                    Self.checkKnownMatches(try Self.compareAll(bare))
                }
            }
        }
    }

    @Test func compiledComparisonsSeeUnsavedChangesAndDeletedObjects() throws {
        let folder = try TemporaryFolder()
        let (coordinator, setup) = try Fixtures.stack(Self.model(), at: folder.file("Compiled.sqlite"))
        try setup.performAndWait {
            try Self.fill(setup)
            try setup.save()
        }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let people = try Self.people(context, faults: true)
            let predicate = try QueryPredicate(format: "mentor.name == %@", "Ann")
            #expect(try people.filter { try predicate.evaluate(with: $0) }.count == 2)
            people[0].setValue("Anne", forKey: "name")
            #expect(try people.filter { try predicate.evaluate(with: $0) }.isEmpty)
            people[0].setValue("Ann", forKey: "name")
            people[3].setValue(people[0], forKey: "mentor")
            #expect(try people.filter { try predicate.evaluate(with: $0) }.count == 3)
            context.delete(people[0])
            _ = try Self.compareAll(people)
            context.reset()
            // Objects whose context let them go: nil relationships, values as last read.
            _ = try Self.compareAll(people)
        }
    }

    @Test func changingAComparisonsPartsChangesItsAnswer() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try Fixtures.stack(Self.model(), at: folder.file("Compiled.sqlite"))
        try context.performAndWait {
            try Self.fill(context)
            let people = Array(context.insertedObjects).filter { $0.entity.name != "Department" }
            var comparison = QueryComparison(.keyPath("name"), .equalTo, .constant(.string("Ann")))
            func count() throws -> Int { try people.filter { try QueryPredicate.comparison(comparison).evaluate(with: $0) }.count }
            #expect(try count() == 1)
            comparison.options = .caseInsensitive
            #expect(try count() == 2)
            comparison.right = .constant(.string("ZOE"))
            comparison.options = [.caseInsensitive, .diacriticInsensitive]
            #expect(try count() == 2)
            comparison.operator = .notEqualTo
            #expect(try count() == 4)
            comparison.left = .keyPath("mentor.name")
            comparison.operator = .equalTo
            comparison.right = .constant(.string("Ann"))
            comparison.options = []
            #expect(try count() == 2)
            // ALL over a single value is that value's answer, and over nil (no mentor) true.
            comparison.modifier = .all
            #expect(try count() == 3)
            comparison.left = .keyPath("mentees.name")
            comparison.modifier = .any
            comparison.right = .constant(.string("Zoë"))
            #expect(try count() == 1)
        }
    }

    @Test func aFormatParsedAgainGivesWhatItsArgumentsMake() throws {
        // The tokens of a format are kept after its first parse: the arguments still make each predicate.
        for (id, value) in [("r-1", Int64(1)), ("r-22", 22), ("r-1", 3)] {
            let predicate = try QueryPredicate(format: "remoteID == %@ AND value > %d", id, value)
            #expect(predicate == .and([
                .comparison(QueryComparison(.keyPath("remoteID"), .equalTo, .constant(.string(id)))),
                .comparison(QueryComparison(.keyPath("value"), .greaterThan, .constant(.integer(value)))),
            ]))
        }
        let key = try QueryPredicate(format: "%K == %@", "owner.name", "Ann")
        let other = try QueryPredicate(format: "%K == %@", "title", "Ann")
        #expect(key.predicateFormat == #"owner.name == "Ann""# && other.predicateFormat == #"title == "Ann""#)
        // A format that does not parse throws every time.
        for _ in 0..<2 {
            #expect(throws: QuireError.self) { try QueryPredicate(format: "remoteID == == %@", "x") }
            #expect(throws: QuireError.self) { try QueryPredicate(format: "remoteID == %@") }
        }
        // Canonically equivalent formats keep their own text: a decomposed literal stays decomposed.
        let composed = try QueryPredicate(format: "name == \"\u{E9}\"")
        let decomposed = try QueryPredicate(format: "name == \"e\u{301}\"")
        #expect(Array(composed.predicateFormat.unicodeScalars) != Array(decomposed.predicateFormat.unicodeScalars))
        #expect(decomposed.predicateFormat.unicodeScalars.contains("\u{301}"))
    }

    /// Strings that are equal by canonical equivalence without being the same bytes (the Kelvin sign and `K`, a
    /// decomposed `é` and a precomposed one, the Greek question mark and `;`), short and long, empty and nil: `==`
    /// and `!=` give the general evaluator's answers on inserted objects, on objects fetched with their values (kept
    /// packed until changed, compared byte for byte when the constant is ASCII) and on faults.
    @Test func stringEqualityIsCanonicalEquivalenceWhereverTheValueIsKept() throws {
        let tag = EntityDescription(name: "Tag", properties: [AttributeDescription(name: "name", type: .string)])
        let long = "a-tag-name-longer-than-fifteen-bytes"
        let names: [String?] = [
            "K", "\u{212A}", "\u{E9}", "e\u{301}", ";", "\u{37E}", "Ka", "k", "", nil, long, long + "\u{212A}", "caf\u{E9} au lait, long",
        ]
        let folder = try TemporaryFolder()
        let (coordinator, setup) = try Fixtures.stack(ManagedObjectModel(entities: [tag]), at: folder.file("Strings.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Tag"])
        let constants = names.compactMap { $0 } + ["e", "\u{212A}a", long + "K", "caf\u{65}\u{301} au lait, long"]
        /// How many objects each constant equals (in the order of `constants`), checked against the general evaluator.
        func check(_ objects: [ManagedObject]) throws -> [Int] {
            try constants.map { constant in
                var equal = 0
                for format in ["name == %@", "name != %@", "name ==[c] %@"] {
                    let predicate = try QueryPredicate(format: format, constant)
                    for object in objects {
                        let compiled = try predicate.evaluate(with: object)
                        let general = try predicate.evaluate(with: PredicateValue.object(object))
                        #expect(compiled == general, "\(format) \(constant.unicodeScalars.map(\.value)) on \(String(describing: object.value(forKey: "name")))")
                        if compiled && format == "name == %@" { equal += 1 }
                    }
                }
                return equal
            }
        }
        // K, Kelvin, é, e + ◌́, ;, Greek ;, Ka, k, "", long, long + Kelvin, café…; then e, Kelvin + a, long + K, cafe + ◌́…
        let expected = [2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1]
        #expect(constants.count == expected.count)
        try setup.performAndWait {
            for name in names { ManagedObject(entity: entity, insertInto: setup).setValue(name, forKey: "name") }
            #expect(try check(Array(setup.insertedObjects)) == expected)
            try setup.save()
        }
        for faults in [false, true] {
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "Tag")
                request.returnsObjectsAsFaults = faults
                let objects = try context.fetch(request)
                #expect(objects.count == names.count)
                #expect(try check(objects) == expected)
                // Changed (the values unpacked), then compared again.
                for object in objects { object.setValue(object.value(forKey: "name"), forKey: "name") }
                #expect(try check(objects) == expected)
            }
        }
    }
}
