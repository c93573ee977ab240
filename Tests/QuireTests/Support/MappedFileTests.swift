// Unit tests of mapped files and of the XML store's file reading, which have no public face: uses QuireCore's and QuireStores' package API.
import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// Store files are mapped rather than copied, and files that cannot be mapped are read or refused as before.
@Suite struct MappedFileTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    @Test func mapsAFileWithItsBytes() throws {
        let url = folder.file("bytes.bin")
        let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: url)
        let mapped = try #require(MappedFile.map(url))
        #expect(mapped == bytes)
        // Replacing the file by rename, as stores are written, leaves the mapping reading the old bytes.
        let replacement = folder.file("replacement.bin")
        try Data("new".utf8).write(to: replacement)
        #expect(rename(replacement.path, url.path) == 0)
        #expect(mapped == bytes)
    }

    @Test func whatCannotBeMappedIsNotMapped() throws {
        #expect(MappedFile.map(folder.file("missing.bin")) == nil)
        let empty = folder.file("empty.bin")
        try Data().write(to: empty)
        #expect(MappedFile.map(empty) == nil)
        #expect(MappedFile.map(folder.url) == nil)
    }

    @Test func aStoreThatCannotBeReadIsReportedAsBefore() throws {
        let model = Fixtures.companyModel()
        let missingStore = try StoreKinds.makeStore(
            type: .xml, url: folder.file("missing.xml"), configuration: nil, options: StoreOptions(), model: model)
        let missing = try #require(missingStore.backend as? XMLStore)
        let error = try #require(throws: QuireError.self) { _ = try missing.readFile() }
        #expect(error.code == .fileReadNoPermission)
        #expect(error.context.file?.path == folder.file("missing.xml").path)
        let directoryStore = try StoreKinds.makeStore(
            type: .xml, url: folder.url, configuration: nil, options: StoreOptions(), model: model)
        let directory = try #require(directoryStore.backend as? XMLStore)
        #expect(throws: QuireError.self) { _ = try directory.readFile() }
        withExtendedLifetime((missingStore, directoryStore)) {}
    }

    @Test func binaryAndXMLStoresLoadFromMappedFiles() throws {
        for (type, name) in [(StoreType.xml, "Company.xml"), (.binary, "Company.quire")] {
            let url = folder.file(name)
            do {
                let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
                try coordinator.addPersistentStore(type: type, at: url)
                let context = ManagedObjectContext()
                context.persistentStoreCoordinator = coordinator
                let department = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Department"]), insertInto: context)
                department.setValue("Research", forKey: "name")
                try context.save()
            }
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
            try coordinator.addPersistentStore(type: type, at: url)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            let department = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Department")).first)
            #expect(department.value(forKey: "name") as? String == "Research")
        }
    }
}
