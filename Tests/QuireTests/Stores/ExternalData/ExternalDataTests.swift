import Foundation
import Testing

import Quire

/// Large binary values in files beside the store: written before commit, read lazily, collected when
/// unreferenced, refused with a clear error when missing or truncated.
@Suite struct ExternalDataTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    static let kinds: [StoreKind] = [.sqlite, .xml, .binary]

    private var smallThreshold: StoreOptions {
        var options = StoreOptions()
        options.externalDataThreshold = 1000
        return options
    }

    private func blob(_ count: Int, seed: UInt8 = 7) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) ^ seed }) }

    private func externalFolder(_ stack: ConformanceStack) throws -> ExternalDataFiles {
        ExternalDataFiles(storeURL: try #require(stack.url), type: stack.kind.type)
    }

    private func saveSample(_ stack: ConformanceStack, data: Data, plain: Data = Data([1, 2])) throws {
        _ = try stack.insert("Sample", ["vBinarydata": data, "plainData": plain, "vString": "sample"])
        try stack.context.save()
    }

    @Test(arguments: kinds)
    func largeValuesLiveInFilesBesideTheStore(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.everyTypeModel(), in: folder, options: smallThreshold)
        let big = blob(5000)
        try saveSample(stack, data: big, plain: blob(5000, seed: 9))
        _ = try stack.insert("Sample", ["vBinarydata": blob(999), "vString": "small"])
        try stack.context.save()
        let files = try externalFolder(stack).fileNames()
        #expect(files.count == 1)
        let name = try #require(files.first)
        #expect(try Data(contentsOf: externalFolder(stack).file(name)) == big)
        // Core Data's name for SQLite (`Store.sqlite` → `.Store_SUPPORT`); the whole file name for the others.
        let support = kind.type == .sqlite ? ".Store_SUPPORT" : ".\(try #require(stack.url).lastPathComponent)_SUPPORT"
        #expect(try externalFolder(stack).url.path.hasSuffix("/\(support)/_EXTERNAL_DATA"))
        if kind.type == .sqlite {
            let rows = try RawSQLite(try #require(stack.url)).rows("SELECT ZVBINARYDATA FROM ZSAMPLE WHERE ZVSTRING = 'sample'")
            #expect(rows.count == 1)
            #expect(rows.first?[0].data == Data([0x02]) + Data(name.utf8) + Data([0]))
        }
        let again = try stack.reopened()
        let sample = try #require(try again.fetch("Sample", "vString == 'sample'").first)
        #expect(sample.value(forKey: "vBinarydata") as? Data == big)
        #expect(try sample.dataValue(forKey: "vBinarydata") == big)
        #expect(sample.value(forKey: "plainData") as? Data == blob(5000, seed: 9))
        let small = try #require(try again.fetch("Sample", "vString == 'small'").first)
        #expect(try small.dataValue(forKey: "vBinarydata") == blob(999))
    }

    @Test(arguments: kinds)
    func fetchingReadsNoFileAndAMissingFileNamesTheObjectAndKey(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.everyTypeModel(), in: folder, options: smallThreshold)
        try saveSample(stack, data: blob(4000))
        let files = try externalFolder(stack)
        let again = try stack.reopened()
        for name in files.fileNames() { try FileManager.default.removeItem(at: files.file(name)) }
        let request = FetchRequest<ManagedObject>(entityName: "Sample")
        request.returnsObjectsAsFaults = false
        let sample = try #require(try again.context.fetch(request).first)
        #expect(sample.value(forKey: "vString") as? String == "sample")
        #expect(sample.value(forKey: "vBinarydata") == nil)
        let error = try #require(throws: QuireError.self) { try sample.dataValue(forKey: "vBinarydata") }
        #expect(error.code == .fileReadNoSuchFile)
        #expect(error.context.key == "vBinarydata")
        #expect(error.context.object == sample.objectID.uriRepresentation())
        #expect(error.message.contains("vBinarydata") && error.message.contains(sample.objectID.description))
    }

    @Test(arguments: kinds)
    func aTruncatedFileIsDetected(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.everyTypeModel(), in: folder, options: smallThreshold)
        try saveSample(stack, data: blob(4000))
        let files = try externalFolder(stack)
        let name = try #require(files.fileNames().first)
        try blob(4000).prefix(1000).write(to: files.file(name))
        let again = try stack.reopened()
        let sample = try #require(try again.fetch("Sample").first)
        let error = try #require(throws: QuireError.self) { try sample.dataValue(forKey: "vBinarydata") }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.message.contains("truncated"))
        #expect(error.context.key == "vBinarydata")
    }

    @Test(arguments: kinds)
    func unreferencedFilesAreCollected(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.everyTypeModel(), in: folder, options: smallThreshold)
        try saveSample(stack, data: blob(4000))
        let files = try externalFolder(stack)
        let first = try #require(files.fileNames().first)
        let again = try stack.reopened()
        let sample = try #require(try again.fetch("Sample").first)
        sample.setValue(blob(6000, seed: 3), forKey: "vBinarydata")
        try again.context.save()
        let second = try #require(files.fileNames().first)
        #expect(files.fileNames().count == 1)
        #expect(second != first)
        again.context.delete(sample)
        try again.context.save()
        #expect(files.fileNames().isEmpty)
    }

    @Test func theDefaultThresholdIsOneMegabyte() throws {
        let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder)
        try saveSample(stack, data: blob(1_048_576))
        #expect(try externalFolder(stack).fileNames().isEmpty)
        try saveSample(stack, data: blob(1_048_577))
        #expect(try externalFolder(stack).fileNames().count == 1)
    }

    @Test func sqliteStoresWithoutRecordedLengthsStillRead() throws {
        let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder, options: smallThreshold)
        try saveSample(stack, data: blob(4000))
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        // As a store written by Core Data: only the column names the file.
        try RawSQLite(try #require(stack.url), readOnly: false).execute("DROP TABLE Z_QUIREEXTERNALDATA")
        let again = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder, options: smallThreshold)
        let sample = try #require(try again.fetch("Sample").first)
        #expect(try sample.dataValue(forKey: "vBinarydata") == blob(4000))
    }

    @Test(arguments: [StoreKind.xml, .binary])
    func atomicStoresCanKeepDataInline(kind: StoreKind) throws {
        let stack = try kind.stack(Fixtures.everyTypeModel(), in: folder, options: smallThreshold)
        try saveSample(stack, data: blob(4000))
        #expect(try externalFolder(stack).fileNames().count == 1)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        var inline = smallThreshold
        inline.storesExternalDataInline = true
        let again = try kind.stack(Fixtures.everyTypeModel(), in: folder, options: inline)
        _ = try again.insert("Sample", ["vBinarydata": blob(5000, seed: 1), "vString": "second"])
        try again.context.save()
        #expect(try externalFolder(again).fileNames().isEmpty)
        if kind.type == .xml {
            let text = try String(contentsOf: try #require(again.url), encoding: .utf8)
            #expect(!text.contains("external="))
            #expect(text.contains(blob(4000).base64EncodedString()))
        }
        let third = try again.reopened()
        #expect(Set(try third.fetch("Sample").compactMap { try $0.dataValue(forKey: "vBinarydata") }) == [blob(4000), blob(5000, seed: 1)])
    }
}
