import QuireCore
import QuireStores
import Foundation

/// Integrity checks of a closed store file, opened read-only with the model it embeds (what `quire verify`
/// runs): SQLite's integrity check, the store's metadata against its type and model, the rows the model cannot
/// represent (SQLite: keys below 1, unknown entity numbers, wrong storage classes, out-of-range integers,
/// keys that refer to no row; when there are any, they are the report), every external data file present with
/// the size its reference records, and every relationship matched by its inverse.
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
        problems += try StoreKinds.kind(for: type, url: url).checkFile(url)
        let (found, source) = try ManagedObjectModel.forStore(at: url, type: type, modelFile: modelFile)
        let model = try found.interned()
        try InspectedStore.checkModel(model, from: source, forStoreAt: url, type: type)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
        for problem in metadataProblems(metadata, type: type, model: model) {
            // Core Data's XML stores may carry no hashes at all (their metadata plist can be empty).
            if type == .xml && metadata[StoreMetadataKey.modelVersionHashes] == nil
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

        let inspected = try InspectedStore(at: url, type: type, modelFile: modelFile)
        defer { inspected.close() }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = inspected.coordinator
        let support = ExternalDataFolder.supportFolder(forStore: url, type: type).appendingPathComponent("_EXTERNAL_DATA")
        let (objectProblems, oneSided) = try context.performAndWait { () throws -> ([String], [String]) in
            var found: [String] = []
            var oneSided: [String] = []
            for entity in model.entities.sorted(by: { $0.name < $1.name }) where !entity.isAbstract {
                let request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                request.returnsObjectsAsFaults = false
                let objects = try context.fetch(request).sorted {
                    ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0)
                }
                for object in objects {
                    let name = "\(entity.name) \(object.objectID.primaryKey ?? 0)"
                    for attribute in entity.allAttributes where !attribute.isTransient {
                        guard case .externalData(let reference) = object.attributeValue(forKey: attribute.name) else { continue }
                        let file = support.appendingPathComponent(reference.uuid)
                        switch DocumentFiles.kind(of: file) {
                        case .file(let size):
                            if let length = reference.length, Int64(size) != length {
                                found.append(
                                    "\(name).\(attribute.name): the external data file \(reference.uuid) has \(size) bytes, not \(length).")
                            }
                        default:
                            found.append("\(name).\(attribute.name): the external data file \(reference.uuid) is missing.")
                        }
                    }
                    for relationship in entity.allRelationships where !relationship.isTransient {
                        guard let inverseName = relationship.inverseRelationshipName else { continue }
                        for related in relatedObjects(object, relationship.name) {
                            let back = relatedObjects(related, inverseName)
                            if back.contains(where: { $0.objectID == object.objectID }) { continue }
                            let holds = "\(name).\(relationship.name) holds \(related.entity.name) \(related.objectID.primaryKey ?? 0)"
                            // A one-to-one whose other side is empty: Core Data keeps some on one side only (Apple
                            // Notes' `cloudState` ↔ `cloudSyncingObject`). Pointing elsewhere is a problem.
                            if !relationship.isToMany, relationship.resolvedInverse?.isToMany == false, back.isEmpty {
                                oneSided.append(
                                    "\(holds), whose inverse \(inverseName) is empty (a one-to-one kept on one side, as Core Data writes some).")
                            } else {
                                found.append("\(holds), whose inverse \(inverseName) does not hold it back.")
                            }
                        }
                    }
                }
            }
            return (found, oneSided)
        }
        return Report(problems: problems + objectProblems, notes: notes + oneSided)
    }

    /// The objects a relationship holds, whatever its kind.
    private static func relatedObjects(_ object: ManagedObject, _ name: String) -> [ManagedObject] {
        let value = object.value(forKey: name)
        switch value {
        case let single as ManagedObject: return [single]
        case let set as Set<ManagedObject>: return Array(set)
        default:
            guard let sequence = value as? any Sequence else { return [] }
            return sequence.compactMap { $0 as? ManagedObject }
        }
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
