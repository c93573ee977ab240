import QuireCore
import QuireStores
import Foundation

extension MappingModel {
    /// The mapping model for two model versions among those in folders and files
    /// (`NSMappingModel(from:forSourceModel:destinationModel:)`), chosen as Core Data chooses one: the mapping
    /// model whose entity mappings' source and destination version hashes are the two models' entities' hashes.
    ///
    /// ```swift
    /// let appFolder = URL(fileURLWithPath: "Sources/Moody/Resources")
    /// if let mapping = try MappingModel(from: [appFolder], forSourceModel: v4, destinationModel: v5) {
    ///     try MigrationManager(sourceModel: v4, destinationModel: v5).migrateStore(at: url, type: .sqlite, mapping: mapping)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - urls: Folders to search (each with the folders inside it, three levels down; hidden folders, model
    ///     bundles and packages are not entered) and `.xcmappingmodel` folders or `xcmapping.xml` files.
    ///   - source: The model the store was written with.
    ///   - destination: The model to migrate to.
    /// - Returns: nil when no mapping model there is for these two versions.
    /// - Throws: ``QuireError/Code/migrationMissingMappingModel`` when several are (their files named: run them as
    ///   passes with ``mappingModels(from:forSourceModel:destinationModel:)`` and
    ///   ``MigrationManager/migrateStore(from:type:options:mapping:to:type:options:)``); any error of
    ///   ``init(contentsOf:)`` for a mapping-model file that cannot be read.
    public init?(from urls: [URL], forSourceModel source: ManagedObjectModel, destinationModel destination: ManagedObjectModel) throws {
        let found = try Self.mappingModels(from: urls, forSourceModel: source, destinationModel: destination)
        guard found.count <= 1 else {
            throw QuireError(
                .migrationMissingMappingModel,
                "Several mapping models are for the same two model versions (\(found.compactMap { $0.url?.lastPathComponent }.joined(separator: ", "))); "
                    + "run them as passes, in their order, with MigrationManager.")
        }
        guard let mapping = found.first else { return nil }
        self = mapping
    }

    /// Every mapping model for two model versions among those in folders and files, in the order of their paths.
    ///
    /// - Parameters:
    ///   - urls: Where to search, as for ``init(from:forSourceModel:destinationModel:)``.
    ///   - source: The model the store was written with.
    ///   - destination: The model to migrate to.
    /// - Throws: Any error of ``init(contentsOf:)`` for a mapping-model file that cannot be read.
    public static func mappingModels(
        from urls: [URL], forSourceModel source: ManagedObjectModel, destinationModel destination: ManagedObjectModel
    ) throws -> [MappingModel] {
        try mappingModelFiles(in: urls).map { try MappingModelCache.shared.mapping(at: $0) }.filter {
            !$0.entityMappings.isEmpty && $0.isMapping(from: source, to: destination)
        }
    }

    /// The `.xcmappingmodel` folders (and loose `xcmapping.xml` files) among `urls` and in the folders they name.
    static func mappingModelFiles(in urls: [URL]) throws -> [URL] {
        var result: [URL] = []
        var seen = Set<String>()
        func add(_ url: URL) {
            if seen.insert(url.standardizedFileURL.path).inserted { result.append(url) }
        }
        func search(_ folder: URL, depth: Int) {
            guard depth <= 3, result.count < 1_000,
                let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
            else { return }
            for name in names.sorted() where !name.hasPrefix(".") {
                let child = folder.appendingPathComponent(name)
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: child.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
                switch child.pathExtension {
                case "xcmappingmodel": add(child)
                case "": search(child, depth: depth + 1)
                default: continue  // model bundles, packages
                }
            }
        }
        for url in urls {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
            if url.pathExtension == "xcmappingmodel" || !isFolder.boolValue {
                add(url)
            } else {
                search(url, depth: 0)
            }
        }
        return result
    }
}

/// Mapping models read from files, kept for as long as their files are unchanged: a migration through several
/// versions asks for the same files once per step.
final class MappingModelCache: Sendable {
    static let shared = MappingModelCache()

    private struct Entry {
        var modified: Date
        var size: Int
        var mapping: MappingModel
    }
    private let entries = LockedValue<[String: Entry]>([:])

    /// The mapping model in a file, read again when the file changed.
    func mapping(at url: URL) throws -> MappingModel {
        var file = url
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            file = url.appendingPathComponent("xcmapping.xml")
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        let modified = attributes?[.modificationDate] as? Date ?? .distantPast
        let size = (attributes?[.size] as? NSNumber)?.intValue ?? -1
        let key = url.standardizedFileURL.path
        if let entry = entries.withLock({ $0[key] }), entry.modified == modified, entry.size == size { return entry.mapping }
        let mapping = try MappingModel(contentsOf: url)
        entries.withLock { $0[key] = Entry(modified: modified, size: size, mapping: mapping) }
        return mapping
    }
}
