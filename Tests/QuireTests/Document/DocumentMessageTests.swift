import Foundation
import Quire
import QuireTestSupport
import Testing

/// The library's own messages name what its caller knows: an archive's entries rather than the private folder it
/// is extracted to, a conversion's output rather than its staging folder, the model a store was not written with
/// (no advice about options an inspection does not take), a read-only store's reason, a file that is no model,
/// a compiled model's defaults in words.
@Suite struct DocumentMessageTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("SampleDocuments")

    /// A zip of the Runs sample whose store is damaged past its header.
    static func damagedZip(in folder: TemporaryFolder) throws -> URL {
        let package = folder.file("Runs.quiredoc")
        try FileManager.default.copyItem(at: samples.appendingPathComponent("Runs-sqlite.quiredoc"), to: package)
        let store = package.appendingPathComponent("StoreContent/persistentStore")
        var bytes = try Data(contentsOf: store)
        bytes.replaceSubrange(100..<4096, with: Data(repeating: 0xFF, count: 4096 - 100))
        try bytes.write(to: store)
        let zip = folder.file("doc.zip")
        try DocumentContents.writeArchive(ofPackage: package, to: zip, format: .zipArchive)
        return zip
    }

    @Test func openingAnArchiveNamesItsEntryNotTheWorkingCopy() throws {
        let folder = try TemporaryFolder()
        let zip = try Self.damagedZip(in: folder)
        do {
            _ = try DocumentContents(contentsOf: zip)
            Issue.record("A damaged store was opened.")
        } catch let error as QuireError {
            #expect(error.message.contains("'\(zip.path): entry StoreContent/persistentStore'"), "\(error.message)")
            #expect(!error.message.contains("quire-contents-"), "\(error.message)")
            #expect(error.context.file == zip)
        }
    }

    @Test func workOnAnArchivesFilesNamesTheDocument() throws {
        let folder = try TemporaryFolder()
        let zip = folder.file("Runs.zip")
        try FileManager.default.copyItem(at: Self.samples.appendingPathComponent("Runs-sqlite.zip"), to: zip)
        let contents = try DocumentContents(contentsOf: zip)
        defer { contents.close() }
        // The working copy's store is damaged after opening: what reads it fails on a private path.
        try Data(repeating: 0xFF, count: 8192).write(to: contents.storeURL)
        do {
            _ = try ObjectGraphDump(storeAt: contents.storeURL, type: contents.storeType)
            Issue.record("A damaged store was dumped.")
        } catch {
            let named = try #require(contents.errorNamingDocument(error) as? QuireError)
            #expect(named.message.contains("'\(zip.path): entry StoreContent/persistentStore'"), "\(named.message)")
            #expect(!named.message.contains(contents.packageURL?.path ?? "?"), "\(named.message)")
            #expect(named.context.file == zip)
            // So does a conversion of it, by itself.
            do {
                try contents.convert(to: folder.file("Runs.xml"), container: .storeFile, storeType: .xml)
                Issue.record("A damaged store was converted.")
            } catch let error as QuireError {
                #expect(error.message.contains("'\(zip.path): entry StoreContent/persistentStore'"), "\(error.message)")
            }
        }
        // A package's errors are its own paths already: unchanged.
        let plain = QuireError(.fileReadCorruptFile, "The store '/tmp/x' is damaged.")
        let package = try DocumentContents(contentsOf: Self.samples.appendingPathComponent("Runs-sqlite.quiredoc"))
        #expect((package.errorNamingDocument(plain) as? QuireError)?.message == plain.message)
    }

    @Test(.enabled(if: ImmutableFiles.available, "needs chattr +i on the temporary folder's file system"))
    func aConversionIntoAFolderThatTakesNoNewFilesNamesTheOutput() throws {
        let folder = try TemporaryFolder()
        let locked = folder.file("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        let contents = try DocumentContents(contentsOf: Self.samples.appendingPathComponent("Runs-sqlite.quiredoc"))
        let output = locked.appendingPathComponent("Runs.zip")
        try ImmutableFiles.set(locked, immutable: true)
        defer { try? ImmutableFiles.set(locked, immutable: false) }
        do {
            try contents.convert(to: output, container: .zipArchive, storeType: .sqlite)
            Issue.record("A conversion wrote into an immutable folder.")
        } catch let error as QuireError {
            #expect(error.message == "'\(output.path)' cannot be written: its folder '\(locked.path)' does not take new files (operation not permitted).")
            #expect(error.context.file == output)
            #expect((error.underlying as? SystemCallError)?.code == EPERM)
        }
    }

    @Test func inspectingWithAnotherModelNamesItWithoutMigrationAdvice() throws {
        let store = try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel_V1.sqlite")
        let other = try FixtureFiles.url("CoreData/CoreDataPlus/SampleModel2.xcdatamodeld")
        let folder = try TemporaryFolder()
        let checks: [(String, () throws -> Void)] = [
            ("dump", { _ = try ObjectGraphDump(storeAt: store, type: .sqlite, modelFile: other) }),
            ("verify", { _ = try StoreVerification.problems(inStoreAt: store, type: .sqlite, modelFile: other) }),
            ("convert", {
                try DocumentContents(contentsOf: store).convert(
                    to: folder.file("Mac.xml"), container: .storeFile, storeType: .xml, modelFile: other)
            }),
        ]
        for (name, check) in checks {
            do {
                try check()
                Issue.record("\(name): the store was read with a model it was not written with.")
            } catch let error as QuireError {
                #expect(error.code == .persistentStoreIncompatibleVersionHash, "\(name)")
                #expect(error.message.hasPrefix(
                    "The store '\(store.path)' was written with another model than the model file '\(other.path)' (entity Author added;"),
                    "\(name): \(error.message)")
                #expect(!error.message.contains("migratesAutomatically") && !error.message.contains("MigrationManager"), "\(name)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test func aFileThatIsNoModelIsSaidSo() throws {
        let folder = try TemporaryFolder()
        for (name, text, expected) in [
            ("Notes.txt", "hello", "is not a model file: Quire reads Xcode models"),
            ("Settings.json", #"{"theme": "dark"}"#, "is not a model file: it is JSON, but not a model Quire wrote (it has no 'format')."),
            ("App.mom", "hello", "is not a compiled model: a .mom file is a binary property list, and this file is not one."),
        ] {
            let url = folder.file(name)
            try Data(text.utf8).write(to: url)
            do {
                _ = try ManagedObjectModel(contentsOf: url)
                Issue.record("\(name) was read as a model.")
            } catch let error as QuireError {
                #expect(error.code == .invalidModel)
                #expect(error.message == "'\(url.path)' \(expected)" || error.message.hasPrefix("'\(url.path)' \(expected)"), "\(error.message)")
                #expect(!error.message.contains("JSON.") && !error.message.contains("DEFLATE"), "\(error.message)")
            }
        }
    }

    /// Every compiled model of the fixtures (model caches of the corpus stores, `.mom` and `.momd` files): what
    /// Quire does not keep is said in words, never as Swift's debug form of a decoded value.
    @Test func compiledModelsSayWhatIsNotKeptInWords() throws {
        let root = try FixtureFiles.url("CoreData")
        var notes: [String] = []
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            switch url.pathExtension {
            case "momd", "mom":
                walker?.skipDescendants()
                if let model = try? ManagedObjectModel(contentsOf: url) { notes += model.unsupportedFeatures }
            case "sqlite":
                if let model = try? ManagedObjectModel.forStore(at: url, type: .sqlite).model { notes += model.unsupportedFeatures }
            default: continue
            }
        }
        #expect(notes.contains("Book.cover: its default value (an archived CoreDataPlus_Tests.Cover) is not kept"), "\(notes)")
        for note in notes {
            for debug in ["archivedObject(", "QuireCore.", "className:", "fields:"] {
                #expect(!note.contains(debug), "\(note)")
            }
        }
    }

    @Test(.enabled(if: ImmutableFiles.available, "needs chattr +i on the temporary folder's file system"))
    func aStoreThatCannotBeWrittenSaysWhy() throws {
        let folder = try TemporaryFolder()
        let store = folder.file("Runs.sqlite")
        try FileManager.default.copyItem(
            at: Self.samples.appendingPathComponent("Runs-sqlite.quiredoc/StoreContent/persistentStore"), to: store)
        let model = try ManagedObjectModel.embedded(inStoreAt: store, type: .sqlite)
        for immutable in [true, false] {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            if immutable { try ImmutableFiles.set(store, immutable: true) } else { #expect(chmod(store.path, 0o444) == 0) }
            defer { if immutable { try? ImmutableFiles.set(store, immutable: false) } else { chmod(store.path, 0o644) } }
            do {
                try coordinator.addPersistentStore(type: .sqlite, at: store)
                Issue.record("A store that cannot be written was opened for writing.")
            } catch let error as QuireError {
                #expect(error.code == .fileWriteNoPermission)
                let reason = immutable ? "operation not permitted" : "its mode 444 has no write permission"
                #expect(error.message.contains("is a read-only file (\(reason))"), "\(error.message)")
                #expect((error.underlying as? SystemCallError)?.code == (immutable ? EPERM : EACCES))
            }
        }
    }
}
