import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// `quire samples OUTPUT_DIR`: writes the sample documents deterministically (what `SampleDocuments/` holds).
struct Samples: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the sample documents (Runs and Library, every store type, package, zip and tar) into a folder.",
        discussion: """
            Contents, metadata, store UUIDs and archive entry times are the same at each run, and the XML Runs \
            documents the same bytes. The SQLite and binary store files carry values of each save, and external \
            data files (Library) have random UUID names, so those documents differ in bytes between runs while \
            `quire diff` reports them equal.

            Examples:
              quire samples ~/QuireSamples
            """)

    @Argument(help: "The folder to write into (created; it must not hold the samples yet unless --force).", completion: .directory)
    var folder: String

    @Flag(help: "Replace existing samples.")
    var force = false

    /// The MIME type of every sample document.
    static let mimeType = "application/x-quire-sample"

    /// The sample's store options: a small external data threshold, so photos go beside the store.
    static var storeOptions: StoreOptions {
        var options = StoreOptions()
        options.externalDataThreshold = 1024
        options.journalMode = .delete
        return options
    }

    /// The entry time of the sample archives (2026-01-01), so that they are the same bytes at each run.
    static let sourceDateEpoch = "1767225600"

    func run() throws {
        setenv("SOURCE_DATE_EPOCH", Self.sourceDateEpoch, 1)
        let root = fileURL(folder)
        try writing(root) { try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true) }
        let types: [(StoreType, String)] = [(.sqlite, "sqlite"), (.xml, "xml"), (.binary, "binary")]
        for (name, model, fill) in Self.documents {
            for (type, typeName) in types {
                let scratch = try stagingFolder(beside: root.appendingPathComponent(name))
                defer { try? FileManager.default.removeItem(at: scratch) }
                let store = scratch.appendingPathComponent(DocumentPackageLayout.storeFileName)
                try writing(root) {
                    let coordinator = try PersistentStoreCoordinator(managedObjectModel: model())
                    let added = try coordinator.addPersistentStore(type: type, at: store, options: Self.storeOptions)
                    let context = ManagedObjectContext()
                    context.persistentStoreCoordinator = coordinator
                    try context.performAndWait {
                        try fill(context, coordinator.managedObjectModel)
                        try context.save()
                    }
                    try coordinator.remove(added)
                    var metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: store)
                    metadata[StoreMetadataKey.storeUUID] = .string(Self.uuid(for: "\(name)-\(typeName)"))
                    metadata["SampleDocument"] = .string(name)
                    try PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: type, at: store)
                }
                let base = "\(name)-\(typeName)"
                let package = root.appendingPathComponent("\(base).quiredoc")
                let built = scratch.appendingPathComponent("package", isDirectory: true)
                try writing(package) {
                    try DocumentContents.writePackage(at: built, storeAt: store, mimeType: Self.mimeType)
                    for (format, ext) in [(DocumentType.Format.zipArchive, "zip"), (.tarArchive, "tar")] {
                        let file = scratch.appendingPathComponent(ext)
                        try DocumentContents.writeArchive(ofPackage: built, to: file, format: format, compression: .deflated)
                        try moveIntoPlace(file, to: root.appendingPathComponent("\(base).\(ext)"), force: force)
                    }
                }
                try moveIntoPlace(built, to: package, force: force)
                print("Wrote \(base).quiredoc, \(base).zip, \(base).tar")
            }
        }
    }

    /// A stable UUID for a sample's name (FNV-1a of the name and each byte's position; version 4 bits set).
    static func uuid(for name: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for position in bytes.indices {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in Array(name.utf8) + [UInt8(position)] {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            bytes[position] = UInt8(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> 56)
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
            bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString
    }

    typealias Filler = @Sendable (ManagedObjectContext, ManagedObjectModel) throws -> Void

    /// The sample documents: name, model and contents.
    static let documents: [(String, @Sendable () -> ManagedObjectModel, Filler)] = [
        ("Runs", { Demo.model() }, fillRuns),
        ("Library", libraryModel, fillLibrary),
    ]

    @Sendable static func fillRuns(_ context: ManagedObjectContext, _ model: ManagedObjectModel) throws {
        guard let run = model.entitiesByName["Run"] else { return }
        let start = Date(timeIntervalSinceReferenceDate: 786_000_000)
        for index in 0..<5 {
            let object = ManagedObject(entity: run, insertInto: context)
            object.setValue(start.addingTimeInterval(Double(index) * 3600), forKey: "date")
            if index > 0 { object.setValue(Int64(1000 + index), forKey: "processID") }
        }
    }

    /// Author and Publication (the fetch request template example), Employee and Department (the uniquing
    /// example), Item with photos stored as external binary data.
    @Sendable static func libraryModel() -> ManagedObjectModel {
        let author = EntityDescription(name: "Author")
        author.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            RelationshipDescription(name: "publications", destination: "Publication", toMany: true, inverse: "author"),
        ]
        let publication = EntityDescription(name: "Publication")
        publication.properties = [
            AttributeDescription(name: "title", type: .string, isOptional: false),
            AttributeDescription(name: "publicationDate", type: .date),
            RelationshipDescription(name: "author", destination: "Author", inverse: "publications"),
        ]
        let department = EntityDescription(name: "Department")
        department.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            RelationshipDescription(name: "employees", destination: "Employee", toMany: true, inverse: "department"),
        ]
        let employee = EntityDescription(name: "Employee")
        employee.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "salary", type: .integer64, defaultValue: 0),
            RelationshipDescription(name: "department", destination: "Department", inverse: "employees"),
        ]
        let photo = AttributeDescription(name: "photo", type: .binaryData)
        photo.allowsExternalBinaryDataStorage = true
        let item = EntityDescription(name: "Item")
        item.properties = [AttributeDescription(name: "name", type: .string, isOptional: false), photo]
        let model = ManagedObjectModel(entities: [author, publication, department, employee, item])
        let request = FetchRequest<ManagedObject>(entityName: "Publication")
        if let predicate = try? QueryPredicate(format: "publicationDate > $DATE") {
            request.predicate = predicate
            model.setFetchRequestTemplate(request, forName: "publicationsSinceDate")
        }
        return model
    }

    @Sendable static func fillLibrary(_ context: ManagedObjectContext, _ model: ManagedObjectModel) throws {
        func insert(_ entity: String, _ values: [String: Any]) -> ManagedObject? {
            guard let description = model.entitiesByName[entity] else { return nil }
            let object = ManagedObject(entity: description, insertInto: context)
            for (key, value) in values.sorted(by: { $0.key < $1.key }) { object.setValue(value, forKey: key) }
            return object
        }
        let day = 86_400.0
        let books: [(String, [(String, Double)])] = [
            ("Ada Lovelace", [("Sketch of the Analytical Engine", -4_990 * day * 10)]),
            ("Grace Hopper", [("A Manual of Operation for the ASCC", -2_070 * day * 10), ("Compiling Routines", -1_750 * day * 10)]),
            ("Edsger Dijkstra", [("Go To Statement Considered Harmful", -1_200 * day * 10)]),
        ]
        for (name, publications) in books {
            let author = insert("Author", ["name": name])
            for (title, date) in publications {
                let publication = insert("Publication", ["title": title, "publicationDate": Date(timeIntervalSinceReferenceDate: date)])
                publication?.setValue(author, forKey: "author")
            }
        }
        let departments: [(String, [(String, Int64)])] = [
            ("Engineering", [("Alan", 120_000), ("Barbara", 125_000)]),
            ("Research", [("Claude", 110_000)]),
        ]
        for (name, staff) in departments {
            let department = insert("Department", ["name": name])
            for (person, salary) in staff {
                let employee = insert("Employee", ["name": person, "salary": salary])
                employee?.setValue(department, forKey: "department")
            }
        }
        for (index, name) in ["Lighthouse", "Harbour", "Dunes"].enumerated() {
            // A deterministic 2 KiB "photo", above the samples' 1 KiB external data threshold.
            var bytes = [UInt8](repeating: 0, count: 2048)
            var state = UInt32(index + 1) &* 2_654_435_761
            for offset in bytes.indices {
                state = state &* 1_103_515_245 &+ 12_345
                bytes[offset] = UInt8(truncatingIfNeeded: state >> 16)
            }
            _ = insert("Item", ["name": name, "photo": Data(bytes)])
        }
        _ = insert("Item", ["name": "Untitled"])
    }
}
