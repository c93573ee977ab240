import QuireSupport
import Foundation

extension ManagedObjectModel {
    /// Adds the entries of a `.strings` file to the localization dictionary
    /// (``localizationDictionary``), replacing entries with the same keys.
    ///
    /// ```
    /// /* RunModel.strings */
    /// "Entity/Run" = "Run";
    /// "Property/processID/Entity/Run" = "Process ID";
    /// "ErrorString/Process ID < 1" = "Process ID must not be less than 1";
    /// ```
    ///
    /// ``init(contentsOf:)`` loads the strings file beside a model file by itself: for `Run.json` it reads
    /// `RunModel.strings` (Core Data's name, what Xcode gives a model's strings file) and then `Run.strings`,
    /// when they exist. The file's format is described in <doc:ValidationAndMerging>.
    ///
    /// - Parameter url: The strings file (UTF-8, or UTF-16 with a byte-order mark; at most 8 MiB).
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when it cannot be read,
    ///   ``QuireError/Code/fileReadCorruptFile`` naming the line when it is malformed.
    /// - Precondition: The model is editable.
    public func loadLocalization(contentsOf url: URL) throws {
        let entries = try StringsFile.read(url)
        localizationDictionary.merge(entries) { _, new in new }
    }

    /// Loads the strings files beside a model file that exist, over what the model file holds (the later file
    /// wins); what ``init(contentsOf:)`` does for every kind of model file.
    func loadLocalizations(besideModelAt url: URL) throws {
        for file in Self.localizationFiles(besideModelAt: url) where FileManager.default.fileExists(atPath: file.path) {
            try loadLocalization(contentsOf: file)
        }
    }

    /// The strings files ``init(contentsOf:)`` loads beside a model file, in the order they are applied:
    /// `<Name>Model.strings` (Core Data's rule) then `<Name>.strings`, where `Name` is the model file's name without
    /// its extension: `Run` for `Run.json`, `MyDocument` for `MyDocument.xcdatamodel` (also when the URL is its
    /// `contents` file) and for `MyDocument.xcdatamodeld`.
    package static func localizationFiles(besideModelAt url: URL) -> [URL] {
        var url = url
        if url.lastPathComponent == "contents", url.deletingLastPathComponent().pathExtension == "xcdatamodel" {
            url = url.deletingLastPathComponent()
        }
        let base = url.deletingPathExtension().lastPathComponent
        let folder = url.deletingLastPathComponent()
        return ["\(base)Model.strings", "\(base).strings"].map { folder.appendingPathComponent($0) }
            .filter { $0.standardizedFileURL != url.standardizedFileURL }
    }
}
