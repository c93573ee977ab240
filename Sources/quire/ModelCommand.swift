import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// `quire model DOC|STORE|MODEL`: the model of a document, store or model file, as text, JSON, a Graphviz
/// graph (DOT, SVG or PNG) or an Xcode model.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show the model of a document, store or model file: entities, attributes, relationships.",
        discussion: """
            Attributes with their type, whether optional and their default; relationships with their destination, \
            to-one or to-many, ordering, inverse and delete rule; sub-entities, abstract entities and uniqueness \
            constraints. --graph writes a Graphviz graph: DOT on standard output, or to FILE; a FILE ending in .svg \
            or .png is rendered with Graphviz's dot (install graphviz). --export writes the model as an Xcode \
            model (Name.xcdatamodel) that Xcode and Quire read back as the same model.

            Examples:
              quire model Library.quiredoc
              quire model Library.quiredoc --json
              quire model Library.quiredoc --graph Library.png
              quire model Library.quiredoc --graph | dot -Tsvg > Library.svg
              quire model Mac.sqlite --model App.xcdatamodeld --export Copy.xcdatamodel
              quire model 'postgresql://me@localhost/db?schema=report'
            """)

    @Argument(
        help: "A document, store, PostgreSQL store URL, or model file (.xcdatamodeld, .xcdatamodel, .mom, .momd).",
        completion: .file())
    var source: String

    @OptionGroup var model: ModelOption

    @Flag(help: "Print as JSON.")
    var json = false

    @Option(
        name: .customLong("graph"),
        help: ArgumentHelp(
            "Write a Graphviz graph: to standard output (no FILE or '-'), or FILE (.dot, .gv; .svg and .png need dot).",
            valueName: "file"),
        completion: .file(extensions: ["dot", "gv", "svg", "png"]))
    var graph: String?

    @Option(help: ArgumentHelp("Write the model as an Xcode model folder (Name.xcdatamodel).", valueName: "path"), completion: .directory)
    var export: String?

    @Flag(help: "Replace the file --graph or --export writes if it exists.")
    var force = false

    func validate() throws {
        if json && (graph != nil || export != nil) { throw ValidationError("--json cannot be used with --graph or --export.") }
        if graph != nil && export != nil { throw ValidationError("--graph and --export cannot be used together.") }
        if let export, fileURL(export).pathExtension != "xcdatamodel" {
            throw ValidationError("--export writes an Xcode model: name it 'Name.xcdatamodel'.")
        }
    }

    /// `--graph` may be given without a file: argument-parser needs a value, so a bare `--graph` is rewritten to
    /// `--graph -` before parsing (see ``QuireCommand/main()``).
    static func rewriteBareGraph(_ arguments: [String]) -> [String] {
        guard arguments.first == "model" else { return arguments }
        var result: [String] = []
        for (index, argument) in arguments.enumerated() {
            result.append(argument)
            if argument == "--graph" {
                let next = index + 1 < arguments.count ? arguments[index + 1] : nil
                if next == nil || next?.hasPrefix("-") == true && next != "-" { result.append("-") }
            }
        }
        return result
    }

    func run() throws {
        let (loaded, origin) = try loadModel()
        if let export {
            let url = fileURL(export)
            let written = try XcodeModelExport.write(loaded, to: url, force: force)
            print("Exported the model of \(source) (\(loaded.entities.count) entities) to \(export).")
            if written.count > 1 { print("Its localization is in \(written[1].lastPathComponent) beside it.") }
            return
        }
        if let graph {
            let dot = ModelGraph.dot(loaded, title: origin)
            if graph == "-" {
                print(dot, terminator: "")
                return
            }
            try ModelGraph.write(dot, to: fileURL(graph), force: force)
            print("Wrote the model graph of \(source) to \(graph).")
            return
        }
        if json {
            try printJSON(ModelDescription.json(loaded))
        } else {
            print(ModelDescription.text(loaded, origin: origin), terminator: "")
        }
    }

    /// The model: a model file's, else the store's (embedded, `--model`, or Core Data's cache).
    private func loadModel() throws -> (ManagedObjectModel, String) {
        let url = fileURL(source)
        if ["xcdatamodeld", "xcdatamodel", "mom", "momd"].contains(url.pathExtension.lowercased()), !StoreSource.isDatabase(source) {
            let model = try reading(url) { try ManagedObjectModel(contentsOf: url) }
            return (model, "the model file \(source)")
        }
        let store = try StoreSource.open(source)
        defer { store.close() }
        let (model, origin) = try store.whileReading {
            try ManagedObjectModel.forStore(at: store.storeURL, type: store.storeType, modelFile: self.model.url)
        }
        return (model, "\(store.shown): \(origin)")
    }
}
