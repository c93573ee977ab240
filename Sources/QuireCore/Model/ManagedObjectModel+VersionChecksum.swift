import QuireSupport
import Foundation

extension ManagedObjectModel {
    /// The model's version checksum as Core Data computes it (`versionChecksum`, the `NSStoreModelVersionChecksumKey`
    /// of a store's metadata): base64 of SHA-256 over the entities' version hashes, in entity-name order. Two
    /// models with the same checksum have the same entities as persistence sees them; staged migrations name
    /// model versions by it.
    ///
    /// ```swift
    /// let stage = LightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])
    /// ```
    public var versionChecksum: String { CoreDataVersionHash.checksum(entityVersionHashesByName) }
}
