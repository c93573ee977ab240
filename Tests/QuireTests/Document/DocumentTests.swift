import Foundation
import Testing

import Quire

/// Documents of every format and store type: new, save, open, Save As, Save To, autosave, revert, close, the
/// package layout, search metadata and extended attributes on the file system.
@Suite struct DocumentTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    @Test(arguments: DocumentFixtures.kinds)
    func newSaveAsOpenSave(kind: DocumentFixtures.Kind) throws {
        kind.register()
        let url = folder.file("Notes.\(kind.fileExtension)")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        #expect(document.fileURL == nil)
        #expect(!document.isDocumentEdited)
        DocumentFixtures.fill(document, titles: ["alpha", "beta"])
        #expect(document.isDocumentEdited)
        expectQuireError(.documentHasNoLocation) { try document.save() }
        document.searchMetadata = SearchMetadata(title: "My notes", keywords: ["work", "ideas"], authors: ["Ann", "Bob"], comment: "Draft")
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        #expect(document.fileURL == url)
        #expect(!document.isDocumentEdited)

        // A change saved to the context only still leaves the document edited.
        let context = document.managedObjectContext
        try context.performAndWait {
            let note = try #require(context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first { $0.value(forKey: "title") as? String == "beta" })
            note.setValue("gamma", forKey: "title")
            try context.save()
        }
        #expect(document.isDocumentEdited)
        #expect(try DocumentFixtures.titles(at: url, kind: kind) == ["alpha", "beta"])
        try document.save()
        #expect(!document.isDocumentEdited)
        document.close()
        #expect(try DocumentFixtures.titles(at: url, kind: kind) == ["alpha", "gamma"])

        // The type is recognized by content, and the search metadata is readable without the store.
        let sniffed = try DocumentTypeRegistry.shared.typeOfContents(at: url)
        #expect(sniffed.mimeType == DocumentFixtures.mimeType)
        #expect(sniffed.format == kind.format)
        let metadata = try SearchMetadata(contentsOf: url)
        #expect(metadata.title == "My notes")
        #expect(metadata.keywords == ["work", "ideas"])
        #expect(metadata.authors == ["Ann", "Bob"])
        #expect(metadata.comment == "Draft")
        #expect(metadata.objectCount == 3)
        #expect(metadata.indexedValues["Note.title"]?.sorted() == ["alpha", "gamma"])
        #expect(metadata.storeMetadata[StoreMetadataKey.storeType] == kind.storeType.rawValue)

        // Extended attributes, read back from the file system.
        #expect(try ExtendedAttributes.value("user.xdg.tags", of: url) == Data("work,ideas".utf8))
        // Baloo indexes no title attribute: the title is the comment's first line.
        #expect(try ExtendedAttributes.value("user.xdg.comment", of: url) == Data("My notes\nDraft".utf8))

        // Reopening keeps the application's search fields.
        let reopened = try PersistentDocument(contentsOf: url, ofType: kind.typeName, model: DocumentFixtures.model())
        #expect(reopened.searchMetadata.title == "My notes")
        reopened.close()
    }

    @Test(arguments: DocumentFixtures.storeTypes)
    func packageHasExactlyTheLayout(storeType: StoreType) throws {
        let kind = DocumentFixtures.Kind(format: .package, storeType: storeType)
        kind.register()
        let url = folder.file("Layout.notes")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["one"])
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        // While open: the package on disk holds no -wal or -shm (the open store is in the working folder).
        #expect(try DiskItems.fileSet(of: url) == [
            "Metadata/", "Metadata/meta.xml", "Metadata/summary.txt", "StoreContent/", "StoreContent/persistentStore", "mimetype",
        ])
        #expect(String(decoding: try Data(contentsOf: url.appendingPathComponent("mimetype")), as: UTF8.self) == DocumentFixtures.mimeType + "\n")
        document.close()
        #expect(try DiskItems.fileSet(of: url).allSatisfy { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
        // No leftover siblings from the safe save.
        let siblings = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains(".quire-") }
        #expect(siblings.isEmpty)
        let summary = String(decoding: try Data(contentsOf: url.appendingPathComponent(DocumentPackageLayout.summary)), as: UTF8.self)
        #expect(summary.contains("Note.title: one"))
    }

    @Test(arguments: DocumentFixtures.kinds)
    func saveToLeavesTheDocumentWhereItIs(kind: DocumentFixtures.Kind) throws {
        kind.register()
        let url = folder.file("Original.\(kind.fileExtension)")
        let copy = folder.file("Copy.\(kind.fileExtension)")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["a"])
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        DocumentFixtures.fill(document, titles: ["b"])
        try document.save(to: copy, ofType: kind.typeName, for: .saveTo)
        #expect(document.fileURL == url)
        #expect(document.isDocumentEdited)
        #expect(try DocumentFixtures.titles(at: copy, kind: kind) == ["a", "b"])
        #expect(try DocumentFixtures.titles(at: url, kind: kind) == ["a"])
        document.close()
    }

    @Test(arguments: DocumentFixtures.kinds)
    func newAutosaveSaveAsSave(kind: DocumentFixtures.Kind) throws {
        kind.register()
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        document.autosaveDirectory = folder.file("Autosave")
        DocumentFixtures.fill(document, titles: ["first"])
        try document.autosave()
        let autosaved = try #require(document.autosavedContentsFileURL)
        #expect(try DocumentFixtures.titles(at: autosaved, kind: kind) == ["first"])
        #expect(document.isDocumentEdited)
        #expect(document.fileURL == nil)

        let url = folder.file("Saved.\(kind.fileExtension)")
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        #expect(document.autosavedContentsFileURL == nil)
        #expect(DiskItems.isMissing(autosaved))
        DocumentFixtures.fill(document, titles: ["second"])
        try document.save()
        try document.autosave()
        DocumentFixtures.fill(document, titles: ["third"])
        try document.save()
        document.close()
        #expect(try DocumentFixtures.titles(at: url, kind: kind) == ["first", "second", "third"])
    }

    @Test(arguments: DocumentFixtures.kinds)
    func revertDiscardsChanges(kind: DocumentFixtures.Kind) throws {
        kind.register()
        let url = folder.file("Revert.\(kind.fileExtension)")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["kept"])
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        DocumentFixtures.fill(document, titles: ["saved to the context only"])
        try document.managedObjectContext.performAndWait { try document.managedObjectContext.save() }
        DocumentFixtures.fill(document, titles: ["unsaved"])
        try document.revert()
        #expect(!document.isDocumentEdited)
        #expect(try DocumentFixtures.titles(document) == ["kept"])
        #expect(document.undoManager?.canUndo == false)
        document.close()
    }

    @Test func saveAsConvertsBetweenFormatsAndAppliesStoreOptions() throws {
        let package = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        package.register()
        var options = StoreOptions()
        options.journalMode = .delete
        let zip = DocumentFixtures.Kind(format: .zipArchive, storeType: .sqlite)
        DocumentTypeRegistry.shared.register(
            DocumentType(name: "Notes-zip-delete", mimeType: "application/x-quire-notes-zip", extensions: ["nz"], format: .zipArchive, storeOptions: options))
        let document = try PersistentDocument(type: package.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["x", "y"])
        let first = folder.file("First.notes")
        try document.save(to: first, ofType: package.typeName, for: .saveAs)
        let context = document.managedObjectContext
        let note = try context.performAndWait {
            try #require(context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first { $0.value(forKey: "title") as? String == "x" })
        }
        let second = folder.file("Second.nz")
        try document.save(to: second, ofType: "Notes-zip-delete", for: .saveAs)
        #expect(document.fileType == "Notes-zip-delete")
        let store = try #require(document.persistentStoreCoordinator.persistentStores.first)
        #expect(store.options.journalMode == .delete)
        // The object fetched before Save As is re-pointed to the new store and still works.
        context.performAndWait {
            #expect(note.objectID.persistentStore === store)
            #expect((note.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String == "Inbox")
            note.setValue("x2", forKey: "title")
        }
        try document.save()
        document.close()
        _ = zip
        let reopened = try PersistentDocument(contentsOf: second, ofType: "Notes-zip-delete", model: DocumentFixtures.model())
        #expect(try DocumentFixtures.titles(reopened) == ["x2", "y"])
        reopened.close()
        #expect(try DocumentFixtures.titles(at: first, kind: package) == ["x", "y"])
    }

    @Test func saveAsMigratesBetweenStoreTypesAndKeepsObjectsWorking() throws {
        let sqlitePackage = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        let xmlZip = DocumentFixtures.Kind(format: .zipArchive, storeType: .xml)
        let binaryTar = DocumentFixtures.Kind(format: .tarArchive, storeType: .binary)
        for kind in [sqlitePackage, xmlZip, binaryTar] { _ = kind.register() }
        let document = try PersistentDocument(type: sqlitePackage.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["a", "b", "c"])
        try document.save(to: folder.file("One.\(sqlitePackage.fileExtension)"), ofType: sqlitePackage.typeName, for: .saveAs)
        let context = document.managedObjectContext
        let note = try context.performAndWait {
            try #require(context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first { $0.value(forKey: "title") as? String == "b" })
        }
        for (index, kind) in [xmlZip, binaryTar].enumerated() {
            let url = folder.file("Converted\(index).\(kind.fileExtension)")
            try document.save(to: url, ofType: kind.typeName, for: .saveAs)
            let store = try #require(document.persistentStoreCoordinator.persistentStores.first)
            #expect(store.type == kind.storeType)
            context.performAndWait {
                #expect(note.objectID.persistentStore === store)
                note.setValue("b\(index)", forKey: "title")
            }
            try document.save()
            #expect(try DocumentFixtures.titles(at: url, kind: kind) == ["a", "b\(index)", "c"])
        }
        document.close()
    }

    @Test func openingChecksTheType() throws {
        let package = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        let zip = DocumentFixtures.Kind(format: .zipArchive, storeType: .sqlite)
        package.register()
        zip.register()
        let url = folder.file("Typed.notes")
        let document = try PersistentDocument(type: package.typeName, model: DocumentFixtures.model())
        try document.save(to: url, ofType: package.typeName, for: .saveAs)
        document.close()
        expectQuireError(.documentTypeMismatch) {
            _ = try PersistentDocument(contentsOf: url, ofType: zip.typeName, model: DocumentFixtures.model())
        }
        expectQuireError(.unknownDocumentType) {
            _ = try PersistentDocument(contentsOf: url, ofType: "No such type", model: DocumentFixtures.model())
        }
        let plain = folder.file("plain-folder")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        expectQuireError(.documentTypeMismatch) {
            _ = try PersistentDocument(contentsOf: plain, ofType: package.typeName, model: DocumentFixtures.model())
        }
    }

    @Test func packageWithSymlinkIsRefused() throws {
        let kind = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        kind.register()
        let url = folder.file("Linked.notes")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        document.close()
        try FileManager.default.createSymbolicLink(atPath: url.appendingPathComponent("StoreContent/evil").path, withDestinationPath: "/etc/passwd")
        expectQuireError(.invalidPackage) {
            _ = try PersistentDocument(contentsOf: url, ofType: kind.typeName, model: DocumentFixtures.model())
        }
    }

    @Test func interruptedTwoRenameSaveIsRecovered() throws {
        let kind = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        kind.register()
        let url = folder.file("Recover.notes")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        DocumentFixtures.fill(document, titles: ["old"])
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        // Build the next version as the fallback does, and stop between its two renames.
        DocumentFixtures.fill(document, titles: ["new"])
        try document.managedObjectContext.performAndWait { try document.managedObjectContext.save() }
        let staging = DiskItems.safeSaveSibling(of: url, token: "crash", suffix: "new")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        try document.write(to: staging, ofType: kind.typeName, for: .save, originalContentsURL: url)
        try FileManager.default.moveItem(at: url, to: DiskItems.safeSaveSibling(of: url, token: "crash", suffix: "old"))
        document.close()
        #expect(DiskItems.isMissing(url))
        #expect(try DocumentFixtures.titles(at: url, kind: kind) == ["new", "new", "old", "old"].filter { _ in true }.uniqued())
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains(".quire-") }
        #expect(leftovers.isEmpty)
    }

    @Test func twoRenameStrategySaves() throws {
        let kind = DocumentFixtures.Kind(format: .package, storeType: .sqlite)
        kind.register()
        let url = folder.file("TwoRenames.notes")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        document.usesRenameExchange = false
        DocumentFixtures.fill(document, titles: ["a"])
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        DocumentFixtures.fill(document, titles: ["b"])
        try document.save()
        document.close()
        #expect(try DocumentFixtures.titles(at: url, kind: kind) == ["a", "b"])
    }

    @Test func saveCarriesExtendedAttributesOver() throws {
        let kind = DocumentFixtures.Kind(format: .zipArchive, storeType: .sqlite)
        kind.register()
        let url = folder.file("Tagged.noteszip")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        try ExtendedAttributes.set("user.custom.origin", to: Data("scanner".utf8), on: url)
        DocumentFixtures.fill(document, titles: ["a"])
        document.searchMetadata.keywords = ["scan"]
        try document.save()
        #expect(try ExtendedAttributes.value("user.custom.origin", of: url) == Data("scanner".utf8))
        #expect(try ExtendedAttributes.value("user.xdg.tags", of: url) == Data("scan".utf8))
        #expect(try ExtendedAttributes.value("user.xdg.comment", of: url) == nil)
        document.close()
    }

    @Test func additionalContentTravelsWithTheDocument() throws {
        let kind = DocumentFixtures.Kind(format: .tarArchive, storeType: .sqlite)
        kind.register()
        let url = folder.file("Extra.notestar")
        let document = try PersistentDocument(type: kind.typeName, model: DocumentFixtures.model())
        try FileManager.default.createDirectory(at: document.additionalContentURL, withIntermediateDirectories: true)
        try Data("thumbnail".utf8).write(to: document.additionalContentURL.appendingPathComponent("thumb.txt"))
        try document.save(to: url, ofType: kind.typeName, for: .saveAs)
        document.close()
        let reopened = try PersistentDocument(contentsOf: url, ofType: kind.typeName, model: DocumentFixtures.model())
        #expect(try Data(contentsOf: reopened.additionalContentURL.appendingPathComponent("thumb.txt")) == Data("thumbnail".utf8))
        reopened.close()
    }
}

extension Array where Element: Hashable {
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
