import QuireSupport
import Foundation

/// A versioned Xcode data model (a `.xcdatamodeld` bundle): every version of the model, in order, and which one
/// is current.
///
/// ```swift
/// let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: "Journal.xcdatamodeld"))
/// bundle.versionNames        // ["Journal", "Journal 2", "Journal 3"]
/// bundle.currentVersionName  // "Journal 3", from .xccurrentversion
/// let model = bundle.currentModel
/// // Bring a document written by any earlier version up to the current one:
/// try MigrationManager.migrateStore(at: storeURL, type: .sqlite, versions: bundle.models)
/// ```
///
/// `ManagedObjectModel(contentsOf:)` on a bundle reads only its current version.
public struct ModelBundle: Sendable {
    /// The bundle.
    public let url: URL
    /// The names of the versions (their folder names without `.xcdatamodel`), ordered by name with numbers
    /// compared as numbers, which is the order Xcode names new versions in.
    public let versionNames: [String]
    /// The models, one per name of ``versionNames``.
    public let models: [ManagedObjectModel]
    /// The name of the current version, as `.xccurrentversion` names it (the last version when the bundle has no
    /// such file).
    public let currentVersionName: String

    /// Reads every version of a bundle.
    ///
    /// - Parameter url: The `.xcdatamodeld` folder.
    /// - Throws: ``QuireError/Code/invalidModel`` naming the file, element and line of the first malformed
    ///   version, or a current-version file that names no version of the bundle;
    ///   ``QuireError/Code/fileReadNoSuchFile`` when the bundle cannot be read.
    public init(contentsOf url: URL) throws {
        let (versions, current) = try XcodeModelReader.versionFolders(of: url)
        self.url = url
        versionNames = versions.map(\.name)
        models = try versions.map { version in
            let document = try XcodeModelReader.document(forModelAt: version.url)
            let model = ManagedObjectModel()
            try ManagedObjectModel.apply(document, to: model, file: version.url.appendingPathComponent("contents"))
            model.versionBundleURL = url
            return model
        }
        currentVersionName = current
    }

    /// The model of the current version.
    public var currentModel: ManagedObjectModel {
        // The current name is one of the versions (checked when reading), so the index exists.
        models[versionNames.firstIndex(of: currentVersionName) ?? (models.count - 1)]
    }

    /// The model of a version, by name (with or without the `.xcdatamodel` extension); nil for another name.
    public func model(named name: String) -> ManagedObjectModel? {
        let bare = name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
        return versionNames.firstIndex(of: bare).map { models[$0] }
    }
}

extension ManagedObjectModel {
    /// Fills an empty model from a decoded document, naming the file in errors.
    package static func apply(_ document: ModelDocument, to model: ManagedObjectModel, file: URL) throws {
        do {
            try document.apply(to: model)
        } catch var error as QuireError {
            error.context.file = file
            error.message = "In '\(file.path)': " + error.message
            throw error
        }
    }
}
