import QuireCore
import Foundation

/// Core Data's XML store: an atomic store in one XML file (see ``XMLStoreWriter`` and ``XMLStoreParser``).
///
/// Used only under the coordinator's lock.
package final class XMLStore: AtomicStore {
    /// This kind of file is written as a stream by Save As.
    override var streamsRecords: Bool { true }

    /// Refuses a model whose names the format would fold together (``checkNames(of:file:)``) before anything is
    /// read or written.
    package override func load() throws {
        try Self.checkNames(of: model, file: fileURL)
        try super.load()
    }

    /// A writer of this kind of file at the store's location.
    override func makeRecordStream(counts: [Int], nextKey: Int64) throws -> (any AtomicRecordStream)? {
        try XMLStreamWriter(url: fileURL, metadata: metadata, uuid: identifier, nextKey: nextKey, model: model)
    }

    package override func decode(_ data: Data) throws -> AtomicStoreImage {
        // The head first: a store of another model version is refused as such (and can be migrated) before
        // its objects meet a model they do not fit.
        let (head, _) = try XMLStoreParser.readHead(at: fileURL)
        // A store without a UUID (the oldest ones, with no <databaseInfo>) gets one for as long as it is open;
        // Core Data too assigns one, which a save then writes.
        let generatedUUID = UUID().uuidString
        try checkMetadata(Self.completedMetadata(head, generatedUUID: generatedUUID))
        let parsed = try XMLStoreParser.parse(data, file: fileURL, model: model, store: store)
        let metadata = Self.completedMetadata(parsed, generatedUUID: generatedUUID)
        return AtomicStoreImage(metadata: metadata, nextKey: parsed.nextKey, nodes: parsed.nodes ?? AtomicRecordTable(store: store), entityCounts: parsed.entityCounts)
    }

    package override func encode(_ image: AtomicStoreImage) throws -> [Data] {
        try Self.encode(image, model: model, uuid: identifier)
    }

    package static func encode(_ image: AtomicStoreImage, model: ManagedObjectModel, uuid: String) throws -> [Data] {
        var writer = XMLStoreWriter(capacity: 256 + image.nodes.count * 400)
        writer.head(metadata: image.metadata, uuid: uuid, nextKey: image.nextKey, model: try model.serializedRepresentation())
        for key in image.nodes.sortedKeys() {
            guard let node = image.nodes[key] else { continue }
            writer.object(node)
        }
        writer.tail()
        return [Data(writer.output)]
    }
}
