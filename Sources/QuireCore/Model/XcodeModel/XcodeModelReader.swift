import QuireSupport
import Foundation

/// Finds and reads Xcode data model files as they are on disk: a `.xcdatamodel` folder holding a `contents`
/// XML file, and a versioned `.xcdatamodeld` bundle of such folders whose `.xccurrentversion` property list names
/// the current one.
///
/// Files are read defensively: sizes are bounded, symbolic links are refused (a model folder's files must be its
/// own), and a bundle's current-version name must be a plain folder name inside the bundle.
enum XcodeModelReader {
    /// The largest `.xccurrentversion` file, in bytes (real ones are a few hundred).
    static let maximumVersionInfoSize = 64 * 1024
    /// The most versions a bundle may hold.
    static let maximumVersions = 1000

    /// What an URL is, for ``ManagedObjectModel/init(contentsOf:)``.
    package enum Kind {
        /// A `.xcdatamodel` folder (or its `contents` file).
        case model(folder: URL)
        /// A `.xcdatamodeld` bundle.
        case bundle(URL)
    }

    /// Whether an URL is an Xcode model: by extension, or a folder holding a `contents` file; nil for other
    /// files (Quire's JSON model files among them).
    package static func kind(of url: URL) -> Kind? {
        switch url.pathExtension {
        case "xcdatamodeld": return .bundle(url)
        case "xcdatamodel": return .model(folder: url)
        default: break
        }
        if url.lastPathComponent == "contents", url.deletingLastPathComponent().pathExtension == "xcdatamodel" {
            return .model(folder: url.deletingLastPathComponent())
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue,
            FileManager.default.fileExists(atPath: url.appendingPathComponent("contents").path)
                || FileManager.default.fileExists(atPath: url.appendingPathComponent("elements").path)
        {
            return .model(folder: url)
        }
        return nil
    }

    /// The canonical document of the model at an URL, when the URL is an Xcode model (the current version for
    /// a bundle); nil when it is not one.
    static func documentIfXcodeModel(at url: URL) throws -> ModelDocument? {
        switch kind(of: url) {
        case nil: return nil
        case .model(let folder): return try document(forModelAt: folder)
        case .bundle(let bundle):
            let (versions, current) = try versionFolders(of: bundle)
            guard let folder = versions.first(where: { $0.name == current })?.url else { return nil }
            return try document(forModelAt: folder)
        }
    }

    /// Reads and decodes the `contents` file of a `.xcdatamodel` folder.
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when the file is missing, ``QuireError/Code/invalidModel``
    ///   naming the element and line when it is malformed.
    static func document(forModelAt folder: URL) throws -> ModelDocument {
        let file = folder.appendingPathComponent("contents")
        let elements = folder.appendingPathComponent("elements")
        if !FileManager.default.fileExists(atPath: file.path), FileManager.default.fileExists(atPath: elements.path) {
            // Xcode 3 wrote models as a binary keyed archive of its own classes.
            let compiled: CompiledModel
            do {
                compiled = try CompiledModelDecoder.decode(contentsOf: folder)
            } catch let error as CompiledModelError {
                throw error.quireError(file: elements)
            }
            var unsupported = compiled.warnings.map(\.description)
            return try ModelDocument(compiled: compiled, unsupported: &unsupported)
        }
        let data = try readRegularFile(file, limit: XcodeModelXML.Limits().maximumSize, what: "model file")
        let root = try XcodeModelXML.parse(data, file: file)
        return try XcodeModelDecoder(file: file).decode(root)
    }

    /// The version folders of a bundle in order, and the name of the current one.
    ///
    /// Versions are ordered by name with numbers compared as numbers (`Model`, `Model 2`, …, `Model 10`), which is
    /// the order Xcode's "Add Model Version" names them in.
    static func versionFolders(of bundle: URL) throws -> (versions: [(name: String, url: URL)], current: String) {
        let entries: [URL]
        do {
            entries = try FileManager.default.contentsOfDirectory(
                at: bundle, includingPropertiesForKeys: [.isDirectoryKey, .isSymbolicLinkKey], options: [])
        } catch {
            throw QuireError(
                .fileReadNoSuchFile, "The model bundle '\(bundle.path)' cannot be read.", context: .init(file: bundle))
        }
        var versions: [(name: String, url: URL)] = []
        for entry in entries where entry.pathExtension == "xcdatamodel" {
            let values = try? entry.resourceValues(forKeys: [.isDirectoryKey, .isSymbolicLinkKey])
            guard values?.isSymbolicLink != true, values?.isDirectory == true else {
                throw QuireError(
                    .invalidModel, "The model bundle '\(bundle.path)' holds '\(entry.lastPathComponent)', which is not a folder.",
                    context: .init(file: entry))
            }
            versions.append((entry.deletingPathExtension().lastPathComponent, entry))
        }
        guard versions.count <= maximumVersions else {
            throw QuireError(
                .invalidModel, "The model bundle '\(bundle.path)' holds more than \(maximumVersions) versions.",
                context: .init(file: bundle))
        }
        guard !versions.isEmpty else {
            throw QuireError(
                .invalidModel, "The model bundle '\(bundle.path)' holds no .xcdatamodel version.", context: .init(file: bundle))
        }
        versions.sort { naturalOrder($0.name, $1.name) }
        let info = bundle.appendingPathComponent(".xccurrentversion")
        // Without the file, or with one naming no version (an empty dictionary, as Xcode leaves when the current
        // version was never chosen), the current version is the only one, or the last in name order: the newest
        // by Xcode's naming (`Model`, `Model 2`, …).
        let newest = versions[versions.count - 1].name
        guard FileManager.default.fileExists(atPath: info.path) else { return (versions, newest) }
        let data = try readRegularFile(info, limit: maximumVersionInfoSize, what: "current-version file")
        let plist: [String: PropertyListValue]
        do {
            plist = try PropertyListValue.decodeDictionary(from: data, maximumSize: maximumVersionInfoSize)
        } catch let error as QuireError {
            throw QuireError(
                .invalidModel, "The current-version file '\(info.path)' is not a property list: \(error.message)",
                context: .init(file: info))
        }
        if plist["_XCCurrentVersionName"] == nil { return (versions, newest) }
        guard let fileName = plist["_XCCurrentVersionName"]?.stringValue else {
            throw QuireError(
                .invalidModel, "The current-version file '\(info.path)' has no _XCCurrentVersionName string.",
                context: .init(file: info))
        }
        let name = fileName.hasSuffix(".xcdatamodel") ? String(fileName.dropLast(".xcdatamodel".count)) : fileName
        guard !name.contains("/"), name != "..", versions.contains(where: { $0.name == name }) else {
            throw QuireError(
                .invalidModel,
                "The current-version file '\(info.path)' names '\(fileName)', which is not a version in the bundle.",
                context: .init(file: info))
        }
        return (versions, name)
    }

    /// Reads a regular file (not a symbolic link) of at most `limit` bytes.
    static func readRegularFile(_ url: URL, limit: Int, what: String) throws -> Data {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        } catch {
            throw QuireError(.fileReadNoSuchFile, "The \(what) '\(url.path)' does not exist.", context: .init(file: url))
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw QuireError(
                .invalidModel, "The \(what) '\(url.path)' is not a regular file (links are not followed).",
                context: .init(file: url))
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= limit else {
            throw QuireError(
                .invalidModel, "The \(what) '\(url.path)' is \(size) bytes long, more than the \(limit) bytes allowed.",
                context: .init(file: url))
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw QuireError(.fileReadUnknown, "The \(what) '\(url.path)' cannot be read.", context: .init(file: url))
        }
    }

    /// Name order with runs of digits compared as numbers, so `Model 2` sorts before `Model 10`; a name without
    /// a number sorts before the same name with one (`Model` is version 1).
    static func naturalOrder(_ a: String, _ b: String) -> Bool {
        func parts(_ s: String) -> (String, Int) {
            let digits = s.reversed().prefix { $0.isASCII && $0.isNumber }
            let stem = String(s.dropLast(digits.count)).trimmingCharacters(in: .whitespaces)
            return (stem, digits.isEmpty ? 1 : Int(String(digits.reversed())) ?? Int.max)
        }
        let (stemA, numberA) = parts(a)
        let (stemB, numberB) = parts(b)
        if stemA != stemB { return stemA < stemB }
        if numberA != numberB { return numberA < numberB }
        return a < b
    }
}
