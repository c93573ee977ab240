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
    var versionHashesVersion: Int?

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

    /// The version of the `.momd` folder at `url` to read: the one whose hashes are `storeHashes`, else the
    /// current version, else the newest `.mom` in the folder.
    ///
    /// - Throws: ``CompiledModelError/invalidModelBundle(_:)`` when the current version's name is not a plain
    ///   file name, or no version is named and the folder holds no `.mom`.
    func versionToRead(inBundleAt url: URL, matchingStoreHashes storeHashes: [String: Data]?) throws -> String {
        let compiled = (try? FileManager.default.contentsOfDirectory(atPath: url.path))?
            .filter { $0.hasSuffix(".mom") && $0.count > 4 }
            .map { String($0.dropLast(4)) }
            .sorted(by: ModelVersionInfo.versionOrder) ?? []
        if let storeHashes, !storeHashes.isEmpty,
            let match = compiled.last(where: { versionHashes[$0] == storeHashes })
        {
            return match
        }
        if let name = currentVersionName {
            guard !name.isEmpty, !name.contains("/"), !name.contains("\0"), name != ".", name != ".." else {
                throw CompiledModelError.invalidModelBundle("the current version name '\(name)' is not a plain file name")
            }
            return name
        }
        guard let newest = compiled.last else {
            throw CompiledModelError.invalidModelBundle("VersionInfo.plist names no current version and the folder holds no .mom")
        }
        return newest
    }

    /// The order of momc's version names, oldest first: runs of digits compare as numbers (`Model2.0.10` after
    /// `Model2.0.9`, `Model 10` after `Model 2`), and a name that is a prefix of another comes first (`Model`,
    /// the first version, before `Model 2` and `Model2.0.0`).
    package static func versionOrder(_ a: String, _ b: String) -> Bool {
        var left = Array(a.unicodeScalars)[...]
        var right = Array(b.unicodeScalars)[...]
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
        while let l = left.first, let r = right.first {
            if isDigit(l) && isDigit(r) {
                let leftRun = left.prefix(while: isDigit)
                let rightRun = right.prefix(while: isDigit)
                left = left.dropFirst(leftRun.count)
                right = right.dropFirst(rightRun.count)
                // Compare by value without overflow: leading zeros dropped, then length, then digits.
                let leftDigits = leftRun.drop { $0 == "0" }
                let rightDigits = rightRun.drop { $0 == "0" }
                if leftDigits.count != rightDigits.count { return leftDigits.count < rightDigits.count }
                if !leftDigits.elementsEqual(rightDigits) { return leftDigits.lexicographicallyPrecedes(rightDigits) { $0.value < $1.value } }
            } else {
                if l != r { return l.value < r.value }
                left = left.dropFirst()
                right = right.dropFirst()
            }
        }
        if left.isEmpty != right.isEmpty { return left.isEmpty }
        return a < b
    }
}
