import QuireSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How external binary data is read a piece at a time: stores hand the bytes behind an
/// ``ExternalDataReference`` to a body in chunks of at most ``size`` bytes, so a value of any size is read
/// with one chunk in memory.
package enum ExternalDataChunks {
    /// The largest chunk handed out (256 KiB), and the size of the chunks a PostgreSQL store keeps.
    package static let size = 262_144
}

extension PersistentStoreBackend {
    /// Hands the bytes of an external data file beside the store to `body` a chunk at a time.
    ///
    /// - Throws: the errors of ``ExternalDataFolder/check(_:expectedLength:object:key:)`` when the file is missing
    ///   or has another length than recorded; ``QuireError/Code/fileReadCorruptFile`` when it changes while read.
    package func readExternalData(
        _ reference: ExternalDataReference, of objectID: ObjectID, key: String, chunks body: (Data) throws -> Void
    ) throws {
        guard let folder = externalDataFolder else {
            throw QuireError(
                .fileReadNoSuchFile, "The external data of '\(key)' of \(objectID) cannot be read: the store has no folder.",
                context: .init(entity: objectID.entity.name, key: key, object: objectID.uriRepresentation()))
        }
        let length = try folder.check(
            reference, expectedLength: reference.length ?? recordedLength(ofExternalData: reference.uuid), object: objectID,
            key: key)
        let target = folder.file(reference.uuid)
        let context = QuireError.Context(file: target, entity: objectID.entity.name, key: key, object: objectID.uriRepresentation())
        let descriptor = Glibc.open(target.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw QuireError(
                .fileReadNoPermission, "The external data of '\(key)' of \(objectID) cannot be read from '\(target.path)'.",
                context: context)
        }
        defer { Glibc.close(descriptor) }
        var remaining = length
        var buffer = Data(count: ExternalDataChunks.size)
        while remaining > 0 {
            let wanted = Int(min(Int64(ExternalDataChunks.size), remaining))
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw QuireError(
                    .fileReadCorruptFile, "The external data of '\(key)' of \(objectID) is truncated: '\(target.path)' changed while read.",
                    context: context)
            }
            try body(buffer.prefix(count))
            remaining -= Int64(count)
        }
    }
}
