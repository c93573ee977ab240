import QuireSupport
import Foundation

/// Entry points: decode a compiled model from a store's `Z_MODELCACHE` blob, a `.mom` file, an Xcode 3
/// `elements` file, or a `.momd` folder.
///
/// ```swift
/// let model = try CompiledModelDecoder.decodeModelCache(blob)          // Z_MODELCACHE.Z_CONTENT
/// let same = try CompiledModelDecoder.decode(contentsOf: momdURL)      // .momd, .mom, elements, .xcdatamodel
/// ```
package enum CompiledModelDecoder {
    /// Decodes a `Z_MODELCACHE.Z_CONTENT` blob: raw DEFLATE of a keyed archive of `NSManagedObjectModel`.
    ///
    /// - Throws: ``CompiledModelError``; never traps on malformed input.
    package static func decodeModelCache(_ blob: Data, limits: DecodingLimits = .default) throws -> CompiledModel {
        guard blob.count <= limits.maximumInputSize else {
            throw CompiledModelError.inputTooLarge(size: blob.count, limit: limits.maximumInputSize)
        }
        let archive = try RawInflate.inflate(blob, limit: limits.maximumInflatedSize)
        return try decodeArchive(archive, limits: limits)
    }

    /// Decodes a keyed archive: of `NSManagedObjectModel` (a `.mom` file, an inflated model cache) or of
    /// Xcode's `XDPMModel` (an `elements` file), chosen by the root object's class.
    ///
    /// - Throws: ``CompiledModelError/unexpectedClass(expected:found:context:)`` when the root is neither.
    package static func decodeArchive(_ data: Data, limits: DecodingLimits = .default) throws -> CompiledModel {
        let budget = DecodingBudget(limits: limits)
        let archive = try KeyedArchive(data: data, limits: limits, budget: budget)
        let resolver = ArchiveResolver(archive: archive, budget: budget)
        let root = try resolver.object(at: try archive.rootUID())
        let context = DecodingContext(resolver: resolver)
        if root.isKind(of: "NSManagedObjectModel") {
            return try ManagedObjectModelDecoder(context: context).decode(root: root)
        }
        if root.isKind(of: "XDPMModel") {
            return try XcodeElementsDecoder(context: context).decode(root: root)
        }
        throw CompiledModelError.unexpectedClass(expected: "NSManagedObjectModel or XDPMModel", found: root.className, context: "the archive's root")
    }

    /// Decodes the model at a URL: a `.momd` folder (the version ``decodeBundle(at:matchingStoreHashes:limits:)``
    /// chooses, with the version hashes of its `VersionInfo.plist`), a `.xcdatamodel` folder holding an
    /// `elements` file, or a file (`.mom`, `elements`, or a raw-DEFLATE model cache blob).
    ///
    /// - Throws: ``CompiledModelError``.
    package static func decode(
        contentsOf url: URL, matchingStoreHashes storeHashes: [String: Data]? = nil, limits: DecodingLimits = .default
    ) throws -> CompiledModel {
        if SafeFileReader.isDirectory(url) {
            if url.pathExtension == "momd" { return try decodeBundle(at: url, matchingStoreHashes: storeHashes, limits: limits) }
            let elements = url.appendingPathComponent("elements")
            if FileManager.default.fileExists(atPath: elements.path) {
                return try decode(data: try SafeFileReader.read(elements, limit: limits.maximumInputSize), limits: limits)
            }
            throw CompiledModelError.fileError(path: url.path, reason: "the folder is neither a .momd nor an Xcode 3 model")
        }
        return try decode(data: try SafeFileReader.read(url, limit: limits.maximumInputSize), limits: limits)
    }

    /// Decodes bytes that are a keyed archive, or raw DEFLATE of one.
    package static func decode(data: Data, limits: DecodingLimits = .default) throws -> CompiledModel {
        if BinaryPropertyList.hasBinaryHeader(data) { return try decodeArchive(data, limits: limits) }
        return try decodeModelCache(data, limits: limits)
    }

    /// Decodes one version of a `.momd` folder, with its entity version hashes: the version whose hashes in
    /// `VersionInfo.plist` are `storeHashes` (a store's `NSStoreModelVersionHashes`) when one is, else the
    /// current version `VersionInfo.plist` names, else, when it names none (CartKit's `.momd`, which momc wrote
    /// for a model bundle without a current version), the newest of the folder's `.mom` files by
    /// ``ModelVersionInfo/versionOrder(_:_:)``.
    ///
    /// - Throws: ``CompiledModelError/invalidModelBundle(_:)`` when the folder holds no version to read or the
    ///   current version's name is not a plain file name, and the errors of decoding its `.mom`.
    static func decodeBundle(
        at url: URL, matchingStoreHashes storeHashes: [String: Data]? = nil, limits: DecodingLimits = .default
    ) throws -> CompiledModel {
        let info = try ModelVersionInfo(data: try SafeFileReader.read(url.appendingPathComponent("VersionInfo.plist"), limit: ModelVersionInfo.maximumSize))
        let name = try info.versionToRead(inBundleAt: url, matchingStoreHashes: storeHashes)
        let model = try decode(data: try SafeFileReader.read(url.appendingPathComponent(name + ".mom"), limit: limits.maximumInputSize), limits: limits)
        return model.applyingVersionHashes(info.versionHashes[name] ?? [:])
    }
}
