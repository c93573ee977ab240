import QuireCore
import QuireStores
import Foundation

/// An external record file and what its location says: the object it stands for and the store that holds the
/// object (what Core Data's `elementsDerived(fromExternalRecordAt:)` answers, typed).
///
/// A store added with ``StoreOptions/externalRecordsDirectory`` writes one record file per object of every
/// entity with a property marked ``PropertyDescription/isIndexedBySpotlight``, at
/// `<directory>/<store UUID>/<Entity>/p<primary key>.<extension>`. A desktop search that finds such a file (GNOME's
/// Tracker, see <doc:SearchIndexing>) hands its path to the application, which turns it back into the object:
///
/// ```swift
/// let record = try ExternalRecord(at: hit)                 // hit: the file Tracker found
/// if let id = coordinator.managedObjectID(forURIRepresentation: record.objectURI) {
///     let note = context.object(with: id)
/// }
/// ```
///
/// Reading the location never opens the store; ``values()`` reads the values the record holds.
public struct ExternalRecord: Sendable, Hashable {
    /// The record file.
    public let url: URL
    /// The name of the object's entity (Core Data's `NSEntityNameInPathKey`).
    public let entityName: String
    /// The UUID of the store holding the object (`NSStoreUUIDInPathKey`).
    public let storeIdentifier: String
    /// The object's URI (`NSObjectURIKey`), as ``ObjectID/uriRepresentation()`` gives it:
    /// ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)`` turns it into the object's ID.
    public let objectURI: URL
    /// The store's file as the store last told the records directory (`NSStorePathKey`), or nil when the
    /// directory has no note of it (an in-memory store, or support files removed).
    public let storeURL: URL?
    /// The store's type, when the directory notes it.
    public let storeType: StoreType?
    /// The store's model in Quire's canonical form (`NSModelPathKey`; Core Data keeps a compiled `model.mom`),
    /// readable with ``ManagedObjectModel/init(contentsOf:)``; nil when it is not there.
    public let modelURL: URL?

    /// The largest support file read (`store.plist`).
    static let supportFileLimit = 64 << 10

    /// Reads what a record file's location says, and the store's support files beside it.
    ///
    /// - Parameter url: A record file, as a desktop search reports it (the file itself need not exist: a search
    ///   may report an object deleted since).
    /// - Throws: ``QuireError/Code/invalidArgument`` when the path is not laid out as a record's
    ///   (`<directory>/<store UUID>/<Entity>/p<primary key>.<extension>`), naming what is not;
    ///   ``QuireError/Code/fileReadCorruptFile`` for a damaged `store.plist`.
    public init(at url: URL) throws {
        guard url.isFileURL else {
            throw QuireError(.invalidArgument, "'\(url)' is not a file URL, so not an external record.", context: .init(file: url))
        }
        let file = url.standardizedFileURL
        let name = file.lastPathComponent
        let entityFolder = file.deletingLastPathComponent()
        let storeFolder = entityFolder.deletingLastPathComponent()
        let directory = storeFolder.deletingLastPathComponent()
        func refuse(_ what: String) -> QuireError {
            QuireError(
                .invalidArgument,
                "'\(file.path)' is not an external record: \(what) (records are <directory>/<store UUID>/<Entity>/p<key>.<extension>).",
                context: .init(file: file))
        }
        guard let dot = name.firstIndex(of: "."), name.first == "p", dot < name.index(before: name.endIndex) else {
            throw refuse("its name is not p<key>.<extension>")
        }
        let digits = name[name.index(after: name.startIndex)..<dot]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let primaryKey = Int64(digits), primaryKey > 0
        else {
            throw refuse("its name does not start with p and a primary key")
        }
        let entity = entityFolder.lastPathComponent
        let identifier = storeFolder.lastPathComponent
        guard ExternalRecordLayout.isSafeComponent(entity) else { throw refuse("its folder is not an entity's") }
        guard UUID(uuidString: identifier) != nil || Self.isPlainIdentifier(identifier), directory.path != storeFolder.path else {
            throw refuse("the folder above its entity's is not named by a store UUID")
        }
        guard let uri = Self.objectURI(store: identifier, entity: entity, primaryKey: primaryKey) else {
            throw refuse("its store and entity names do not make an object URI")
        }
        self.url = file
        entityName = entity
        storeIdentifier = identifier
        objectURI = uri
        let support = ExternalRecordLayout.supportFolder(in: directory, identifier: identifier)
        let info = try Self.storeInfo(at: support.appendingPathComponent(ExternalRecordLayout.storeInfoName))
        storeURL = info[ExternalRecordLayout.storePathKey]?.stringValue.flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
        storeType = info[ExternalRecordLayout.storeTypeKey]?.stringValue.map { StoreType(rawValue: $0) }
        let model = support.appendingPathComponent(ExternalRecordLayout.modelName)
        modelURL = FileManager.default.fileExists(atPath: model.path) ? model : nil
    }

    /// The values the record holds: those of the object's properties marked
    /// ``PropertyDescription/isStoredInExternalRecord`` when it was last saved, keyed by property name (nil
    /// values left out; relationships as the related objects' URIs, a string for a to-one, an array for a
    /// to-many). Empty for a record of an entity with no such property (a zero-length file, as Core Data writes).
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when the file is gone, ``QuireError/Code/fileReadCorruptFile``
    ///   when it is not a property list of a dictionary, or is larger than 16 MiB.
    public func values() throws -> [String: PropertyListValue] {
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            if let size = attributes[.size] as? Int, size > PropertyListValue.defaultMaximumSize {
                throw QuireError(
                    .fileReadCorruptFile, "The external record '\(url.path)' is \(size) bytes, larger than a record can be.",
                    context: .init(file: url))
            }
            data = try Data(contentsOf: url)
        } catch let error as QuireError {
            throw error
        } catch {
            throw QuireError(.fileReadNoSuchFile, "The external record '\(url.path)' cannot be read.", context: .init(file: url))
        }
        if data.isEmpty { return [:] }
        do {
            return try PropertyListValue.decodeDictionary(from: data)
        } catch var error as QuireError {
            error.message = "The external record '\(url.path)' is damaged: \(error.message)"
            error.context.file = url
            throw error
        }
    }

    /// `x-coredata://<store>/<Entity>/p<key>`, or nil when the names cannot make a URL.
    static func objectURI(store: String, entity: String, primaryKey: Int64) -> URL? {
        guard let encoded = entity.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) else { return nil }
        return URL(string: "x-coredata://\(store)/\(encoded)/p\(primaryKey)")
    }

    /// Store identifiers that are not UUIDs but safe as a URL host (letters, digits, `-`).
    private static func isPlainIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }
    }

    /// The keys of a store's `store.plist`, or none when it is missing.
    private static func storeInfo(at url: URL) throws -> [String: PropertyListValue] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return [:] }
        if let size = attributes[.size] as? Int, size > supportFileLimit {
            throw QuireError(
                .fileReadCorruptFile, "The external records support file '\(url.path)' is larger than \(supportFileLimit) bytes.",
                context: .init(file: url))
        }
        guard let data = FileManager.default.contents(atPath: url.path) else { return [:] }
        do {
            return try PropertyListValue.decodeDictionary(from: data, maximumSize: supportFileLimit)
        } catch var error as QuireError {
            error.message = "The external records support file '\(url.path)' is damaged: \(error.message)"
            error.context.file = url
            throw error
        }
    }
}

extension PersistentStoreCoordinator {
    /// What an external record file's location says (Core Data's `elementsDerived(fromExternalRecordAt:)`): its
    /// entity, store UUID, object URI, and the store's file and model.
    ///
    /// - Throws: See ``ExternalRecord/init(at:)``.
    public static func elementsDerived(fromExternalRecordAt url: URL) throws -> ExternalRecord {
        try ExternalRecord(at: url)
    }
}
