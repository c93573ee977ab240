import QuireCore
import QuireStores
import Foundation

/// How to turn a store written with one model version into a store of another (`NSMappingModel`): one
/// ``EntityMapping`` per kind of object to carry over.
///
/// Let Quire infer one for lightweight changes (see ``inferredMappingModel(forSourceModel:destinationModel:)``),
/// or write one when values must be computed:
///
/// ```swift
/// var mapping = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
/// mapping.entityMappings[mapping.index(ofEntityMappingNamed: "PersonToPerson")!].attributeMappings.append(
///     PropertyMapping(name: "fullName", valueExpression: .custom { source in
///         .string("\(source["first"]?.description ?? "") \(source["last"]?.description ?? "")")
///     }))
/// try MigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(at: url, type: .sqlite, mapping: mapping)
/// ```
public struct MappingModel: Sendable {
    /// The entity mappings, in the order they run.
    public var entityMappings: [EntityMapping]
    /// Where the mapping model was read from (``init(contentsOf:)``), nil for one made in code.
    public var url: URL?
    /// The path of the source model version Xcode's editor recorded (`Migrations/Moody.xcdatamodeld/Moody 4.xcdatamodel`),
    /// for messages; matching uses the entities' version hashes.
    public var sourceModelPath: String?
    /// The path of the destination model version Xcode's editor recorded.
    public var destinationModelPath: String?

    /// Creates a mapping model.
    ///
    /// - Parameter entityMappings: The entity mappings, in the order they run.
    public init(entityMappings: [EntityMapping] = []) {
        self.entityMappings = entityMappings
    }

    /// The entity mappings by name.
    public var entityMappingsByName: [String: EntityMapping] {
        Dictionary(entityMappings.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The position of the entity mapping with a name, or nil.
    public func index(ofEntityMappingNamed name: String) -> Int? {
        entityMappings.firstIndex { $0.name == name }
    }

    /// Whether the mapping was made for these two model versions: every entity mapping that records a source or
    /// destination version hash finds an entity with that hash in the matching model.
    public func isMapping(from source: ManagedObjectModel, to destination: ManagedObjectModel) -> Bool {
        // Core Data's hashes, or Quire's former ones (mapping models saved before 2026-11).
        func matches(_ hash: Data, _ name: String, in model: ManagedObjectModel) -> Bool {
            guard let entity = model.entitiesByName[name] else { return false }
            return entity.versionHash == hash || entity.legacyVersionHash == hash
        }
        return entityMappings.allSatisfy { mapping in
            if let name = mapping.sourceEntityName, let hash = mapping.sourceEntityVersionHash, !matches(hash, name, in: source) {
                return false
            }
            if let name = mapping.destinationEntityName, let hash = mapping.destinationEntityVersionHash,
                !matches(hash, name, in: destination)
            {
                return false
            }
            return true
        }
    }
}
