import QuireCore
import QuireStores
import Foundation

/// Integrity checks of a closed store file, opened read-only with the model it embeds (what `quire verify`
/// runs): SQLite's integrity check, the store's metadata against its type and model, the rows the model cannot
/// represent (SQLite: keys below 1, unknown entity numbers, wrong storage classes, out-of-range integers,
/// keys that refer to no row; when there are any, they are the report), the store's key counters (SQLite:
/// `Z_MAX` below its table's keys, negative, or at its end), every attribute that is not optional holding a
/// value, every external data file present with the size its reference or the store records, and every
/// relationship matched by its inverse.
///
/// ```swift
/// let problems = try StoreVerification.problems(inStoreAt: url, type: .sqlite)
/// problems.isEmpty    // true for a sound store
/// ```
///
/// What Core Data itself writes is not a problem: ``report(inStoreAt:type:modelFile:)`` lists it apart, as notes
/// (a one-to-one relationship whose inverse side is empty, which Apple Notes' stores hold; an XML store without
/// `NSStoreModelVersionHashes`, whose metadata Core Data may leave empty).
public enum StoreVerification {
    /// What ``report(inStoreAt:type:modelFile:)`` found.
    public struct Report: Sendable, Hashable {
        /// What is wrong with the store, one readable sentence each; empty when it is sound.
        public var problems: [String] = []
        /// What is unusual but written so by Core Data itself, one sentence each: not a problem.
        public var notes: [String] = []
    }

    /// The problems found in a store file (``Report/problems`` of ``report(inStoreAt:type:modelFile:)``).
    ///
    /// - Parameters:
    ///   - url: A closed store file.
    ///   - type: The store's type.
    ///   - modelFile: The application's model, for a store that embeds none (see
    ///     ``ManagedObjectModel/forStore(at:type:modelFile:)``).
    /// - Returns: The problems, in the order found.
    /// - Throws: ``QuireError`` when the file cannot be opened at all (missing, of no known type, no
    ///   embedded model): such a file is unreadable rather than inconsistent.
    public static func problems(inStoreAt url: URL, type: StoreType, modelFile: URL? = nil) throws -> [String] {
        try report(inStoreAt: url, type: type, modelFile: modelFile).problems
    }

    /// The problems found in a store file, and what Core Data itself writes that looks like one (notes).
    ///
    /// - Parameters:
    ///   - url: A closed store file.
    ///   - type: The store's type.
    ///   - modelFile: The application's model, for a store that embeds none (see
    ///     ``ManagedObjectModel/forStore(at:type:modelFile:)``).
    /// - Returns: The problems and notes, each in the order found.
    /// - Throws: ``QuireError`` when the file cannot be opened at all (missing, of no known type, no
    ///   embedded model): such a file is unreadable rather than inconsistent.
    public static func report(inStoreAt url: URL, type: StoreType, modelFile: URL? = nil) throws -> Report {
        var problems: [String] = []
        var notes: [String] = []
        let kind = try StoreKinds.kind(for: type, url: url)
        problems += try kind.checkFile(url)
        let (found, source) = try ManagedObjectModel.forStore(at: url, type: type, modelFile: modelFile)
        let model = found
        try InspectedStore.checkModel(model, from: source, forStoreAt: url, type: type)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
        for problem in metadataProblems(metadata, type: type, model: model) {
            // Core Data's XML stores may carry no hashes at all (their metadata plist can be empty).
            if kind.versionHashesMayBeMissing && metadata[StoreMetadataKey.modelVersionHashes] == nil
                && problem.contains(StoreMetadataKey.modelVersionHashes)
            {
                notes.append(
                    "Metadata: NSStoreModelVersionHashes is missing, as Core Data's XML stores may have it (their metadata can be empty).")
            } else {
                problems.append(problem)
            }
        }

        // Rows the model cannot represent (checked in SQL, naming table, row and column): reading the objects
        // would stop at the first of them, so they are the report.
        let contents = try StoreKinds.kind(for: type, url: url).checkContents(url, model)
        if !contents.isEmpty { return Report(problems: problems + contents, notes: notes) }

        problems += try StoreKinds.kind(for: type, url: url).checkBookkeeping(url, model)

        let inspected = try InspectedStore(at: url, type: type, modelFile: modelFile)
        defer { inspected.close() }
        let records = try recordProblems(of: inspected.store, in: inspected.coordinator, checking: .all)
        return Report(problems: problems + records.problems, notes: notes + records.notes)
    }

    /// Metadata that disagrees with the store's type or model.
    static func metadataProblems(
        _ metadata: [String: PropertyListValue], type: StoreType, model: ManagedObjectModel
    ) -> [String] {
        var problems: [String] = []
        if metadata[StoreMetadataKey.storeType]?.stringValue != type.rawValue {
            problems.append(
                "Metadata: NSStoreType is \(metadata[StoreMetadataKey.storeType]?.stringValue ?? "missing"), but the file is a \(type) store.")
        }
        if (metadata[StoreMetadataKey.storeUUID]?.stringValue ?? "").isEmpty {
            problems.append("Metadata: NSStoreUUID is missing.")
        }
        if let hashes = metadata[StoreMetadataKey.modelVersionHashes],
            !model.hasVersionHashes(hashes.dictionaryValue?.compactMapValues(\.dataValue)),
            !hashesDifferOnlyWhereTheModelIsIncomplete(hashes.dictionaryValue?.compactMapValues(\.dataValue) ?? [:], model)
        {
            problems.append("Metadata: NSStoreModelVersionHashes do not match the model the store embeds.")
        } else if metadata[StoreMetadataKey.modelVersionHashes] == nil {
            problems.append("Metadata: NSStoreModelVersionHashes is missing.")
        }
        return problems
    }

    /// Whether every entity whose stored hash differs from the model's is one the model cannot hash as Core Data
    /// did: read from a model cache or compiled model that holds what Quire does not model yet (derived
    /// attributes, fetched properties; listed in ``ManagedObjectModel/unsupportedFeatures``), itself or through an
    /// ancestor. Such a store is not damaged.
    static func hashesDifferOnlyWhereTheModelIsIncomplete(_ stored: [String: Data], _ model: ManagedObjectModel) -> Bool {
        guard !model.unsupportedFeatures.isEmpty, stored.count == model.entities.count else { return false }
        for (name, hash) in stored {
            guard let entity = model.entitiesByName[name] else { return false }
            if entity.versionHash == hash { continue }
            var lineage: [String] = []
            var current: EntityDescription? = entity
            while let next = current {
                lineage.append(next.name)
                current = next.superentity
            }
            let incomplete = model.unsupportedFeatures.contains { feature in
                (feature.contains("derived attribute") || feature.contains("fetched properties"))
                    && lineage.contains { feature.hasPrefix("\($0).") }
            }
            if !incomplete { return false }
        }
        return true
    }
}
