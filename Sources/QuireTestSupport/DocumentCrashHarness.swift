import Foundation
import Quire
import QuireCore
import QuireStores

/// A crash-consistency harness for documents: a worker process saves a document again and again while the
/// test kills it with SIGKILL at random moments, then checks that the document opens and equals either the
/// version saved last or the one being saved.
///
/// Every version `n` sets each note's `counter` to `n` and the document's title to "Version n", so a mix of
/// two versions (two counters, or a store and metadata that disagree) is caught.
///
/// ```swift
/// let harness = DocumentCrashHarness(format: .zipArchive, storeType: .sqlite)
/// try harness.createDocument(at: url)
/// // run `quire-crash-worker loop <url> zipArchive SQLite <status file>` and kill it …
/// let version = try harness.verify(at: url)
/// ```
public struct DocumentCrashHarness: Sendable {
    /// The document's format.
    public var format: DocumentType.Format
    /// The store inside.
    public var storeType: StoreType
    /// How many notes a version has.
    public static let noteCount = 5

    /// Creates a harness for a format and store type, registering its document type.
    public init(format: DocumentType.Format, storeType: StoreType) {
        self.format = format
        self.storeType = storeType
        DocumentTypeRegistry.shared.register(documentType)
    }

    /// The document type: `CrashTest-<format>-<store>`.
    public var documentType: DocumentType {
        DocumentType(
            name: "CrashTest-\(format.rawValue)-\(storeType.rawValue)", mimeType: "application/x-quire-crash-test",
            extensions: ["crashtest"], format: format, storeType: storeType)
    }

    /// The model: `Note` with `title` and `counter`.
    public static func model() -> ManagedObjectModel {
        let note = EntityDescription(name: "Note")
        note.properties = [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "counter", type: .integer64, isOptional: false, defaultValue: 0),
        ]
        return ManagedObjectModel(entities: [note])
    }

    /// Creates version 0 of the document.
    public func createDocument(at url: URL) throws {
        let document = try PersistentDocument(type: documentType.name, model: Self.model())
        defer { document.close() }
        let context = document.managedObjectContext
        context.performAndWait {
            guard let entity = document.managedObjectModel.entitiesByName["Note"] else { return }
            for index in 0..<Self.noteCount {
                let note = ManagedObject(entity: entity, insertInto: context)
                note.setValue("Note \(index)", forKey: "title")
            }
        }
        document.searchMetadata.title = "Version 0"
        try document.save(to: url, ofType: documentType.name, for: .saveAs)
    }

    /// Opens the document and returns its version, throwing when it does not open or mixes versions.
    public func verify(at url: URL) throws -> Int64 {
        let document = try PersistentDocument(contentsOf: url, ofType: documentType.name, model: Self.model())
        defer { document.close() }
        let context = document.managedObjectContext
        let counters = try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { $0.value(forKey: "counter") as? Int64 ?? -1 }
        }
        guard counters.count == Self.noteCount, let version = counters.first, counters.allSatisfy({ $0 == version }) else {
            throw QuireError(.document, "The document '\(url.path)' mixes versions: counters \(counters).")
        }
        let title = try SearchMetadata(contentsOf: url).title
        guard title == "Version \(version)" else {
            throw QuireError(
                .document, "The document '\(url.path)' holds version \(version) but its metadata says '\(title ?? "nothing")'.")
        }
        return version
    }

    /// The worker's loop: opens the document, then saves versions n+1, n+2, … forever, appending
    /// "ready" and then "saved n" lines to the status file after each save returns. Every other save
    /// uses two renames instead of an exchange, so that recovery is exercised too.
    public func runWorker(documentAt url: URL, statusFile: URL) throws -> Never {
        let document = try PersistentDocument(contentsOf: url, ofType: documentType.name, model: Self.model())
        let status = try FileHandle(forWritingTo: statusFile)
        status.seekToEndOfFile()
        status.write(Data("ready\n".utf8))
        let context = document.managedObjectContext
        var version = try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first?.value(forKey: "counter") as? Int64 ?? 0
        }
        while true {
            version += 1
            try context.performAndWait {
                for note in try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")) {
                    note.setValue(version, forKey: "counter")
                }
            }
            document.searchMetadata.title = "Version \(version)"
            document.usesRenameExchange = version % 2 == 0
            try document.save()
            status.write(Data("saved \(version)\n".utf8))
        }
    }

    /// Saves a version bigger than `limit` bytes with the process's file size limit set to `limit`
    /// (`RLIMIT_FSIZE`, SIGXFSZ ignored) while the document is written, as a stand-in for a full disk. Returns the error the save threw, or
    /// `nil` if it succeeded.
    public func saveUnderFileSizeLimit(documentAt url: URL, limit: Int) throws -> QuireError? {
        let document = try PersistentDocument(contentsOf: url, ofType: documentType.name, model: Self.model())
        defer { document.close() }
        let context = document.managedObjectContext
        context.performAndWait {
            for note in (try? context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))) ?? [] {
                note.setValue(String(repeating: "x", count: limit), forKey: "title")
                note.setValue(Int64(999), forKey: "counter")
            }
        }
        document.searchMetadata.title = "Version 999"
        // The working store takes the change; writing the new version of the document hits the limit.
        try context.performAndWait { try context.save() }
        signal(SIGXFSZ, SIG_IGN)
        var limits = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t.max)
        guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limits) == 0 else { return nil }
        do {
            try document.save()
            return nil
        } catch let error as QuireError {
            return error
        }
    }
}
