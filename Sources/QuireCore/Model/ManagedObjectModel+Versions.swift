import QuireSupport
import Foundation

extension ManagedObjectModel {
    /// The entity version hashes a store's metadata records (`NSStoreModelVersionHashes`), by entity name; empty
    /// when the metadata has none.
    package static func versionHashes(fromStoreMetadata metadata: [String: PropertyListValue]) -> [String: Data] {
        metadata[StoreMetadataKey.modelVersionHashes]?.dictionaryValue?.compactMapValues(\.dataValue) ?? [:]
    }

    /// Whether a store written with the metadata can be opened with a configuration of this model without
    /// migrating (`isConfiguration(withName:compatibleWithStoreMetadata:)`).
    ///
    /// The default configuration (`nil` or `"Default"`) is compatible when the store's entity version hashes are
    /// exactly the model's; a named configuration when every entity of it has the hash the store recorded.
    ///
    /// ```swift
    /// let metadata = store.metadata
    /// if !model.isConfiguration(nil, compatibleWithStoreMetadata: metadata) {
    ///     // the store needs migrating
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: The configuration's name, or nil for all entities.
    ///   - metadata: The store's metadata.
    /// - Returns: Whether the versions match.
    public func isConfiguration(_ configuration: String?, compatibleWithStoreMetadata metadata: [String: PropertyListValue]) -> Bool {
        let stored = Self.versionHashes(fromStoreMetadata: metadata)
        guard !stored.isEmpty else { return false }
        guard let configuration, configuration != "Default", configurations[configuration] != nil else {
            return hasVersionHashes(stored)
        }
        let members = entities(forConfigurationName: configuration)
        return members.allSatisfy { stored[$0.name] == $0.versionHash } || members.allSatisfy { stored[$0.name] == $0.legacyVersionHash }
    }

    /// One model holding the entities, configurations and fetch request templates of several
    /// (`mergedModel(from:)`), for applications that split their model across files.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel.mergedModel(from: [accounts, documents])
    /// ```
    ///
    /// - Parameter models: The models to merge; their entities are copied, the models themselves are unchanged.
    /// - Returns: A new, editable model.
    /// - Throws: ``QuireError/Code/invalidModel`` when two models have an entity or a fetch request template of
    ///   the same name.
    public static func mergedModel(from models: [ManagedObjectModel]) throws -> ManagedObjectModel {
        var documents = models.map(ModelDocument.init(model:))
        var merged = documents.isEmpty ? ModelDocument(model: ManagedObjectModel()) : documents.removeFirst()
        var entityNames = Set(merged.entities.map(\.name))
        for document in documents {
            for entity in document.entities {
                guard entityNames.insert(entity.name).inserted else {
                    throw QuireError(
                        .invalidModel, "Cannot merge the models: two of them have an entity named '\(entity.name)'.",
                        context: .init(entity: entity.name))
                }
                merged.entities.append(entity)
            }
            for (name, members) in document.configurations {
                merged.configurations[name, default: []].append(contentsOf: members)
            }
            for (name, template) in document.fetchRequestTemplates ?? [:] {
                guard merged.fetchRequestTemplates?[name] == nil else {
                    throw QuireError(
                        .invalidModel, "Cannot merge the models: two of them have a fetch request template named '\(name)'.")
                }
                merged.fetchRequestTemplates = (merged.fetchRequestTemplates ?? [:]).merging([name: template]) { a, _ in a }
            }
            merged.versionIdentifiers = Array(Set(merged.versionIdentifiers + document.versionIdentifiers)).sorted()
            merged.localization.merge(document.localization) { first, _ in first }
        }
        let model = ManagedObjectModel()
        try merged.apply(to: model)
        // The canonical form has no runtime classes; carry each entity's class over.
        var classes: [String: EntityDescription.ObjectClass] = [:]
        for source in models {
            for entity in source.entities { classes[entity.name] = entity.objectClass }
        }
        for entity in model.entities { entity.objectClass = classes[entity.name] ?? .base }
        return model
    }

    /// The model, among several or merged from several, whose version a store's metadata records
    /// (`mergedModel(from:forStoreMetadata:)`): how an application finds the model an old document was
    /// written with.
    ///
    /// ```swift
    /// let bundle = try ModelBundle(contentsOf: modelURL)
    /// let source = ManagedObjectModel.mergedModel(from: bundle.models, forStoreMetadata: metadata)
    /// ```
    ///
    /// - Parameters:
    ///   - models: Candidate models (every version an application shipped, say).
    ///   - metadata: The store's metadata.
    /// - Returns: The one model whose hashes are exactly the store's; otherwise the merge of the models whose
    ///   every entity matches, when that merge is exactly the store's; otherwise nil.
    public static func mergedModel(
        from models: [ManagedObjectModel], forStoreMetadata metadata: [String: PropertyListValue]
    ) -> ManagedObjectModel? {
        let stored = versionHashes(fromStoreMetadata: metadata)
        guard !stored.isEmpty else { return nil }
        if let exact = models.first(where: { $0.hasVersionHashes(stored) }) { return exact }
        let candidates = models.filter { model in
            !model.entities.isEmpty
                && (model.entities.allSatisfy { stored[$0.name] == $0.versionHash }
                    || model.entities.allSatisfy { stored[$0.name] == $0.legacyVersionHash })
        }
        guard candidates.count > 1, let merged = try? mergedModel(from: candidates) else { return nil }
        return merged.hasVersionHashes(stored) ? merged : nil
    }
}
