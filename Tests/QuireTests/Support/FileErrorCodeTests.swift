import Foundation
import Quire
import QuireTestSupport
import Testing

/// File errors carry the code Foundation gives the same `errno`, whichever part of Quire made the call.
@Suite struct FileErrorCodeTests {
    private func code(_ body: () throws -> Void) -> QuireError.Code? {
        do {
            try body()
            return nil
        } catch let error as QuireError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func missingFilesAreReadAndWriteErrorsAsInFoundation() throws {
        let folder = try TemporaryFolder()
        let missing = folder.url.appendingPathComponent("missing.txt")
        #expect(code { _ = try ExtendedAttributes.value("user.quire.test", of: missing) } == .fileReadNoSuchFile)
        #expect(code { try ExtendedAttributes.set("user.quire.test", to: Data([1]), on: missing) } == .fileNoSuchFile)
        #expect(code { try ExtendedAttributes.remove("user.quire.test", from: missing) } == .fileNoSuchFile)
        // Foundation's own file APIs agree on the write side.
        do {
            try Data([1]).write(to: folder.url.appendingPathComponent("no/such/folder.txt"))
            Issue.record("writing into a missing folder succeeded")
        } catch let error as CocoaError {
            #expect(error.code.rawValue == QuireError.Code.fileNoSuchFile.rawValue)
        }
    }

    @Test func overlongNamesAreInvalidFileNames() throws {
        let folder = try TemporaryFolder()
        let overlong = folder.url.appendingPathComponent(String(repeating: "n", count: 300))
        #expect(code { _ = try ExtendedAttributes.value("user.quire.test", of: overlong) } == .fileReadInvalidFileName)
        #expect(code { try ExtendedAttributes.set("user.quire.test", to: Data([1]), on: overlong) } == .fileWriteInvalidFileName)
    }

    @Test func aStoreSavedIntoAMissingFolderNamesTheMissingFolder() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("gone/Store.binary")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        let thrown = code {
            try coordinator.addPersistentStore(type: .binary, at: url)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            let entity = try #require(coordinator.managedObjectModel.entitiesByName["Employee"])
            ManagedObject(entity: entity, insertInto: context).setValue("Ann", forKey: "name")
            try context.save()
        }
        #expect(thrown == .fileNoSuchFile)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("gone").path))
    }
}
