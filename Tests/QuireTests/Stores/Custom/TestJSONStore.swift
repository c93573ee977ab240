import Foundation
import Quire

/// A small custom atomic store registered by the tests: the whole graph as one JSON document.
struct TestJSONStore: AtomicStoreCoder {
    static let storeType = StoreType(rawValue: "TestJSON")

    static func register() {
        PersistentStoreCoordinator.registerStoreClass(TestJSONStore.self, forStoreType: storeType)
    }

    private struct File: Codable {
        var format: String
        var metadata: Data
        var nextReference: Int64
        var nodes: [AtomicStoreNode]
    }

    func decode(_ data: Data, from url: URL, model: ManagedObjectModel) throws -> AtomicStoreContents {
        let file = try JSONDecoder().decode(File.self, from: data)
        guard file.format == "quire-test-json" else {
            throw QuireError(.fileReadCorruptFile, "'\(url.path)' is not a test JSON store.", context: .init(file: url))
        }
        return AtomicStoreContents(
            metadata: try PropertyListValue.decodeDictionary(from: file.metadata), nextReference: file.nextReference,
            nodes: file.nodes)
    }

    func encode(_ contents: AtomicStoreContents, model: ManagedObjectModel) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(
            File(
                format: "quire-test-json", metadata: try PropertyListValue.encode(contents.metadata, format: .binary),
                nextReference: contents.nextReference, nodes: contents.nodes))
    }

    static func recognizes(_ head: Data) -> Bool {
        String(decoding: head, as: UTF8.self).contains("\"format\":\"quire-test-json\"")
    }
}

/// A small custom incremental store registered by the tests: a folder with one JSON file per record, the
/// metadata as a property list, and a counter file per entity hierarchy.
final class TestFolderStore: IncrementalStoreBackend {
    static let storeType = StoreType(rawValue: "TestFolder")

    static func register() {
        PersistentStoreCoordinator.registerStoreClass(TestFolderStore.self, forStoreType: storeType)
    }

    private let folder: URL
    private let readOnly: Bool

    private struct Record: Codable {
        var version: Int64
        var attributes: [String: AttributeValue]
        var relationships: [String: [StoreReference]]
    }

    init(url: URL?, options: StoreOptions, model: ManagedObjectModel) throws {
        guard let url else { throw QuireError(.persistentStoreOpen, "A folder store needs a folder.") }
        folder = url
        readOnly = options.isReadOnly
    }

    private var metadataURL: URL { folder.appendingPathComponent("metadata.plist") }

    private func recordURL(_ reference: StoreReference) -> URL {
        folder.appendingPathComponent("\(reference.entityName)-\(reference.reference).json")
    }

    func loadMetadata() throws -> [String: PropertyListValue]? {
        guard let data = try? Data(contentsOf: metadataURL) else { return nil }
        return try PropertyListValue.decodeDictionary(from: data)
    }

    func references(for entity: EntityDescription) throws -> [Int64] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).compactMap { name in
            guard name.hasPrefix(entity.name + "-"), name.hasSuffix(".json") else { return nil }
            return Int64(name.dropFirst(entity.name.count + 1).dropLast(5))
        }
    }

    func record(for reference: StoreReference) throws -> IncrementalStoreRecord? {
        guard let data = try? Data(contentsOf: recordURL(reference)) else { return nil }
        let record = try JSONDecoder().decode(Record.self, from: data)
        return IncrementalStoreRecord(
            reference: reference, version: record.version, attributes: record.attributes, relationships: record.relationships)
    }

    func obtainPermanentReferences(for entity: EntityDescription, count: Int) throws -> [Int64] {
        let root = entity.rootEntity
        let counter = folder.appendingPathComponent("counter-\(root.name)")
        // Records copied in by Save As keep the numbers Quire chose: hand out higher ones.
        func hierarchy(_ entity: EntityDescription) -> [EntityDescription] { [entity] + entity.subentities.flatMap(hierarchy) }
        let existing = try hierarchy(root).flatMap { try references(for: $0) }.max() ?? 0
        let last = max(existing, (try? String(contentsOf: counter, encoding: .utf8)).flatMap { Int64($0) } ?? 0)
        try String(last + Int64(count)).write(to: counter, atomically: true, encoding: .utf8)
        return (0..<Int64(count)).map { last + 1 + $0 }
    }

    func save(_ changes: IncrementalStoreChanges) throws {
        guard !readOnly else { throw QuireError(.persistentStoreOperation, "The folder store is read-only.") }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for record in changes.inserted + changes.updated {
            let data = try JSONEncoder().encode(
                Record(version: record.version, attributes: record.attributes, relationships: record.relationships))
            try data.write(to: recordURL(record.reference), options: .atomic)
        }
        for reference in changes.deleted { try FileManager.default.removeItem(at: recordURL(reference)) }
        if let metadata = changes.metadata {
            try PropertyListValue.encode(metadata, format: .binary).write(to: metadataURL, options: .atomic)
        }
    }
}
