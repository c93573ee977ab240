// Merges the symbol graphs of Quire's library targets into one module, `Quire`, for DocC.
//
// `import Quire` re-exports QuireCore, QuireStores and QuireSupport, so users meet one module; DocC documents one
// module per catalog and cannot link from Quire's articles to a re-exported module's symbols. This script
// rewrites the graphs `swift package dump-symbol-graph` writes so that every public symbol of the library targets
// belongs to `Quire`: the targets' own graphs and their extensions of each other become one graph, and their
// extensions of other modules (Swift, Foundation, OrderedCollections) one graph per extended module.
//
// Usage: swift Scripts/merge-symbol-graphs.swift INPUT_DIR OUTPUT_DIR   (run by `make docs`)
import Foundation

// QuirePostgres is a module of its own (`import QuirePostgres`), documented in the same catalog: its few public
// symbols (`StoreType.postgres`) join Quire's pages, and the PostgreSQL article says which import they need.
let ours: Set<String> = ["Quire", "QuireCore", "QuireStores", "QuireSupport", "QuirePostgres"]
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: merge-symbol-graphs INPUT_DIR OUTPUT_DIR\n".utf8))
    exit(2)
}
let input = URL(fileURLWithPath: arguments[1])
let output = URL(fileURLWithPath: arguments[2])

/// One merged graph: its symbols (by precise identifier, so a symbol seen twice is kept once) and relationships.
struct Graph {
    var metadata: Any?
    var module: [String: Any] = [:]
    var symbols: [String: [String: Any]] = [:]
    var relationships: [[String: Any]] = []
}
var graphs: [String: Graph] = [:]   // "" for the main graph, else the extended module

do {
    let names = try FileManager.default.contentsOfDirectory(atPath: input.path).filter { $0.hasSuffix(".symbols.json") }.sorted()
    for name in names {
        let stem = String(name.dropLast(".symbols.json".count))
        let parts = stem.split(separator: "@", maxSplits: 1).map(String.init)
        guard ours.contains(parts[0]) else { continue }
        let extended = parts.count == 2 ? parts[1] : ""
        let key = extended.isEmpty || ours.contains(extended) ? "" : extended
        let data = try Data(contentsOf: input.appendingPathComponent(name))
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { continue }
        var graph = graphs[key] ?? Graph()
        graph.metadata = graph.metadata ?? json["metadata"]
        if graph.module.isEmpty, var module = json["module"] as? [String: Any] {
            module["name"] = "Quire"
            graph.module = module
        }
        for case var symbol as [String: Any] in json["symbols"] as? [Any] ?? [] {
            // An extension of one of our own modules' types is now a member of the same module.
            if let ext = symbol["swiftExtension"] as? [String: Any], let module = ext["extendedModule"] as? String,
                ours.contains(module)
            {
                var rewritten = ext
                rewritten["extendedModule"] = "Quire"
                symbol["swiftExtension"] = rewritten
            }
            guard let identifier = (symbol["identifier"] as? [String: Any])?["precise"] as? String else { continue }
            graph.symbols[identifier] = symbol
        }
        for case let relationship as [String: Any] in json["relationships"] as? [Any] ?? [] {
            graph.relationships.append(relationship)
        }
        graphs[key] = graph
    }
    try? FileManager.default.removeItem(at: output)
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    for (key, graph) in graphs {
        var seen: Set<String> = []
        let relationships = graph.relationships.filter { relationship in
            let text = "\(relationship["kind"] ?? "") \(relationship["source"] ?? "") \(relationship["target"] ?? "")"
            return seen.insert(text).inserted
        }
        let json: [String: Any] = [
            "metadata": graph.metadata ?? [:], "module": graph.module,
            "symbols": graph.symbols.keys.sorted().compactMap { graph.symbols[$0] }, "relationships": relationships,
        ]
        let name = key.isEmpty ? "Quire.symbols.json" : "Quire@\(key).symbols.json"
        try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: output.appendingPathComponent(name))
    }
} catch {
    FileHandle.standardError.write(Data("merge-symbol-graphs: \(error)\n".utf8))
    exit(1)
}
