import QuireSupport
import Foundation

/// The `VersionInfo.plist` of a compiled `.momd` folder: which version is current, and the entity version
/// hashes `momc` computed for every version.
package struct ModelVersionInfo: Sendable, Hashable {
    /// The name of the current version (`NSManagedObjectModel_CurrentVersionName`), whose `<name>.mom` the
    /// folder holds.
    package var currentVersionName: String?
    /// Entity version hashes by version name, then entity name (`NSManagedObjectModel_VersionHashes`).
    package var versionHashes: [String: [String: Data]]
    /// `NSManagedObjectModel_VersionHashesVersion`, when present.
    package var versionHashesVersion: Int?

    /// The largest `VersionInfo.plist` accepted (real ones are a few kilobytes).
    package static let maximumSize = 4 * 1024 * 1024

    /// Parses `VersionInfo.plist` bytes (binary or XML; it holds no keyed-archive references).
    ///
    /// - Throws: ``CompiledModelError/invalidModelBundle(_:)`` when the list is malformed or holds values
    ///   of the wrong kinds, ``CompiledModelError/inputTooLarge(size:limit:)`` when it is too large.
    package init(data: Data) throws {
        guard data.count <= ModelVersionInfo.maximumSize else {
            throw CompiledModelError.inputTooLarge(size: data.count, limit: ModelVersionInfo.maximumSize)
        }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw CompiledModelError.invalidModelBundle("VersionInfo.plist is not a property list")
        }
        guard let root = object as? [String: Any] else {
            throw CompiledModelError.invalidModelBundle("VersionInfo.plist is not a dictionary")
        }
        if let name = root["NSManagedObjectModel_CurrentVersionName"] {
            guard let text = name as? String else {
                throw CompiledModelError.invalidModelBundle("NSManagedObjectModel_CurrentVersionName is not a string")
            }
            currentVersionName = text
        }
        versionHashes = [:]
        if let hashes = root["NSManagedObjectModel_VersionHashes"] {
            guard let versions = hashes as? [String: Any] else {
                throw CompiledModelError.invalidModelBundle("NSManagedObjectModel_VersionHashes is not a dictionary")
            }
            for (version, entities) in versions {
                guard let entries = entities as? [String: Any] else {
                    throw CompiledModelError.invalidModelBundle("the hashes of version '\(version)' are not a dictionary")
                }
                var byEntity: [String: Data] = [:]
                for (entity, hash) in entries {
                    guard let bytes = hash as? Data else {
                        throw CompiledModelError.invalidModelBundle("the hash of '\(version).\(entity)' is not data")
                    }
                    byEntity[entity] = bytes
                }
                versionHashes[version] = byEntity
            }
        }
        versionHashesVersion = (root["NSManagedObjectModel_VersionHashesVersion"] as? NSNumber)?.intValue
    }
}
