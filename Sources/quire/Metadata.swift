import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// `quire metadata DOC`: reads and writes store metadata without loading the object graph.
struct Metadata: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read or change a document's store metadata without loading its object graph.",
        discussion: "Values set are strings. Core Data's own keys (NSStore…, NSPersistenceFrameworkVersion) cannot be changed.")

    @Argument(help: "A document or store.")
    var document: String

    @Flag(help: "Print as JSON.")
    var json = false

    @Option(name: .customLong("set"), help: "Set KEY to the string VALUE (repeatable).")
    var assignments: [String] = []

    @Option(name: .customLong("remove"), help: "Remove KEY (repeatable).")
    var removals: [String] = []

    func validate() throws {
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw ValidationError("--set takes KEY=VALUE, not '\(assignment)'.")
            }
            try Self.checkWritable(String(assignment[..<equals]))
        }
        for key in removals { try Self.checkWritable(key) }
    }

    static func checkWritable(_ key: String) throws {
        if key.hasPrefix("NSStore") || key == StoreMetadataKey.persistenceFrameworkVersion {
            throw ValidationError("The key '\(key)' belongs to the store and cannot be changed.")
        }
    }

    func run() throws {
        let contents = try openContents(document)
        defer { contents.close() }
        var metadata = try reading(contents.url) {
            try PersistentStoreCoordinator.metadataForPersistentStore(ofType: contents.storeType, at: contents.storeURL)
        }
        if !assignments.isEmpty || !removals.isEmpty {
            for assignment in assignments {
                guard let equals = assignment.firstIndex(of: "=") else { continue }
                metadata[String(assignment[..<equals])] = .string(String(assignment[assignment.index(after: equals)...]))
            }
            for key in removals { metadata.removeValue(forKey: key) }
            try write(metadata, into: contents)
            metadata = try reading(contents.url) {
                try PersistentStoreCoordinator.metadataForPersistentStore(ofType: contents.storeType, at: contents.storeURL)
            }
        }
        if json {
            try printJSON(metadata.mapValues(jsonValue))
        } else {
            for key in metadata.keys.sorted() { print("\(key) = \(metadata[key].map(textValue) ?? "")") }
        }
    }

    /// Writes metadata into the store of a store file or package directly, or into an archive's working copy
    /// that then replaces the archive (built beside it and renamed into place).
    private func write(_ metadata: [String: PropertyListValue], into contents: DocumentContents) throws {
        switch contents.container {
        case .storeFile, .package:
            try writing(contents.url) {
                try PersistentStoreCoordinator.setMetadata(
                    metadata, forPersistentStoreOfType: contents.storeType, at: contents.storeURL)
            }
        case .zipArchive, .tarArchive:
            guard let package = contents.packageURL, let format = contents.container.documentFormat else { return }
            try writing(contents.url) {
                try PersistentStoreCoordinator.setMetadata(
                    metadata, forPersistentStoreOfType: contents.storeType, at: contents.storeURL)
            }
            let staging = try stagingFolder(beside: contents.url)
            defer { try? FileManager.default.removeItem(at: staging) }
            let file = staging.appendingPathComponent("archive")
            try writing(contents.url) { try DocumentContents.writeArchive(ofPackage: package, to: file, format: format) }
            try moveIntoPlace(file, to: contents.url, force: true)
        }
    }
}
