import QuireCore
import Foundation

/// Writes an XML store file object by object, for Save As: the head (with the next key, known up front),
/// then each record's `<object>` element as it comes, then the tail, through a buffer of about a megabyte.
/// The elements are those ``XMLStore/encode(_:model:uuid:)`` writes; the objects come in the order given
/// (entity by entity) rather than in key order, which readers, Core Data's included, do not depend on. The
/// file becomes the store's only when complete (``AtomicStreamFile``).
final class XMLStreamWriter: AtomicRecordStream {
    private let file: AtomicStreamFile
    private var writer = XMLStoreWriter(capacity: 1 << 20)

    /// Starts the file at `url`.
    init(
        url: URL, metadata: [String: PropertyListValue], uuid: String, nextKey: Int64, model: ManagedObjectModel
    ) throws {
        file = try AtomicStreamFile(url: url)
        do {
            writer.head(metadata: metadata, uuid: uuid, nextKey: nextKey, model: try model.serializedRepresentation())
            try drain()
        } catch {
            file.discard()
            throw error
        }
    }

    /// Writes each record's `<object>` element.
    func append(_ rows: [RowSnapshot]) throws {
        for row in rows { writer.object(row) }
        if writer.output.count >= 1 << 20 { try drain() }
    }

    private func drain() throws {
        try writer.output.withUnsafeBytes { try file.write($0) }
        writer.removeOutput()
    }

    /// Writes `</database>` and renames the file into place.
    func finish() throws {
        writer.tail()
        try drain()
        try file.commit()
    }

    /// Removes the temporary file.
    func discard() { file.discard() }
}
