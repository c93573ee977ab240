import Foundation
import Quire

/// One reader of untrusted input: what `quire-fuzz` runs for each input when QUIRE_FUZZ_TARGET names it.
enum FuzzTarget: String, CaseIterable {
    /// The XML store: the file opened read-only with its embedded model, every object read.
    case xml
    /// The binary store, as `xml`.
    case binary
    /// The SQLite store, as `xml` (the bytes are a database file).
    case sqlite
    /// A store's metadata, read without a coordinator, of a type told from the content.
    case metadata
    /// A zip document: opened, extracted, its store read.
    case zip
    /// A tar document, as `zip`.
    case tar
    /// A document package: the input is a few files (``FuzzPackageEncoding``) written into a folder.
    case package
    /// An Xcode model's `contents` file.
    case xcodemodel
    /// A compiled model (`.mom`).
    case mom
    /// The compiled model Core Data caches in a SQLite store (`Z_MODELCACHE`).
    case modelcache
    /// A compiled model built from the input by ``FuzzArchiveBuilder``: keyed archives whose objects share
    /// references (cycles, diamonds, wide fan-outs), which byte mutation of real archives rarely makes.
    case archive
    /// A model localization (`.strings`) file.
    case strings
    /// A predicate format string.
    case predicate
    /// An Xcode mapping model's `xcmapping.xml` (an XML store of Xcode's mapping entities, with archived models,
    /// expressions and user info inside).
    case mappingmodel
    /// An external record file as a desktop search hands it over: the first line a path (only parsed, never
    /// written), the rest the bytes of a record and of its store's support file.
    case record

    /// Reads the input; errors are ignored.
    func run(_ data: Data) {
        switch self {
        case .xml, .binary, .sqlite:
            let type: StoreType = self == .xml ? .xml : self == .binary ? .binary : .sqlite
            FuzzScratch.withFile(named: "persistentStore", data) { url in
                _ = try ObjectGraphDump(storeAt: url, type: type).text()
            }
        case .metadata:
            FuzzScratch.withFile(named: "persistentStore", data) { url in
                _ = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
            }
        case .zip, .tar:
            FuzzScratch.withFile(named: "Document.\(rawValue)", data) { url in
                try Self.readDocument(at: url)
            }
        case .package:
            FuzzScratch.withEmptyFolder { folder in
                let package = folder.appendingPathComponent("Document.quiredoc", isDirectory: true)
                try FuzzPackageEncoding.write(data, into: package)
                try Self.readDocument(at: package)
            }
        case .xcodemodel:
            FuzzScratch.withFile(named: "Model.xcdatamodel/contents", data) { url in
                _ = try ManagedObjectModel(contentsOf: url.deletingLastPathComponent())
            }
        case .mom:
            FuzzScratch.withFile(named: "Model.mom", data) { url in
                _ = try ManagedObjectModel(compiledModelAt: url)
            }
        case .modelcache:
            _ = try? ManagedObjectModel(modelCache: data)
        case .archive:
            FuzzScratch.withFile(named: "Model.mom", FuzzArchiveBuilder.archive(from: data)) { url in
                let model = try ManagedObjectModel(compiledModelAt: url)
                // A model that reads is also checked and frozen, as a coordinator does.
                _ = try PersistentStoreCoordinator(managedObjectModel: model)
            }
        case .strings:
            FuzzScratch.withFile(named: "Model.strings", data) { url in
                try ManagedObjectModel().loadLocalization(contentsOf: url)
            }
        case .predicate:
            _ = try? QueryPredicate(format: String(decoding: data, as: UTF8.self))
        case .mappingmodel:
            FuzzScratch.withFile(named: "Mapping.xcmappingmodel/xcmapping.xml", data) { url in
                let mapping = try MappingModel(contentsOf: url.deletingLastPathComponent())
                _ = mapping.entityMappings.flatMap { ($0.attributeMappings + $0.relationshipMappings).map { $0.valueExpression?.format } }
            }
        case .record:
            let newline = data.firstIndex(of: 0x0A) ?? data.endIndex
            let path = String(decoding: data[data.startIndex..<newline], as: UTF8.self)
            let bytes = newline < data.endIndex ? data[data.index(after: newline)...] : Data()
            _ = try? ExternalRecord(at: URL(fileURLWithPath: path))
            let store = "8E8B457A-1208-4662-83FA-3A831AA55A1D"
            FuzzScratch.withFile(named: "Records/.support/\(store)/store.plist", Data(bytes)) { support in
                let records = support.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                let record = records.appendingPathComponent("\(store)/Note/p1.quirerecord")
                try FileManager.default.createDirectory(at: record.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: record)
                _ = try ExternalRecord(at: record).values()
            }
        }
    }

    /// Opens a document as `quire info` and `quire dump` do: its container, layout and store.
    private static func readDocument(at url: URL) throws {
        let contents = try DocumentContents(contentsOf: url)
        defer { contents.close() }
        _ = try contents.layout()
        _ = contents.externalDataFiles()
        _ = try ObjectGraphDump(storeAt: contents.storeURL, type: contents.storeType).text()
    }
}
