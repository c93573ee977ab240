import Foundation
import OrderedCollections
import Testing

import Quire
import QuirePostgres

#if canImport(Glibc)
import Glibc
#endif

/// Save As (`migratePersistentStore(_:to:options:type:)`): any type to any type, objects keep working,
/// metadata and external data carried over, failures leave the source as it was.
@Suite struct SaveAsTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    private func makeCompany(_ stack: ConformanceStack) throws {
        let research = try stack.insert("Department", ["name": "Research"])
        let ada = try stack.insert("Employee", ["name": "Ada", "salary": 300])
        let dee = try stack.insert("Manager", ["name": "Dee", "salary": 400, "level": 3])
        ada.setValue(research, forKey: "department")
        dee.setValue(research, forKey: "department")
        ada.setValue(try stack.insert("Badge", ["code": "A-1"]), forKey: "badge")
        let engine = try stack.insert("Project", ["title": "Engine"])
        engine.setValue(Set([ada, dee]), forKey: "members")
        engine.setValue(OrderedSet(try ["design", "build", "test"].map { try stack.insert("Task", ["title": $0]) }), forKey: "tasks")
        try stack.context.save()
    }

    private func target(_ kind: StoreKind) -> URL? {
        if kind.type == .postgres {
            return PostgresTestServer.storeURL(schema: "saved_" + folder.url.lastPathComponent.lowercased().filter { $0.isLetter || $0.isNumber }.suffix(32))
        }
        return kind.fileName.map { folder.file("SavedAs-" + $0) }
    }

    /// A canonical text of a graph: every object by entity, its attributes and its relationships by the
    /// related objects' texts, sorted (ordered relationships in order).
    static func dump(_ context: ManagedObjectContext, _ model: ManagedObjectModel) throws -> [String] {
        // Inherited properties first, then the entity's own, in the order the model lists them.
        func allAttributes(of entity: EntityDescription) -> [AttributeDescription] {
            (entity.superentity.map(allAttributes) ?? []) + entity.properties.compactMap { $0 as? AttributeDescription }
        }
        func allRelationships(of entity: EntityDescription) -> [RelationshipDescription] {
            (entity.superentity.map(allRelationships) ?? []) + entity.properties.compactMap { $0 as? RelationshipDescription }
        }
        var lines: [String] = []
        func label(_ object: ManagedObject) -> String {
            let key = allAttributes(of: object.entity).first { $0.attributeType == .string }?.name
            return "\(object.entity.name):\(key.flatMap { object.value(forKey: $0) as? String } ?? "?")"
        }
        for entity in model.entities.sorted(by: { $0.name < $1.name }) where !entity.isAbstract {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            request.includesSubentities = false
            for object in try context.fetch(request) {
                var parts = [label(object)]
                for attribute in allAttributes(of: entity) {
                    let value: Any? = attribute.attributeType == .binaryData ? try object.dataValue(forKey: attribute.name) : object.value(forKey: attribute.name)
                    parts.append("\(attribute.name)=\(value.map { "\($0)" } ?? "nil")")
                }
                for relationship in allRelationships(of: entity) {
                    switch object.value(forKey: relationship.name) {
                    case let one as ManagedObject: parts.append("\(relationship.name)->\(label(one))")
                    case let many as Set<ManagedObject>: parts.append("\(relationship.name)->\(many.map(label).sorted())")
                    case let ordered as OrderedSet<ManagedObject>: parts.append("\(relationship.name)->\(ordered.map(label))")
                    default: parts.append("\(relationship.name)->nil")
                    }
                }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines.sorted()
    }

    @Test(arguments: StoreKind.all, StoreKind.all)
    func anyTypeToAnyType(from source: StoreKind, to destination: StoreKind) throws {
        let stack = try source.stack(Fixtures.companyModel(), in: folder)
        try makeCompany(stack)
        let store = try #require(stack.store)
        var metadata = stack.coordinator.metadata(for: store)
        metadata["keywords"] = ["saved", "as"]
        stack.coordinator.setMetadata(metadata, for: store)
        try stack.context.save()
        let before = try Self.dump(stack.context, stack.model)
        let ada = try #require(try stack.fetch("Employee", "name == 'Ada'").first)
        let research = try #require(ada.value(forKey: "department") as? ManagedObject)

        let saved = try stack.coordinator.migratePersistentStore(store, to: target(destination), type: destination.type)
        #expect(stack.coordinator.persistentStores.count == 1)
        #expect(stack.coordinator.persistentStores.first === saved)
        #expect(saved.type == destination.type)
        #expect(saved.identifier != store.identifier)
        #expect(saved.metadata["keywords"] == ["saved", "as"])
        #expect(saved.metadata[StoreMetadataKey.storeType] == .string(destination.type.rawValue))
        // The context's objects now belong to the new store and keep working.
        #expect(ada.objectID.persistentStore === saved)
        #expect(research.objectID.persistentStore === saved)
        #expect((ada.value(forKey: "department") as? ManagedObject) === research)
        #expect(try Self.dump(stack.context, stack.model) == before)
        ada.setValue(333, forKey: "salary")
        _ = try stack.insert("Department", ["name": "Sales"])
        try stack.context.save()
        guard let url = target(destination) else { return }
        for attached in stack.coordinator.persistentStores { try stack.coordinator.remove(attached) }
        let reopened = try PersistentStoreCoordinator(managedObjectModel: Fixtures.companyModel())
        try reopened.addPersistentStore(type: destination.type, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = reopened
        let request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.predicate = try QueryPredicate(format: "name == 'Ada'")
        #expect(try context.fetch(request).first?.value(forKey: "salary") as? Int64 == 333)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Department")) == 2)
    }

    @Test func aFailedSaveAsLeavesTheSourceAttachedAndRemovesTheTarget() throws {
        let stack = try StoreKind.sqlite.stack(Fixtures.companyModel(), in: folder)
        try makeCompany(stack)
        let store = try #require(stack.store)
        let ada = try #require(try stack.fetch("Employee", "name == 'Ada'").first)
        let missingFolder = folder.file("No/Such/Folder/Copy.xml")
        let error = try #require(throws: QuireError.self) {
            try stack.coordinator.migratePersistentStore(store, to: missingFolder, type: .xml)
        }
        #expect(error.message.contains("Save As"))
        #expect(stack.coordinator.persistentStores.first === store)
        #expect(ada.objectID.persistentStore === store)
        let existing = folder.file("Existing.quire")
        try Data("keep me".utf8).write(to: existing)
        #expect(throws: QuireError.self) { try stack.coordinator.migratePersistentStore(store, to: existing, type: .binary) }
        #expect(try Data(contentsOf: existing) == Data("keep me".utf8))
        ada.setValue(1, forKey: "salary")
        try stack.context.save()
        #expect(try stack.fetch("Employee", "salary == 1").count == 1)
    }

    @Test func theTargetsOptionsApply() throws {
        let stack = try StoreKind.binary.stack(Fixtures.companyModel(), in: folder)
        try makeCompany(stack)
        var options = StoreOptions()
        options.journalMode = .delete
        let url = folder.file("Copy.sqlite")
        let saved = try stack.coordinator.migratePersistentStore(try #require(stack.store), to: url, options: options, type: .sqlite)
        #expect(saved.url == url)
        #expect(try sqlite3(url, "PRAGMA journal_mode") == "delete")
        var readOnly = StoreOptions()
        readOnly.isReadOnly = true
        let copy = try stack.coordinator.migratePersistentStore(saved, to: folder.file("Copy.xml"), options: readOnly, type: .xml)
        #expect(copy.isReadOnly)
        let ada = try #require(try stack.fetch("Employee", "name == 'Ada'").first)
        ada.setValue(1, forKey: "salary")
        #expect(throws: QuireError.self) { try stack.context.save() }
    }

    @Test func externalDataIsHardLinkedAndAMissingFileFailsCleanly() throws {
        var options = StoreOptions()
        options.externalDataThreshold = 100
        let stack = try StoreKind.sqlite.stack(Fixtures.everyTypeModel(), in: folder, options: options)
        let bytes = Data((0..<5000).map { UInt8($0 % 253) })
        _ = try stack.insert("Sample", ["vBinarydata": bytes, "vString": "one"])
        try stack.context.save()
        let store = try #require(stack.store)
        let sourceFolder = ExternalDataFiles(storeURL: try #require(stack.url), type: .sqlite)
        let name = try #require(sourceFolder.fileNames().first)

        let url = folder.file("Copy.quire")
        let saved = try stack.coordinator.migratePersistentStore(store, to: url, options: options, type: .binary)
        let targetFolder = ExternalDataFiles(storeURL: url, type: .binary)
        var a = stat()
        var b = stat()
        #expect(stat(sourceFolder.file(name).path, &a) == 0 && stat(targetFolder.file(name).path, &b) == 0)
        #expect(a.st_ino == b.st_ino)
        let sample = try #require(try stack.fetch("Sample").first)
        #expect(try sample.dataValue(forKey: "vBinarydata") == bytes)
        #expect(saved.type == .binary)

        // A store whose file went missing cannot be saved elsewhere; nothing of the target remains.
        try FileManager.default.removeItem(at: targetFolder.file(name))
        let again = folder.file("Again.xml")
        let error = try #require(throws: QuireError.self) { try stack.coordinator.migratePersistentStore(saved, to: again, type: .xml) }
        #expect(error.code == .fileReadNoSuchFile)
        #expect(error.context.key == "vBinarydata")
        #expect(!FileManager.default.fileExists(atPath: again.path))
        #expect(!FileManager.default.fileExists(atPath: ExternalDataFiles.supportFolder(forStore: again, type: .xml).path))
        #expect(stack.coordinator.persistentStores.first === saved)
    }

    @Test(arguments: ["company", "everyType"])
    func roundTripThroughEveryTypeKeepsTheGraph(modelName: String) throws {
        let model = modelName == "company" ? Fixtures.companyModel() : Fixtures.everyTypeModel()
        var options = StoreOptions()
        options.externalDataThreshold = 100
        let stack = try StoreKind.sqlite.stack(model, in: folder, options: options)
        if stack.model.entitiesByName["Sample"] != nil {
            _ = try stack.insert("Sample", [
                "vBinarydata": Data(repeating: 7, count: 4000), "vString": "big", "vInteger16": Int16(3), "vDate": Date(timeIntervalSinceReferenceDate: 9),
                "vDecimal": Decimal(string: "1.5") ?? 0, "vUuid": UUID(), "vUri": URL(string: "https://x.org") as Any, "vFloat": Float(0.5),
                "vTransformable": ["a"], "plainData": Data([1]),
            ])
            _ = try stack.insert("Sample", ["vBinarydata": Data([1, 2, 3]), "vString": "small"])
            try stack.context.save()
        } else {
            try makeCompany(stack)
        }
        let first = try Self.dump(stack.context, stack.model)
        var store = try #require(stack.store)
        for (index, kind) in [StoreKind.xml, .binary, .inMemory, .sqlite].enumerated() {
            store = try stack.coordinator.migratePersistentStore(
                store, to: kind.fileName.map { folder.file("Step\(index)-" + $0) }, options: options, type: kind.type)
        }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = stack.coordinator
        #expect(try Self.dump(context, stack.model) == first)
        #expect(try Self.dump(stack.context, stack.model) == first)
    }
}
