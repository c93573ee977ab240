import QuireCore
import QuireStores
import Foundation

/// One model version a ``CustomMigrationStage`` migrates from or to (`NSManagedObjectModelReference`): a model,
/// or where to read it, and the version checksum it must have.
///
/// ```swift
/// let v2 = try ManagedObjectModelReference(name: "Journal 2", in: bundleURL, versionChecksum: "k5Q0…=")
/// ```
///
/// The model is read when the reference is made, and checked against the checksum: a reference that names a model
/// of another version throws then, not halfway through a migration.
public final class ManagedObjectModelReference: Sendable {
    /// The model (`resolvedModel`).
    public let resolvedModel: ManagedObjectModel
    /// The checksum the model has (`versionChecksum`, ``ManagedObjectModel/versionChecksum``).
    public let versionChecksum: String

    /// A reference to a model in hand (`init(model:versionChecksum:)`).
    ///
    /// - Throws: ``QuireError/Code/migrationMissingSourceModel`` when the model's checksum is not `versionChecksum`.
    public init(model: ManagedObjectModel, versionChecksum: String) throws {
        guard model.versionChecksum == versionChecksum else {
            throw QuireError(
                .migrationMissingSourceModel,
                "The model referenced with the version checksum \(versionChecksum) has the checksum \(model.versionChecksum).")
        }
        self.resolvedModel = model
        self.versionChecksum = versionChecksum
    }

    /// A reference to the model in a file (`init(fileURL:versionChecksum:)`): a `.xcdatamodel`, a compiled `.mom`,
    /// or anything ``ManagedObjectModel/init(contentsOf:)`` reads.
    ///
    /// - Throws: The file's read error; ``QuireError/Code/migrationMissingSourceModel`` for another checksum.
    public convenience init(fileURL: URL, versionChecksum: String) throws {
        try self.init(model: try ManagedObjectModel(contentsOf: fileURL), versionChecksum: versionChecksum)
    }

    /// A reference to the version of a `.xcdatamodeld` (or `.momd`) with a name (`init(name:in:versionChecksum:)`).
    ///
    /// - Throws: ``QuireError/Code/migrationMissingSourceModel`` when the bundle has no such version or it has
    ///   another checksum; the bundle's read error.
    public convenience init(name: String, in bundleURL: URL, versionChecksum: String) throws {
        let bundle = try ModelBundle(contentsOf: bundleURL)
        guard let model = bundle.model(named: name) else {
            throw QuireError(
                .migrationMissingSourceModel, "The model bundle '\(bundleURL.path)' has no version named '\(name)'.",
                context: .init(file: bundleURL))
        }
        try self.init(model: model, versionChecksum: versionChecksum)
    }

    /// A reference to the version of a bundle whose entities have these version hashes
    /// (`init(entityVersionHashes:in:versionChecksum:)`).
    ///
    /// - Throws: ``QuireError/Code/migrationMissingSourceModel`` when no version has them.
    public convenience init(entityVersionHashes: [String: Data], in bundleURL: URL, versionChecksum: String) throws {
        let bundle = try ModelBundle(contentsOf: bundleURL)
        guard let model = bundle.models.first(where: { $0.entityVersionHashesByName == entityVersionHashes }) else {
            throw QuireError(
                .migrationMissingSourceModel, "No version of the model bundle '\(bundleURL.path)' has the entity version hashes given.",
                context: .init(file: bundleURL))
        }
        try self.init(model: model, versionChecksum: versionChecksum)
    }
}
