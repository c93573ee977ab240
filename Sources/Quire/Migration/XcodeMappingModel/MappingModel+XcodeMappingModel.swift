import QuireCore
import QuireStores
import Foundation

extension MappingModel {
    /// Reads a mapping model Xcode wrote (`NSMappingModel(contentsOf:)`): an `.xcmappingmodel` folder, or the
    /// `xcmapping.xml` inside it.
    ///
    /// ```swift
    /// let mapping = try MappingModel(contentsOf: URL(fileURLWithPath: "Moody 4-Moody 5.xcmappingmodel"))
    /// mapping.entityMappingsByName["CountryToCountry"]?.attributeMappings   // isoContinent = $source.continent.numericISO3166Code
    /// ```
    ///
    /// The file is a Core Data XML store of Xcode's mapping entities (see `XcodeMappingEntities`), read with the
    /// XML store's reader. What it becomes:
    ///
    /// - one ``EntityMapping`` per entity mapping of the file's mapping model, in Xcode's order (`mappingNumber`),
    ///   named as Xcode's compiler names them: `<Source>To<Destination>`, or the one entity's name for a mapping
    ///   that names one; its type from Xcode's type name (`Undefined` becomes add, remove, custom with a policy,
    ///   copy otherwise); the custom policy's class name (``EntityMapping/entityMigrationPolicyClassName``) and
    ///   user info;
    /// - the source and destination entities' version hashes, computed from the copies of both model versions
    ///   the file keeps (what Xcode compiles into a `.cdm`), so ``isMapping(from:to:)`` and
    ///   ``init(from:forSourceModel:destinationModel:)`` match the models as Core Data does;
    /// - a value expression for each property mapping as Xcode's compiler makes it: the archived expression the
    ///   author typed; for a relationship whose source key path and mapping the author chose,
    ///   `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<mapping>", <key path>)`;
    ///   where "auto-generate value expression" is on and the source entity has a property of the same name,
    ///   `$source.<name>` for an attribute, and for a relationship that `FUNCTION` with `$source.<name>` and the
    ///   mapping that makes the relationship's destination, or, when that entity has sub-entities or several
    ///   mappings make it, `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
    ///   "<name>", $source.<name>)`; no expression otherwise (the attribute keeps its default, the relationship
    ///   stays empty).
    ///
    /// Entity mappings the file keeps but that belong to no mapping model (Xcode leaves such objects behind) are
    /// not part of it.
    ///
    /// - Parameter url: The `.xcmappingmodel` folder or its `xcmapping.xml`.
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when there is no such file;
    ///   ``QuireError/Code/fileReadCorruptFile`` for a file that is not such an XML store, or whose embedded models
    ///   cannot be read, naming the file; ``QuireError/Code/migration`` for a value expression Quire cannot
    ///   evaluate, naming the entity mapping, the property and the expression.
    public init(contentsOf url: URL) throws {
        self = try XcodeMappingModelReader(url: url).read()
    }
}

/// Reads one `.xcmappingmodel`.
struct XcodeMappingModelReader {
    /// The most bytes a mapping-model file may have (the largest real one has about 300 KB).
    static let maximumFileSize = 64 << 20

    let url: URL

    /// The `xcmapping.xml` file.
    private var file: URL {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            return url.appendingPathComponent("xcmapping.xml")
        }
        return url
    }

    func read() throws -> MappingModel {
        let file = self.file
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        } catch {
            throw QuireError(.fileReadNoSuchFile, "There is no mapping model at '\(file.path)'.", context: .init(file: file))
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw QuireError(.fileReadCorruptFile, "The mapping model '\(file.path)' is not a regular file.", context: .init(file: file))
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= Self.maximumFileSize else {
            throw QuireError(
                .fileReadTooLarge, "The mapping model '\(file.path)' is \(size) bytes, more than the \(Self.maximumFileSize) Quire reads.",
                context: .init(file: file))
        }
        let model = XcodeMappingEntities.model
        var options = StoreOptions()
        options.isReadOnly = true
        let store: PersistentStore
        do {
            store = try StoreKinds.makeStore(type: .xml, url: file, configuration: nil, options: options, model: model)
            (store.backend as? AtomicStore)?.checksModelVersionHashes = false
            try store.backend.load()
        } catch let error as QuireError {
            throw QuireError(
                .fileReadCorruptFile, "The mapping model '\(file.path)' cannot be read: \(error.message)",
                context: .init(file: file), underlying: error)
        }
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.attachLoadedStore(store)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { try read(in: context, file: file) }
    }

    private func read(in context: ManagedObjectContext, file: URL) throws -> MappingModel {
        func corrupt(_ reason: String) -> QuireError {
            QuireError(.fileReadCorruptFile, "The mapping model '\(file.path)' cannot be read: \(reason).", context: .init(file: file))
        }
        let models = try context.fetch(FetchRequest<ManagedObject>(entityName: "XDDevMappingModel"))
        guard models.count == 1, let root = models.first else {
            throw corrupt("it holds \(models.count) mapping models (XDDEVMAPPINGMODEL objects), not one")
        }
        func embedded(_ key: String, _ what: String) throws -> ManagedObjectModel {
            guard let data = root.value(forKey: key) as? Data else { throw corrupt("it has no copy of \(what)") }
            do {
                return try XcodeEmbeddedModelDecoder.model(from: data, what: what)
            } catch let error as CompiledModelError {
                throw corrupt("its copy of \(what) cannot be read (\(error))")
            }
        }
        let source = try embedded("sourceModelData", "the source model")
        let destination = try embedded("destinationModelData", "the destination model")
        let entityMappings = ((root.value(forKey: "entityMappings") as? Set<ManagedObject>) ?? []).sorted {
            let (a, b) = (int($0.value(forKey: "mappingNumber")), int($1.value(forKey: "mappingNumber")))
            return a != b ? a < b : (name(of: $0) < name(of: $1))
        }
        var mapping = MappingModel()
        mapping.sourceModelPath = root.value(forKey: "sourceModelPath") as? String
        mapping.destinationModelPath = root.value(forKey: "destinationModelPath") as? String
        for object in entityMappings {
            mapping.entityMappings.append(try entityMapping(object, source: source, destination: destination, corrupt: corrupt))
        }
        // Relationships whose expression Xcode generates: as its compiler makes them (CoreDataPlus's V2toV3.cdm),
        // through the mapping that makes the relationship's destination entity when one does and that entity has
        // no sub-entities (`Car.owner`: PersonToPerson), otherwise through the source relationship, which finds
        // each object through the mapping of its own entity (`Person.cars`, whose cars are of three entities).
        let names = mapping.entityMappings.map { ($0.name, $0.sourceEntityName, $0.destinationEntityName) }
        for index in mapping.entityMappings.indices {
            for (position, property) in mapping.entityMappings[index].relationshipMappings.enumerated() {
                guard case .destinationInstances(let pending, let instances)? = property.valueExpression, pending.isEmpty,
                    case .member(_, let key) = instances,
                    let sourceName = mapping.entityMappings[index].sourceEntityName,
                    let destinationName = mapping.entityMappings[index].destinationEntityName,
                    let old = source.entitiesByName[sourceName]?.relationshipsByName[key],
                    let new = destination.entitiesByName[destinationName]?.relationshipsByName[property.name]
                else { continue }
                let makers = names.filter { $0.1 == old.destinationEntityName && $0.2 == new.destinationEntityName }
                let hasSubentities = !(source.entitiesByName[old.destinationEntityName]?.subentities.isEmpty ?? true)
                mapping.entityMappings[index].relationshipMappings[position].valueExpression =
                    makers.count == 1 && !hasSubentities
                    ? .destinationInstances(entityMappingName: makers[0].0, sourceInstances: instances)
                    : .destinationInstancesForSourceRelationship(relationshipName: key, sourceInstances: instances)
            }
        }
        mapping.url = url
        return mapping
    }

    private func entityMapping(
        _ object: ManagedObject, source: ManagedObjectModel, destination: ManagedObjectModel, corrupt: (String) -> QuireError
    ) throws -> EntityMapping {
        func text(_ key: String) -> String? {
            guard let value = object.value(forKey: key) as? String, !value.isEmpty else { return nil }
            return value
        }
        let sourceName = text("sourceName")
        let destinationName = text("destinationName")
        let policy = text("migrationPolicyClassName")
        let typeName = text("mappingTypeName")
        guard let type = EntityMapping.mappingType(named: typeName, source: sourceName, destination: destinationName, policy: policy) else {
            throw corrupt("an entity mapping has the type '\(typeName ?? "")', which Xcode does not write")
        }
        // Xcode's compiler names a mapping `<Source>To<Destination>`, and one with a single entity by that entity.
        var mapping = EntityMapping(
            name: sourceName == nil || destinationName == nil ? (destinationName ?? sourceName) : nil, mappingType: type,
            sourceEntityName: sourceName, destinationEntityName: destinationName)
        let sourceEntity = try sourceName.map { name -> EntityDescription in
            guard let entity = source.entitiesByName[name] else {
                throw corrupt("the entity mapping '\(mapping.name)' names the source entity '\(name)', which its source model does not have")
            }
            return entity
        }
        let destinationEntity = try destinationName.map { name -> EntityDescription in
            guard let entity = destination.entitiesByName[name] else {
                throw corrupt(
                    "the entity mapping '\(mapping.name)' names the destination entity '\(name)', which its destination model does not have")
            }
            return entity
        }
        mapping.sourceEntityVersionHash = sourceEntity?.versionHash
        mapping.destinationEntityVersionHash = destinationEntity?.versionHash
        mapping.entityMigrationPolicyClassName = policy
        mapping.userInfo = try userInfo(of: object, in: mapping.name, corrupt: corrupt)
        let autoGenerates = object.value(forKey: "autoGenerateExpression") as? Bool ?? false

        func propertyMappings(_ key: String) -> [ManagedObject] {
            ((object.value(forKey: key) as? Set<ManagedObject>) ?? []).sorted { name(of: $0) < name(of: $1) }
        }
        for property in propertyMappings("attributeMappings") {
            let name = self.name(of: property)
            var expression = try archivedExpression(property, mapping: mapping.name, property: name)
            if expression == nil, autoGenerates, let old = sourceEntity?.propertiesByName[name] as? AttributeDescription, !old.isTransient {
                expression = .sourceValue(name)
            }
            var result = PropertyMapping(name: name, valueExpression: expression)
            result.userInfo = try userInfo(of: property, in: mapping.name, corrupt: corrupt)
            mapping.attributeMappings.append(result)
        }
        for property in propertyMappings("relationshipMappings") {
            let name = self.name(of: property)
            var expression = try archivedExpression(property, mapping: mapping.name, property: name)
            if expression == nil, let keyPath = property.value(forKey: "sourceKeyPath") as? String, !keyPath.isEmpty {
                let instances = try parse(keyPath, mapping: mapping.name, property: name)
                if let maker = property.value(forKey: "sourceMappingName") as? String, !maker.isEmpty {
                    expression = .destinationInstances(entityMappingName: maker, sourceInstances: instances)
                } else {
                    expression = .expression(instances)
                }
            }
            if expression == nil, property.value(forKey: "autoGenerateExpression") as? Bool ?? autoGenerates,
                let old = sourceEntity?.propertiesByName[name] as? RelationshipDescription, !old.isTransient
            {
                // The mapping's name is filled in once every entity mapping is known (see read(in:file:)).
                expression = .destinationInstances(entityMappingName: "", sourceInstances: .member(.variable("source"), keyPath: name))
            }
            var result = PropertyMapping(name: name, valueExpression: expression)
            result.userInfo = try userInfo(of: property, in: mapping.name, corrupt: corrupt)
            mapping.relationshipMappings.append(result)
        }
        return mapping
    }

    /// The expression the author typed, if any.
    private func archivedExpression(_ property: ManagedObject, mapping: String, property name: String) throws -> MappingExpression? {
        guard let data = property.value(forKey: "valueExpressionData") as? Data else { return nil }
        let text: String
        do {
            text = try XcodeMappingArchives.expressionText(data)
        } catch let error as CompiledModelError {
            throw QuireError(
                .migration,
                "The mapping model '\(url.path)' cannot be used: the value expression of '\(name)' in the entity mapping "
                    + "'\(mapping)' cannot be read (\(error)).",
                context: .init(file: url, key: name))
        }
        return try MappingExpression(checking: text, mapping: mapping, property: name, file: url)
    }

    private func parse(_ text: String, mapping: String, property: String) throws -> QueryExpression {
        do {
            return try QueryExpression(format: text)
        } catch let error as QuireError {
            throw MappingExpression.unusable(text, mapping: mapping, property: property, file: url, reason: error.message)
        }
    }

    private func userInfo(of object: ManagedObject, in mapping: String, corrupt: (String) -> QuireError) throws -> [String: String] {
        guard let data = object.value(forKey: "userInfoData") as? Data else { return [:] }
        do {
            return try XcodeMappingArchives.userInfo(data)
        } catch let error as CompiledModelError {
            throw corrupt("the user info of '\(mapping)' cannot be read (\(error))")
        }
    }

    private func name(of object: ManagedObject) -> String { object.value(forKey: "name") as? String ?? "" }

    private func int(_ value: Any?) -> Int { (value as? Int16).map(Int.init) ?? 0 }
}

extension MappingExpression {
    /// Reads an expression of a mapping-model file, refusing what Quire cannot evaluate with an error naming the
    /// entity mapping, the property and the expression.
    init(checking text: String, mapping: String, property: String, file: URL?) throws {
        do {
            self = try MappingExpression(format: text)
        } catch let error as QuireError {
            throw Self.unusable(text, mapping: mapping, property: property, file: file, reason: error.message)
        }
        if let variable = unknownVariable {
            throw Self.unusable(
                text, mapping: mapping, property: property, file: file,
                reason: "it reads $\(variable); mapping expressions read $source and $destination")
        }
    }

    /// A variable the expression reads other than `$source` and `$destination` (the receivers of `FUNCTION`
    /// aside), if any.
    var unknownVariable: String? {
        switch self {
        case .sourceValue, .constant, .custom: return nil
        case .expression(let query), .destinationInstances(_, let query), .sourceInstances(_, let query),
            .destinationInstancesForSourceRelationship(_, let query):
            return MappingExpressionScan.unknownVariable(in: query)
        case .policyFunction(_, let arguments): return arguments.lazy.compactMap(MappingExpressionScan.unknownVariable).first
        }
    }

    static func unusable(_ text: String, mapping: String, property: String, file: URL?, reason: String) -> QuireError {
        QuireError(
            .migration,
            "The mapping model\(file.map { " '\($0.path)'" } ?? "") cannot be used: the entity mapping '\(mapping)' maps "
                + "'\(property)' with the expression '\(text)', which Quire cannot evaluate (\(reason)).",
            context: .init(file: file, key: property))
    }
}
