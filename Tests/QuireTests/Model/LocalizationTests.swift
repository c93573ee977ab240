import Foundation
import Testing

import Quire

/// Localized validation messages, the localization dictionary's keys, and strings files.
@Suite struct LocalizationTests {
    /// Core Data's tutorial model with its validation predicate (`SELF > 0`, warning "Process ID < 1").
    static func tutorialModel(localized: Bool = true) throws -> ManagedObjectModel {
        let model = Fixtures.runModel()
        let processID = try #require(model.entities[0].propertiesByName["processID"])
        processID.setValidationPredicates([try QueryPredicate(format: "SELF > 0")], withValidationWarnings: ["Process ID < 1"])
        if localized {
            model.localizationDictionary = [
                "Property/date/Entity/Run": "Date",
                "Property/processID/Entity/Run": "Process ID",
                "ErrorString/Process ID < 1": "Process ID must not be less than 1",
            ]
        }
        return model
    }

    @Test func tutorialMessageIsLocalizedExactly() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Self.tutorialModel(), at: folder.file("Runs.sqlite"))
        let run = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Run"]), insertInto: context)
        run.setValue(Date(), forKey: "date")
        // The default process ID, -1, breaks the predicate.
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .managedObjectValidation)
        #expect(error.message == "Process ID must not be less than 1")
        #expect(error.context.key == "processID")
        #expect(error.context.value == .integer(-1))
        // Two failures: each message localized.
        run.setValue(nil, forKey: "date")
        let both = try #require(throws: QuireError.self) { try context.save() }
        #expect(both.code == .validationMultipleErrors)
        #expect(both.detailedErrors.map(\.message).sorted() == ["Date is a required value.", "Process ID must not be less than 1"])
        run.setValue(Date(), forKey: "date")
        run.setValue(Int64(4242), forKey: "processID")
        try context.save()
    }

    @Test func withoutLocalizationTheWarningAndNamesShowAsWritten() throws {
        let folder = try TemporaryFolder()
        let (coordinator, context) = try Fixtures.stack(Self.tutorialModel(localized: false), at: folder.file("Runs.sqlite"))
        _ = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Run"]), insertInto: context)
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.detailedErrors.map(\.message).sorted() == ["Process ID < 1", "date is a required value."])
    }

    @Test func localizationKeysAreTriedFromTheMostSpecific() throws {
        let employee = EntityDescription(name: "Emp", properties: [AttributeDescription(name: "firstName", type: .string)])
        let manager = EntityDescription(name: "Mgr")
        employee.subentities = [manager]
        let model = ManagedObjectModel(entities: [employee, manager])
        let firstName = try #require(employee.propertiesByName["firstName"])
        #expect(ValidationMessages.localizedName(of: firstName, in: employee) == "firstName")
        #expect(ValidationMessages.localizedName(of: employee) == "Emp")
        model.localizationDictionary = ["Property/firstName": "First Name", "Entity/Emp": "Employee"]
        #expect(ValidationMessages.localizedName(of: firstName, in: manager) == "First Name")
        #expect(ValidationMessages.localizedName(of: employee) == "Employee")
        model.localizationDictionary["Property/firstName/Entity/Emp"] = "Given Name"
        #expect(ValidationMessages.localizedName(of: firstName, in: manager) == "Given Name")
        model.localizationDictionary["Property/firstName/Entity/Mgr"] = "Manager's Name"
        #expect(ValidationMessages.localizedName(of: firstName, in: manager) == "Manager's Name")
        #expect(ValidationMessages.localizedName(of: firstName, in: employee) == "Given Name")
    }

    @Test func templatesAreFilledAndCanBeTranslated() throws {
        let folder = try TemporaryFolder()
        let model = Fixtures.runModel()
        let processID = try #require(model.entities[0].propertiesByName["processID"] as? AttributeDescription)
        processID.minimumValue = .integer(1)
        model.localizationDictionary = ["Property/processID": "Process ID"]
        let (coordinator, context) = try Fixtures.stack(model, at: folder.file("Runs.sqlite"))
        let run = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Run"]), insertInto: context)
        run.setValue(Date(), forKey: "date")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.code == .validationNumberTooSmall)
        #expect(error.message == "Process ID must not be less than 1.")
        #expect(ValidationMessages.templates[.validationNumberTooSmall] == "%{PROPERTY}@ must not be less than %@.")
        let german = Fixtures.runModel()
        (german.entities[0].propertiesByName["processID"] as? AttributeDescription)?.minimumValue = .integer(1)
        german.localizationDictionary = [
            "Property/processID": "Prozessnummer",
            "ErrorString/%{PROPERTY}@ must not be less than %@.": "%{PROPERTY}@ darf nicht kleiner als %@ sein.",
        ]
        let (otherCoordinator, other) = try Fixtures.stack(german, at: folder.file("Läufe.sqlite"))
        let lauf = ManagedObject(entity: try #require(otherCoordinator.managedObjectModel.entitiesByName["Run"]), insertInto: other)
        lauf.setValue(Date(), forKey: "date")
        let fehler = try #require(throws: QuireError.self) { try other.save() }
        #expect(fehler.message == "Prozessnummer darf nicht kleiner als 1 sein.")
    }

    // MARK: Serialization

    @Test func predicatesAndWarningsRoundTripWithoutChangingVersionHashes() throws {
        let plain = Fixtures.runModel()
        let model = try Self.tutorialModel()
        #expect(model.entityVersionHashesByName == plain.entityVersionHashesByName)
        let data = try model.serializedRepresentation()
        let read = try ManagedObjectModel(serializedRepresentation: data)
        let processID = try #require(read.entitiesByName["Run"]?.propertiesByName["processID"])
        #expect(processID.validationPredicates == [try QueryPredicate(format: "SELF > 0")])
        #expect(processID.validationWarnings == ["Process ID < 1"])
        #expect(read.localizationDictionary["ErrorString/Process ID < 1"] == "Process ID must not be less than 1")
        #expect(try read.serializedRepresentation() == data)
        // A model without predicates serializes as before: no new keys.
        #expect(!String(decoding: try plain.serializedRepresentation(), as: UTF8.self).contains("validation"))
    }

    @Test func malformedPredicatesInAModelFileAreInvalidModels() throws {
        let data = try Self.tutorialModel().serializedRepresentation()
        let text = String(decoding: data, as: UTF8.self)
        let badFormat = text.replacingOccurrences(of: "\"SELF > 0\"", with: "\"SELF >\"")
        var error = try #require(throws: QuireError.self) { try ManagedObjectModel(serializedRepresentation: Data(badFormat.utf8)) }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("Run.processID"))
        let missingWarning = text.replacingOccurrences(of: "\"Process ID < 1\"", with: "")
        error = try #require(throws: QuireError.self) { try ManagedObjectModel(serializedRepresentation: Data(missingWarning.utf8)) }
        #expect(error.code == .invalidModel)
    }

    @Test func anInvalidRegularExpressionStopsTheCoordinator() throws {
        let model = Fixtures.runModel()
        let note = AttributeDescription(name: "note", type: .string)
        note.regularExpression = "[unclosed"
        model.entities[0].properties.append(note)
        let error = try #require(throws: QuireError.self) { try PersistentStoreCoordinator(managedObjectModel: model) }
        #expect(error.code == .invalidModel)
        #expect(error.context.key == "note")
    }

    // MARK: Strings files

    @Test func stringsFileBesideAModelFileIsLoaded() throws {
        let folder = try TemporaryFolder()
        let modelURL = folder.file("Run.json")
        try Self.tutorialModel(localized: false).write(to: modelURL)
        try Data(
            """
            /* Localization of the Run model. */
            "Property/processID/Entity/Run" = "Process ID";   // the tutorial's name
            "ErrorString/Process ID < 1" = "Process ID must not be less than 1";
            """.utf8
        ).write(to: folder.file("RunModel.strings"))
        try Data(#""Property/date" = "Date";"#.utf8).write(to: folder.file("Run.strings"))
        let model = try ManagedObjectModel(contentsOf: modelURL)
        #expect(model.localizationDictionary["Property/processID/Entity/Run"] == "Process ID")
        #expect(model.localizationDictionary["Property/date"] == "Date")
        let (coordinator, context) = try Fixtures.stack(model, at: folder.file("Runs.sqlite"))
        _ = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Run"]), insertInto: context)
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.detailedErrors.map(\.message).sorted() == ["Date is a required value.", "Process ID must not be less than 1"])
    }

    @Test func stringsFileSyntax() throws {
        let text = #"""
            // A line comment, then a block comment over lines.
            /* "Not" = "an entry";
               still a comment */
            "quote" = "say \"hi\"";
            "escapes"="a\nb\tc\\d";
            "unicode" = "caf\U00e9 \UD83D\UDE00 \u0041";
            "octal" = "\101";
            bare_word = plain-value.1;
            "key only";
            "Property/firstName" = "First Name";
            "Property/firstName" = "Given Name";
            """#
        let entries = try Self.loadStrings(Data(text.utf8))
        #expect(entries["quote"] == #"say "hi""#)
        #expect(entries["escapes"] == "a\nb\tc\\d")
        #expect(entries["unicode"] == "café 😀 A")
        #expect(entries["octal"] == "A")
        #expect(entries["bare_word"] == "plain-value.1")
        #expect(entries["key only"] == "key only")
        #expect(entries["Property/firstName"] == "Given Name")
        #expect(entries["Not"] == nil)
        #expect(entries.count == 7)
    }

    @Test func stringsFileInUTF16WithAByteOrderMark() throws {
        let text = "\"Entity/Run\" = \"Lauf\";\n\"Property/date\" = \"Datum ✓\";\n"
        var little = Data([0xFF, 0xFE])
        for unit in text.utf16 { little.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
        var big = Data([0xFE, 0xFF])
        for unit in text.utf16 { big.append(contentsOf: [UInt8(unit >> 8), UInt8(unit & 0xFF)]) }
        let utf8WithMark = Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)
        for data in [little, big, utf8WithMark] {
            #expect(try Self.loadStrings(data) == ["Entity/Run": "Lauf", "Property/date": "Datum ✓"])
        }
    }

    struct Malformed: Sendable, CustomStringConvertible {
        var text: String
        var line: Int
        var what: String
        var description: String { what }
    }

    static let malformed: [Malformed] = [
        Malformed(text: "\"a\" = \"b\";\n\"c\" = \"d\"\n\"e\" = \"f\";", line: 3, what: "expected ';'"),
        Malformed(text: "\"a\" = \"b\";\n\n/* never closed\n", line: 3, what: "never closed"),
        Malformed(text: "\"a\" = \"b\";\n\"c\" = \"d\";\n\"e = f;", line: 3, what: "never closed"),
        Malformed(text: "\n\"a\" = ;", line: 2, what: "expected a value"),
        Malformed(text: "\"a\" = \"\\U12\";", line: 1, what: "hexadecimal"),
        Malformed(text: "= \"b\";", line: 1, what: "expected a key"),
        Malformed(text: "\"a\" = \"b\"; \"c\" =", line: 1, what: "end of the file"),
    ]

    @Test(arguments: malformed)
    func malformedStringsFilesNameTheLine(_ sample: Malformed) throws {
        let folder = try TemporaryFolder()
        let url = folder.file("RunModel.strings")
        let error = try #require(throws: QuireError.self) { try Self.loadStrings(Data(sample.text.utf8), at: url) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.context.file == url)
        #expect(error.message.contains("line \(sample.line):"), "\(error.message)")
        #expect(error.message.contains(sample.what), "\(error.message)")
        #expect(error.message.contains(url.path))
    }

    @Test func stringsFilesThatAreNotTextOrTooLargeAreRefused() throws {
        let folder = try TemporaryFolder()
        var error = try #require(throws: QuireError.self) { try Self.loadStrings(Data([0x22, 0xFF, 0xFE, 0x00, 0x22])) }
        #expect(error.code == .fileReadCorruptFile)
        let large = folder.file("Large.strings")
        try Data(count: (8 << 20) + 1).write(to: large)  // one byte over the 8 MiB a strings file may have
        error = try #require(throws: QuireError.self) { try ManagedObjectModel().loadLocalization(contentsOf: large) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("Large.strings"))
        error = try #require(throws: QuireError.self) { try ManagedObjectModel().loadLocalization(contentsOf: folder.file("Missing.strings")) }
        #expect(error.code == .fileReadNoSuchFile)
        // A malformed strings file beside a model stops the model from loading, naming the strings file.
        try Fixtures.runModel().write(to: folder.file("Run.json"))
        try Data("\"a\" = ".utf8).write(to: folder.file("RunModel.strings"))
        error = try #require(throws: QuireError.self) { try ManagedObjectModel(contentsOf: folder.file("Run.json")) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.context.file == folder.file("RunModel.strings"))
    }

    /// The entries of a strings file's bytes, read the public way: written to `url` (a file in a new folder when
    /// nil) and loaded into a new model's localization dictionary.
    static func loadStrings(_ data: Data, at url: URL? = nil) throws -> [String: String] {
        let folder = try TemporaryFolder()
        let file = url ?? folder.file("Test.strings")
        try data.write(to: file)
        let model = ManagedObjectModel()
        try model.loadLocalization(contentsOf: file)
        return model.localizationDictionary
    }
}
