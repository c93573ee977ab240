import QuireCore
import Foundation

/// A Save As target that takes its records whole (to-many members included), in entity order, and writes
/// them to its file as they come, so that copying a store into it holds one batch of records at a time.
package protocol StreamingImportBackend: ImportingStoreBackend {
    /// Whether this store can be written as a stream (a binary or XML store in a file).
    var canStreamImport: Bool { get }
    /// Starts the new store's file.
    ///
    /// - Parameters:
    ///   - counts: The number of records of each entity, by entity number (index 0 unused).
    ///   - nextKey: The key after the highest key of the records that will come.
    func beginStreamedImport(counts: [Int], nextKey: Int64) throws
    /// Writes records: in order of entity number, each entity's in key order, with every relationship set.
    func streamRecords(_ rows: [RowSnapshot]) throws
    /// Completes the file and makes it the store's; the store reads its records back on first use.
    func finishStreamedImport() throws
    /// Removes what was written (after a failure).
    func discardStreamedImport()
}

/// A store file written record by record (see ``AtomicStore/makeRecordStream(counts:nextKey:)``).
protocol AtomicRecordStream: AnyObject {
    /// Writes records, in entity order.
    func append(_ rows: [RowSnapshot]) throws
    /// Writes the rest and renames the file into place.
    func finish() throws
    /// Removes the temporary file.
    func discard()
}

extension AtomicStore: StreamingImportBackend {
    /// Whether the store is in a file of a kind written as a stream (``streamsRecords``).
    package var canStreamImport: Bool { persistsToFile && streamsRecords }

    /// Empties the store and starts its file at a temporary name.
    package func beginStreamedImport(counts: [Int], nextKey: Int64) throws {
        discardStreamedImport()
        nodes.removeAll()
        recordsPending = false
        self.nextKey = nextKey
        blobWrites = externalDataFolder.map { ExternalDataWrites(folder: $0, threshold: options.externalDataThreshold) }
        do {
            recordStream = try makeRecordStream(counts: counts, nextKey: nextKey)
        } catch {
            blobWrites?.discard()
            blobWrites = nil
            throw error
        }
        if recordStream == nil { throw unsupported("streamed import") }
    }

    /// Writes records, their large data moved to files (or read in) as a save would.
    package func streamRecords(_ rows: [RowSnapshot]) throws {
        guard let recordStream else { throw unsupported("streamed import") }
        var stored = rows
        for index in stored.indices {
            stored[index].attributes = try storedAttributes(stored[index].attributes, of: stored[index].objectID)
        }
        try recordStream.append(stored)
    }

    /// Completes the file, and leaves the records in it until first needed.
    package func finishStreamedImport() throws {
        guard let recordStream else { throw unsupported("streamed import") }
        blobWrites?.finish()
        try recordStream.finish()
        self.recordStream = nil
        blobWrites = nil
        // The records are in the file, which is read back when first needed: holding them all now would
        // cost what streaming saved.
        nodes.removeAll()
        recordsPending = true
        metadataIsDirty = false
        noteFileWritten()
    }

    /// Removes the temporary file and the external data files written for it.
    package func discardStreamedImport() {
        recordStream?.discard()
        recordStream = nil
        if blobWrites != nil {
            blobWrites?.discard()
            blobWrites = nil
            // Nothing of the import is to be written when the store closes.
            metadataIsDirty = false
        }
    }

    /// Reads the records of a store whose file was written by a streamed import, on first use.
    ///
    /// - Throws: What reading the file throws.
    func loadPendingRecords() throws {
        guard recordsPending else { return }
        let image = try decode(try readFile())
        recordsPending = false
        nodes = image.nodes
        nextKey = max(nextKey, image.nextKey)
        if let key = nodes.keys.max(), key >= nextKey { nextKey = key + 1 }
    }
}
