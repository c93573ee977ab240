import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// `quire info DOC`: what a document or store is and holds.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a document's kind, store type, UUID, model version hashes, entities, external data and layout.")

    @Argument(help: "A document or store.")
    var document: String

    @OptionGroup var model: ModelOption

    @Flag(help: "Print as JSON.")
    var json = false

    func run() throws {
        let contents = try openContents(document)
        defer { contents.close() }
        let metadata = try reading(contents.url) {
            try PersistentStoreCoordinator.metadataForPersistentStore(ofType: contents.storeType, at: contents.storeURL)
        }
        let counts = try dumpContents(contents, model: model).counts
        let (storeModel, source) = try reading(contents.url) {
            try ManagedObjectModel.forStore(at: contents.storeURL, type: contents.storeType, modelFile: model.url)
        }
        let entities = storeModel.entities.map(\.name).sorted()
        var hashes: [String: String] = [:]
        if case .dictionary(let values)? = metadata[StoreMetadataKey.modelVersionHashes] {
            for (name, value) in values { if case .data(let data) = value { hashes[name] = data.base64EncodedString() } }
        }
        let blobs = contents.externalDataFiles()
        let blobBytes = blobs.reduce(0) { $0 + $1.size }
        let layout = try reading(contents.url) { try contents.layout() }
        let uuid = metadata[StoreMetadataKey.storeUUID]?.stringValue ?? ""
        if json {
            var object: [String: Any] = [
                "path": document, "container": contents.container.rawValue, "storeType": contents.storeType.rawValue,
                "uuid": uuid, "modelVersionHashes": hashes, "model": source.description,
                "unsupported": storeModel.unsupportedFeatures,
                "entities": Dictionary(uniqueKeysWithValues: entities.map { ($0, counts[$0] ?? 0) }),
                "externalData": ["files": blobs.count, "bytes": blobBytes],
            ]
            if let mimeType = contents.mimeType { object["mimeType"] = mimeType }
            if !layout.isEmpty { object["layout"] = layout }
            try printJSON(object)
            return
        }
        print("\(document): \(contents.container.rawValue)\(contents.mimeType.map { " (\($0))" } ?? "")")
        print("Store: \(contents.storeType), UUID \(uuid)")
        print("Model: \(source)")
        if !storeModel.unsupportedFeatures.isEmpty {
            print("Not supported yet:")
            for feature in storeModel.unsupportedFeatures { print("  \(feature)") }
        }
        let width = (entities + hashes.keys).map(\.count).max() ?? 0
        print("Model version hashes:")
        for name in hashes.keys.sorted() {
            print("  \(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(hashes[name] ?? "")")
        }
        print("Entities:")
        for name in entities {
            let count = counts[name] ?? 0
            print("  \(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(count) object\(count == 1 ? "" : "s")")
        }
        print("External data: \(blobs.count) file\(blobs.count == 1 ? "" : "s"), \(byteCount(blobBytes))")
        if !layout.isEmpty {
            print("Layout:")
            for path in layout { print("  \(path)") }
        }
    }
}

/// `quire dump DOC`: the canonical dump of a document's object graph.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a canonical dump of a document's object graph (the same for the same graph in any store or container).")

    @Argument(help: "A document or store.")
    var document: String

    @OptionGroup var model: ModelOption

    @Flag(help: "Print as JSON with typed values (schema in the CLI article); errors as JSON objects.")
    var json = false

    func run() throws {
        let contents = try openContents(document)
        defer { contents.close() }
        if json {
            let dump = try reading(contents.url) {
                try ObjectGraphDump(storeAt: contents.storeURL, type: contents.storeType, modelFile: model.url, includingValues: true)
            }
            print(String(decoding: try dump.typedJSON(), as: UTF8.self))
            return
        }
        print(try dumpContents(contents, model: model).text(), terminator: "")
    }
}

/// `quire diff A B`: a semantic comparison of two documents' graphs.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two documents' object graphs: exit 0 when equal, 1 with the differences otherwise.")

    @Argument(help: "The first document or store.")
    var first: String

    @Argument(help: "The second document or store.")
    var second: String

    @OptionGroup var model: ModelOption

    func run() throws {
        let a = try openContents(first)
        defer { a.close() }
        let b = try openContents(second)
        defer { b.close() }
        let differences = try dumpContents(a, model: model).differences(from: try dumpContents(b, model: model))
        if differences.isEmpty {
            print("\(first) and \(second) hold the same object graph.")
            return
        }
        print("\(first) and \(second) differ (\"here\" is \(first), \"there\" \(second)):")
        for line in differences { print("  \(line)") }
        throw ExitCode(ExitStatus.differences.rawValue)
    }
}

/// `quire verify DOC`: integrity checks.
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a document's integrity: SQLite's check, external data files, inverse relationships, metadata.",
        discussion: "Exit status 0 when sound, 3 with one line per problem otherwise. What Core Data itself writes "
            + "(a one-to-one kept on one side only, an XML store without version hashes) is printed as a note and "
            + "leaves the status 0.")

    @Argument(help: "A document or store.")
    var document: String

    @OptionGroup var model: ModelOption

    func run() throws {
        let contents = try openContents(document)
        defer { contents.close() }
        let report = try reading(contents.url) {
            try StoreVerification.report(inStoreAt: contents.storeURL, type: contents.storeType, modelFile: model.url)
        }
        // Notes are what Core Data itself writes: said, never a failure.
        for note in report.notes { print("\(document): note: \(note)") }
        guard report.problems.isEmpty else {
            for problem in report.problems { printError("quire: \(document): \(problem)") }
            throw ExitCode(ExitStatus.unreadableInput.rawValue)
        }
        print("\(document): OK (\(contents.container.rawValue), \(contents.storeType) store)")
    }
}
