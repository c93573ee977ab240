import Foundation
import QuireTestSupport
import Testing

import Quire
import QuireCore
@testable import QuireStores
@testable import QuireSQLite

/// What `verify` reports about a store's records, and what every conversion refuses, whatever the source's type
/// (issue 33, item 5): a nil in an attribute that is not optional, an external data file whose size changed,
/// relationships that disagree with their inverses.
@Suite struct StoreVerificationTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    static let model: ManagedObjectModel = {
        let image = AttributeDescription(name: "image", type: .binaryData)
        image.allowsExternalBinaryDataStorage = true
        let owner = EntityDescription(name: "Owner", properties: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            RelationshipDescription(name: "items", destination: "Item", toMany: true, inverse: "owner"),
            RelationshipDescription(name: "passport", destination: "Passport", inverse: "holder"),
        ])
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "title", type: .string), image,
            RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
        ])
        let passport = EntityDescription(name: "Passport", properties: [
            AttributeDescription(name: "number", type: .string),
            RelationshipDescription(name: "holder", destination: "Owner", inverse: "passport"),
        ])
        return ManagedObjectModel(entities: [owner, item, passport])
    }()

    /// A sound store of `type`: owner Ada with two items (the first with a 4 KiB image in a file beside the
    /// store) and a passport.
    func makeStore(_ name: String, type: StoreType) throws -> URL {
        let url = folder.file(name)
        var options = StoreOptions()
        options.externalDataThreshold = 100
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model)
        let store = try coordinator.addPersistentStore(type: type, at: url, options: options)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        func insert(_ entity: String) throws -> ManagedObject {
            ManagedObject(entity: try #require(Self.model.entitiesByName[entity]), insertInto: context)
        }
        let ada = try insert("Owner")
        ada.setValue("Ada", forKey: "name")
        for index in 0..<2 {
            let item = try insert("Item")
            item.setValue("item \(index)", forKey: "title")
            if index == 0 { item.setValue(Data(repeating: 7, count: 4096), forKey: "image") }
            item.setValue(ada, forKey: "owner")
        }
        let passport = try insert("Passport")
        passport.setValue("P-1", forKey: "number")
        passport.setValue(ada, forKey: "holder")
        try context.save()
        try coordinator.remove(store)
        #expect(try StoreVerification.problems(inStoreAt: url, type: type).isEmpty, "\(type) is sound")
        return url
    }

    static func execute(_ sql: String, at url: URL) throws {
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
        defer { connection.close() }
        try connection.execute(sql)
    }

    /// Replaces text in an XML store's file, which must hold it.
    static func edit(_ url: URL, _ old: String, _ new: String) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains(old), "\(old) in \(text)")
        try Data(text.replacingOccurrences(of: old, with: new).utf8).write(to: url)
    }

    @Test(arguments: [StoreType.sqlite, .xml])
    func verifyReportsANilInAnAttributeThatIsNotOptional(type: StoreType) throws {
        let url = try makeStore("required.\(type.rawValue)", type: type)
        if type == .sqlite {
            try Self.execute("UPDATE ZOWNER SET ZNAME = NULL", at: url)
        } else {
            try Self.edit(url, #"<attribute name="name" type="string">Ada</attribute>"#, "")
        }
        let problems = try StoreVerification.problems(inStoreAt: url, type: type)
        #expect(problems.contains { $0.hasPrefix("Owner ") && $0.hasSuffix(".name is nil, but the attribute is not optional.") }, "\(problems)")
    }

    @Test(arguments: [StoreType.sqlite, .binary, .xml])
    func verifyReportsAnExternalDataFileWhoseSizeChanged(type: StoreType) throws {
        let url = try makeStore("sized.\(type.rawValue)", type: type)
        let support = StoreKinds.supportFolder(forStore: url, type: type).appendingPathComponent("_EXTERNAL_DATA")
        let files = try FileManager.default.contentsOfDirectory(atPath: support.path)
        let file = try #require(files.first)
        #expect(files.count == 1)
        let handle = try FileHandle(forWritingTo: support.appendingPathComponent(file))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2, 3]))
        try handle.close()
        // Before: an SQLite store's references carry no length, and its recorded lengths were not read.
        let problems = try StoreVerification.problems(inStoreAt: url, type: type)
        #expect(problems.contains { $0.hasSuffix(".image: the external data file \(file) has 4099 bytes, not 4096.") }, "\(problems)")
    }

    /// An XML store whose owner lists an item that does not name the owner back: `verify` rejects it, and no
    /// conversion settles it silently (before, converting to SQLite kept one side and called it a success).
    @Test(arguments: [StoreType.sqlite, .binary, .xml])
    func aConversionRefusesRelationshipsThatDisagreeWithTheirInverses(target: StoreType) throws {
        let url = try makeStore("one-sided-\(target.rawValue).xml", type: .xml)
        // The last item's owner element goes: the owner still lists it.
        let text = try String(contentsOf: url, encoding: .utf8)
        let start = try #require(text.range(of: #"<relationship name="owner""#, options: .backwards))
        let end = try #require(text.range(of: "</relationship>", range: start.upperBound..<text.endIndex))
        let element = start.lowerBound..<end.upperBound
        #expect(text.components(separatedBy: #"<relationship name="owner""#).count == 3)
        try Data(text.replacingCharacters(in: element, with: "").utf8).write(to: url)
        let problems = try StoreVerification.problems(inStoreAt: url, type: .xml)
        #expect(problems.count == 1 && problems[0].contains(".items holds Item ") && problems[0].hasSuffix(", whose inverse owner does not hold it back."), "\(problems)")

        let contents = try DocumentContents(contentsOf: url)
        defer { contents.close() }
        let output = folder.file("converted.\(target.rawValue)")
        let error = try #require(throws: QuireError.self) { try contents.convert(to: output, container: .storeFile, storeType: target) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("cannot be converted faithfully: \(problems[0])"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// An SQL store keeps a one-to-one twice (a column on each side), so it can disagree there too: Ada's
    /// passport names Bob as its holder.
    @Test func aOneToOneThatDisagreesInAnSQLiteStoreIsReportedAndRefused() throws {
        let url = try makeStore("passport.sqlite", type: .sqlite)
        try Self.execute("INSERT INTO ZOWNER (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT 2, Z_ENT, 1, 'Bob' FROM ZOWNER WHERE Z_PK = 1", at: url)
        try Self.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_NAME = 'Owner'", at: url)
        try Self.execute("UPDATE ZPASSPORT SET ZHOLDER = 2", at: url)
        let report = try StoreVerification.report(inStoreAt: url, type: .sqlite)
        #expect(report.problems == ["Owner 1.passport holds Passport 1, whose inverse holder does not hold it back."], "\(report.problems)")
        // Bob's side is empty: on its own that is what Core Data writes (below), so a note.
        #expect(report.notes.contains("Passport 1.holder holds Owner 2, whose inverse passport is empty (a one-to-one kept on one side, as Core Data writes some)."), "\(report.notes)")
        let contents = try DocumentContents(contentsOf: url)
        defer { contents.close() }
        let error = try #require(throws: QuireError.self) {
            try contents.convert(to: folder.file("passport.xml"), container: .storeFile, storeType: .xml)
        }
        #expect(error.message.contains("cannot be converted faithfully: Owner 1.passport holds Passport 1"), "\(error.message)")
    }

    /// A one-to-one whose other side is empty is what Core Data itself writes (Apple Notes' `cloudState` ↔
    /// `cloudSyncingObject`): `verify` notes it and passes, and the store converts.
    @Test func aOneToOneKeptOnOneSideIsANoteAndConverts() throws {
        let url = try makeStore("passport-one-side.sqlite", type: .sqlite)
        try Self.execute("UPDATE ZOWNER SET ZPASSPORT = NULL", at: url)
        let report = try StoreVerification.report(inStoreAt: url, type: .sqlite)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.notes == ["Passport 1.holder holds Owner 1, whose inverse passport is empty (a one-to-one kept on one side, as Core Data writes some)."], "\(report.notes)")
        let contents = try DocumentContents(contentsOf: url)
        defer { contents.close() }
        let output = folder.file("passport-one-side.xml")
        _ = try contents.convert(to: output, container: .storeFile, storeType: .xml)
        #expect(FileManager.default.fileExists(atPath: output.path))
    }

    /// A sound store of each type converts to every other, and its records read back the same.
    @Test(arguments: [StoreType.sqlite, .binary, .xml])
    func aSoundStoreStillConverts(source: StoreType) throws {
        let url = try makeStore("sound.\(source.rawValue)", type: source)
        let contents = try DocumentContents(contentsOf: url)
        defer { contents.close() }
        for target in [StoreType.sqlite, .binary, .xml] {
            let output = folder.file("sound-\(source.rawValue)-to.\(target.rawValue)")
            let summary = try contents.convert(to: output, container: .storeFile, storeType: target)
            #expect(summary.objectCount == 4)
            #expect(try StoreVerification.problems(inStoreAt: output, type: target).isEmpty)
            #expect(try ObjectGraphDump(storeAt: output, type: target).differences(from: try ObjectGraphDump(storeAt: url, type: source)).isEmpty)
        }
    }
}
