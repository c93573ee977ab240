import QuireCore
import QuireStores
import Foundation
import OrderedCollections

extension MigrationManager {
    /// One entity mapping, resolved against both models.
    struct Plan {
        let mapping: EntityMapping
        let source: EntityDescription
        let destination: EntityDescription
        /// Destination attributes and where their values come from.
        let attributes: [(AttributeDescription, MappingExpression)]
        /// Destination relationships, the source relationships whose objects they take over, and the entity
        /// mapping whose objects they take (nil: whichever mapping made them).
        let relationships: [(RelationshipDescription, RelationshipDescription, String?)]
        /// Whether the relationships are linked twice: ordered to-many relationships whose inverse is also
        /// to-many keep an order on both sides, which some stores write from whichever side comes second.
        var linksTwice: Bool {
            relationships.contains { new, _, _ in
                guard new.isToMany, let inverse = new.resolvedInverse, inverse.isToMany else { return false }
                return new.isOrdered || inverse.isOrdered
            }
        }
    }

    // MARK: One hop

    /// Writes the migrated version of the store at `sourceURL` as a new store at `destinationURL`, carrying the
    /// external data files over, writing the metadata and syncing the file. Nothing is written anywhere else.
    /// `destinationURL` must not exist, unless `appending`: then it is a private copy of a store of the
    /// destination model, which keeps its objects and its identity and gets the migrated ones added.
    func writeMigratedStore(
        from sourceURL: URL, type sourceType: StoreType, options sourceOptions: StoreOptions, mapping: MappingModel,
        to destinationURL: URL, type destinationType: StoreType, options destinationOptions: StoreOptions,
        keepsIdentity: Bool, appending: Bool = false
    ) throws {
        report(.preparing, fraction: 0)
        let destinationKind = try StoreKinds.kind(for: destinationType)
        // Blob files are shared between store files; a store that is no file keeps its external data inside.
        let sharesFiles = sourceURL.isFileURL && destinationURL.isFileURL
        state.withLock { $0.sharesExternalDataFiles = sharesFiles }
        if sharesFiles {
            try MigrationFiles.linkExternalData(from: sourceURL, type: sourceType, to: destinationURL, type: destinationType)
        }

        let sourceCoordinator: PersistentStoreCoordinator
        let sourceStore: PersistentStore
        do {
            sourceCoordinator = try PersistentStoreCoordinator(managedObjectModel: sourceModel)
            var options = sourceOptions
            options.migratesAutomatically = false
            // A store that is no file is only read (a PostgreSQL schema opened writable could be given tables).
            options.isReadOnly = sourceOptions.isReadOnly || !sourceURL.isFileURL || !FileManager.default.isWritableFile(atPath: sourceURL.path)
            sourceStore = try sourceCoordinator.addPersistentStore(type: sourceType, at: sourceURL, options: options)
        } catch let error as QuireError {
            throw QuireError(
                .migrationManagerSourceStore,
                "Cannot open the store \(StoreKinds.storeDescription(sourceURL)) with the migration's source model: \(error.message)",
                context: error.context, underlying: error)
        }
        defer { try? sourceCoordinator.remove(sourceStore) }

        let destinationCoordinator: PersistentStoreCoordinator
        let destinationStore: PersistentStore
        do {
            destinationCoordinator = try PersistentStoreCoordinator(managedObjectModel: destinationModel)
            var options = destinationKind.destinationOptions(destinationOptions)
            options.migratesAutomatically = false
            destinationStore = try destinationCoordinator.addPersistentStore(type: destinationType, at: destinationURL, options: options)
        } catch let error as QuireError {
            throw QuireError(
                .migrationManagerDestinationStore,
                "Cannot create the migrated store \(StoreKinds.storeDescription(destinationURL)): \(error.message)",
                context: error.context, underlying: error)
        }
        var destinationOpen = true
        defer { if destinationOpen { try? destinationCoordinator.remove(destinationStore) } }

        let existing = appending ? try MigrationCounts.count(destinationStore, in: destinationCoordinator) : [:]
        let made: [String: Int]
        if Self.needsManagedObjects(mapping) {
            made = try migrateManagedObjects(
                mapping: mapping, from: sourceStore, in: sourceCoordinator, to: destinationStore, in: destinationCoordinator)
        } else {
            made = try copyObjects(
                mapping: mapping, from: sourceStore, in: sourceCoordinator, to: destinationStore, in: destinationCoordinator)
        }
        try MigrationCounts.check(destinationStore, in: destinationCoordinator, existing: existing, made: made)

        report(.finishing, fraction: 1)
        var metadata = appending ? destinationStore.metadata : sourceStore.metadata
        metadata[StoreMetadataKey.persistentHistory] = nil  // the history names the old records
        let standard = StoreMetadataKey.standard(
            type: destinationType, uuid: keepsIdentity && !appending ? sourceStore.identifier : destinationStore.identifier,
            model: destinationModel)
        for (key, value) in standard { metadata[key] = value }
        destinationOpen = false
        try destinationCoordinator.remove(destinationStore)
        if let write = destinationKind.writeMetadataWithModel {
            try write(metadata, destinationURL, destinationModel)
        } else {
            try destinationKind.writeMetadata(metadata, destinationURL, StoreOptions())
        }
        if destinationURL.isFileURL { try MigrationFiles.sync(destinationURL) }
        if state.withLock({ $0.failurePoint }) == .beforeSwap {
            throw QuireError(.migration, "Injected failure before the migrated store replaces the old one.")
        }
    }

    /// Replaces the store at `target` with the finished store at `staged`, a place of `work`.
    func swapIn(_ staged: URL, at target: URL, work: MigrationWorkArea) throws {
        // The swap below is the commit (a rename, or PostgreSQL's transaction): a cancel that came during the last
        // batch, or while the new store was being finished, still stops the migration here, with the old store
        // untouched.
        try checkCancelled()
        try work.replace(target, with: staged)
        report(.finished, fraction: 1)
    }

    // MARK: Objects

    /// Copies every object the mapping carries over: first the objects with their attribute values, entity
    /// mapping by entity mapping, in batches; then their relationships, mapped through the IDs the first pass
    /// recorded.
    ///
    /// - Returns: How many objects of each destination entity were written, by entity name.
    func copyObjects(
        mapping: MappingModel, from source: PersistentStore, in sourceCoordinator: PersistentStoreCoordinator,
        to destination: PersistentStore, in destinationCoordinator: PersistentStoreCoordinator
    ) throws -> [String: Int] {
        let mappingNames = Set(mapping.entityMappings.map(\.name))
        let plans = try mapping.entityMappings.filter(\.migratesObjects).map { try resolve($0, mappingNames: mappingNames) }
        let sharesFiles = state.withLock { $0.sharesExternalDataFiles }
        var sourceIDs: [[ObjectID]] = []
        for plan in plans {
            let fetch = StoreFetch(
                entity: plan.source, predicate: nil, sortKeys: [], limit: 0, offset: 0, includesSubentities: false,
                kind: .objectIDs)
            let ids = try sourceCoordinator.fetchObjectIDs(fetch, stores: [source])
            sourceIDs.append(ids.sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) })
        }
        let total = zip(plans, sourceIDs).reduce(0) { sum, pair in
            sum + pair.1.count * (pair.0.relationships.isEmpty ? 1 : (pair.0.linksTwice ? 3 : 2))
        }
        var done = 0
        func advance(_ count: Int, _ phase: MigrationProgress.Phase, _ plan: Plan) {
            done += count
            report(phase, fraction: total == 0 ? 1 : Double(done) / Double(total), mapping: plan.mapping.name, done: done, total: total)
        }
        let batchSize = self.batchSize
        let failurePoint = state.withLock { $0.failurePoint }

        // Pass 1: objects and attribute values.
        var destinationIDs: [ObjectID: ObjectID] = [:]
        var pairs: [[(ObjectID, ObjectID)]] = []
        var made: [String: Int] = [:]
        var written = 0
        for (plan, ids) in zip(plans, sourceIDs) {
            state.withLock { $0.currentEntityMapping = plan.mapping }
            try runPolicy(plan) { try $0.begin(plan.mapping, manager: self) }
            var planPairs: [(ObjectID, ObjectID)] = []
            let temporaryOwner = ObjectIDOwner(token: 0, keeping: plan.destination)
            for start in stride(from: 0, to: ids.count, by: batchSize) {
                try checkCancelled()
                let batch = Array(ids[start..<min(start + batchSize, ids.count)])
                let rows = try sourceCoordinator.storeBatch(batch, in: source, rows: true).rows
                var changes: [SaveRequest.Change] = []
                var origins: [ObjectID] = []
                for row in rows {
                    guard var values = try destinationValues(for: row, plan: plan) else { continue }
                    if !sharesFiles { try readExternalData(&values, of: row.objectID, entity: plan.destination, in: sourceCoordinator) }
                    changes.append(
                        SaveRequest.Change(
                            objectID: ObjectID.makeTemporary(for: plan.destination, owner: temporaryOwner), store: destination, version: 0,
                            attributes: values, relationships: plan.destination.emptyRelationshipValues,
                            committedRelationships: nil))
                    origins.append(row.objectID)
                }
                if !changes.isEmpty {
                    let result = try save(SaveRequest(inserted: changes), in: destinationCoordinator, plan: plan)
                    for (origin, id) in zip(origins, result.permanentIDs) {
                        destinationIDs[origin] = id
                        planPairs.append((origin, id))
                    }
                }
                written += changes.count
                if case .afterObjects(let limit)? = failurePoint, written >= limit {
                    throw QuireError(.migration, "Injected failure after \(written) objects.")
                }
                advance(batch.count, .copyingObjects, plan)
            }
            try runPolicy(plan) { try $0.end(plan.mapping, manager: self) }
            // Without a policy or a filter every source object makes one destination object: anything else loses
            // objects.
            if plan.mapping.migrationPolicy == nil && plan.mapping.sourceFilter == nil && planPairs.count != ids.count {
                throw QuireError(
                    .migration,
                    "The entity mapping '\(plan.mapping.name)' wrote \(planPairs.count) objects of '\(plan.destination.name)' from "
                        + "\(ids.count) objects of '\(plan.source.name)'; the migration would lose objects.",
                    context: .init(entity: plan.destination.name))
            }
            made[plan.destination.name, default: 0] += planPairs.count
            pairs.append(planPairs)
        }
        // The objects each mapping named by a relationship made, by source object.
        var makerIDs: [String: [ObjectID: ObjectID]] = [:]
        for plan in plans {
            for (_, _, maker) in plan.relationships {
                guard let maker, makerIDs[maker] == nil, let index = plans.firstIndex(where: { $0.mapping.name == maker }) else { continue }
                makerIDs[maker] = Dictionary(pairs[index], uniquingKeysWith: { first, _ in first })
            }
        }

        // Pass 2: relationships, once every destination object exists.
        for round in 0..<2 {
            for (index, plan) in plans.enumerated() where !plan.relationships.isEmpty && (round == 0 || plan.linksTwice) {
                state.withLock { $0.currentEntityMapping = plan.mapping }
                let planPairs = pairs[index]
                for start in stride(from: 0, to: planPairs.count, by: batchSize) {
                    try checkCancelled()
                    let batch = Array(planPairs[start..<min(start + batchSize, planPairs.count)])
                    try linkRelationships(
                        batch, plan: plan, from: source, in: sourceCoordinator, to: destination, in: destinationCoordinator,
                        destinationIDs: destinationIDs, makerIDs: makerIDs)
                    advance(batch.count, .linkingRelationships, plan)
                }
                // Objects the filter or the policy left out count as done.
                advance(sourceIDs[index].count - planPairs.count, .linkingRelationships, plan)
            }
        }
        state.withLock { $0.currentEntityMapping = nil }
        return made
    }

    /// Checks an entity mapping against both models.
    private func resolve(_ mapping: EntityMapping, mappingNames: Set<String>) throws -> Plan {
        func invalid(_ reason: String, key: String? = nil) -> QuireError {
            QuireError(
                .migration, "The entity mapping '\(mapping.name)' \(reason).",
                context: .init(entity: mapping.destinationEntityName ?? mapping.sourceEntityName, key: key))
        }
        guard let sourceName = mapping.sourceEntityName, let source = sourceModel.entitiesByName[sourceName] else {
            throw invalid("names the source entity '\(mapping.sourceEntityName ?? "")', which the source model does not have")
        }
        guard let destinationName = mapping.destinationEntityName, let destination = destinationModel.entitiesByName[destinationName]
        else {
            throw invalid("names the destination entity '\(mapping.destinationEntityName ?? "")', which the destination model does not have")
        }
        guard !destination.isAbstract else { throw invalid("creates objects of the abstract entity '\(destinationName)'") }
        // A copy mapping that lists no properties copies every stored property the two entities share by name.
        var attributeMappings = mapping.attributeMappings
        var relationshipMappings = mapping.relationshipMappings
        if mapping.mappingType == .copy && attributeMappings.isEmpty && relationshipMappings.isEmpty {
            // Composites' elements count as attributes of their own (`address.city`).
            let sourceProperties = source.propertiesByName.merging(source.storedAttributesByKey.mapValues { $0 as PropertyDescription }) { declared, _ in declared }
            let shared = destination.propertiesByName.merging(destination.storedAttributesByKey.mapValues { $0 as PropertyDescription }) { declared, _ in declared }.filter { name, property in
                !property.isTransient && sourceProperties[name].map { !$0.isTransient && type(of: $0) == type(of: property) } == true
            }
            attributeMappings = shared.filter { $0.value is AttributeDescription }.keys.sorted().map { PropertyMapping.copy($0) }
            relationshipMappings = shared.filter { $0.value is RelationshipDescription }.keys.sorted().map { PropertyMapping.copy($0) }
        }
        var attributes: [(AttributeDescription, MappingExpression)] = []
        for property in attributeMappings {
            guard let attribute = destination.storedAttributesByKey[property.name], !attribute.isTransient else {
                throw invalid("maps '\(property.name)', which is not a stored attribute of '\(destinationName)'", key: property.name)
            }
            guard let expression = property.valueExpression else { continue }
            if case .sourceValue(let key) = expression {
                guard let old = source.storedAttributesByKey[key], !old.isTransient else {
                    throw invalid("reads '\(key)', which is not a stored attribute of '\(sourceName)'", key: property.name)
                }
            }
            attributes.append((attribute, expression))
        }
        var relationships: [(RelationshipDescription, RelationshipDescription, String?)] = []
        for property in relationshipMappings {
            guard let relationship = destination.relationshipsByName[property.name], !relationship.isTransient else {
                throw invalid("maps '\(property.name)', which is not a stored relationship of '\(destinationName)'", key: property.name)
            }
            guard let expression = property.valueExpression else { continue }
            var key: String?
            var maker: String?
            switch expression {
            case .sourceValue(let name): key = name
            case .expression(let query), .destinationInstancesForSourceRelationship(_, let query):
                key = MappingExpressionScan.directSourceKey(query)
            case .destinationInstances(let name, let query):
                key = MappingExpressionScan.directSourceKey(query)
                maker = name
                guard mappingNames.contains(name) else {
                    throw invalid("maps '\(property.name)' with objects of the entity mapping '\(name)', which the mapping model does not have", key: property.name)
                }
            default: key = nil
            }
            guard let key, let old = source.relationshipsByName[key], !old.isTransient else {
                throw invalid(
                    "maps the relationship '\(property.name)' with something other than a stored relationship of "
                        + "'\(sourceName)' ($source.<relationship>)", key: property.name)
            }
            relationships.append((relationship, old, maker))
        }
        return Plan(mapping: mapping, source: source, destination: destination, attributes: attributes, relationships: relationships)
    }

    /// The source object a row stands for, as expressions and policies see it.
    private func sourceObject(_ row: RowSnapshot, entity: EntityDescription) -> MigrationSourceObject {
        var values: [String: AttributeValue] = [:]
        for attribute in entity.allAttributes where !attribute.isTransient { values[attribute.name] = row.attributes[attribute.slot] }
        var toOne: [String: ObjectID] = [:]
        for relationship in entity.allRelationships where !relationship.isToMany && !relationship.isTransient {
            if case .toOne(let id?) = row.relationships[relationship.slot] { toOne[relationship.name] = id }
        }
        return MigrationSourceObject(objectID: row.objectID, values: values, toOneObjectIDs: toOne)
    }

    /// The destination attribute values of one source row, by slot; nil when the filter or the policy leaves
    /// the object out.
    private func destinationValues(for row: RowSnapshot, plan: Plan) throws -> [AttributeValue]? {
        let object = sourceObject(row, entity: plan.source)
        let entity = plan.destination
        func failure(_ reason: String, key: String?, underlying: QuireError? = nil) -> QuireError {
            QuireError(
                .migration, "Migrating \(row.objectID) to '\(entity.name)' failed: \(reason).",
                context: .init(entity: entity.name, key: key, object: row.objectID.uriRepresentation()), underlying: underlying)
        }
        if let filter = plan.mapping.sourceFilter {
            do {
                guard try filter.evaluate(with: object, substitutionVariables: ["source": object]) else { return nil }
            } catch let error as QuireError {
                throw failure("the source filter cannot be evaluated (\(error.message))", key: nil, underlying: error)
            }
        }
        var values: [String: AttributeValue] = [:]
        for (attribute, expression) in plan.attributes {
            do {
                values[attribute.name] = try value(of: expression, for: object)
            } catch let error as QuireError {
                throw failure("the value of '\(attribute.name)' cannot be computed (\(error.message))", key: attribute.name, underlying: error)
            }
        }
        if let policy = plan.mapping.migrationPolicy {
            do {
                guard let custom = try policy.createDestinationValues(
                    forSource: object, proposedValues: values, mapping: plan.mapping, manager: self)
                else { return nil }
                values = custom
            } catch let error as QuireError where error.code == .migrationCancelled {
                throw error
            } catch {
                throw QuireError(
                    .entityMigrationPolicy,
                    "The migration policy of '\(plan.mapping.name)' failed for \(row.objectID): \(error)",
                    context: .init(entity: entity.name, object: row.objectID.uriRepresentation()),
                    underlying: error as? QuireError)
            }
        }
        let attributes = entity.allAttributes
        var slots = entity.defaultAttributeValues
        for attribute in attributes where attribute.isTransient { slots[attribute.slot] = .null }
        for (name, value) in values {
            guard let attribute = entity.storedAttributesByKey[name], !attribute.isTransient else {
                throw failure("'\(name)' is not a stored attribute of '\(entity.name)'", key: name)
            }
            let coerced: AttributeValue
            do {
                coerced = try ValueCoercion.coerce(value, to: attribute)
            } catch let error as QuireError {
                throw failure(error.message, key: name, underlying: error)
            }
            slots[attribute.slot] = coerced.isNull && !attribute.isOptional ? attribute.defaultAttributeValue : coerced
        }
        for slot in entity.requiredAttributeSlots where slots[slot].isNull {
            throw failure("the required attribute '\(attributes[slot].name)' would have no value", key: attributes[slot].name)
        }
        return slots
    }

    private func value(of expression: MappingExpression, for object: MigrationSourceObject) throws -> AttributeValue {
        switch expression {
        case .sourceValue(let key):
            return object[key] ?? .null
        case .constant(let value):
            return value
        case .expression(let expression):
            switch try expression.value(with: object, substitutionVariables: ["source": object]) {
            case .value(let value): return value
            case .object, .collection:
                throw QuireError(.predicateEvaluation, "the expression \(expression) gives objects, not a value")
            }
        case .custom(let compute):
            return try compute(object)
        case .destinationInstances, .sourceInstances, .destinationInstancesForSourceRelationship, .policyFunction:
            // Such mappings run on managed objects (see needsManagedObjects); this is not reached.
            throw QuireError(.predicateEvaluation, "the expression \(expression) needs the migration's managed objects")
        }
    }

    /// Replaces the references to external data files among a new object's values by the data, read from the
    /// source store, for a destination that does not share the source's files (a PostgreSQL store on either side).
    private func readExternalData(
        _ values: inout [AttributeValue], of source: ObjectID, entity: EntityDescription, in coordinator: PersistentStoreCoordinator
    ) throws {
        for index in values.indices {
            guard case .externalData(let reference) = values[index] else { continue }
            values[index] = .data(try coordinator.readExternalData(reference, of: source, key: entity.allAttributes[index].name))
        }
    }

    /// Writes the relationships of a batch of migrated objects.
    private func linkRelationships(
        _ batch: [(ObjectID, ObjectID)], plan: Plan, from source: PersistentStore, in sourceCoordinator: PersistentStoreCoordinator,
        to destination: PersistentStore, in destinationCoordinator: PersistentStoreCoordinator, destinationIDs: [ObjectID: ObjectID],
        makerIDs: [String: [ObjectID: ObjectID]]
    ) throws {
        let origins = batch.map(\.0)
        var toMany: [RelationshipDescription] = []
        for (_, old, _) in plan.relationships where old.isToMany && !toMany.contains(where: { $0.name == old.name }) {
            toMany.append(old)
        }
        let read = try sourceCoordinator.storeBatch(
            origins, in: source, rows: plan.relationships.contains(where: { !$0.1.isToMany }), members: toMany)
        var sourceRows: [ObjectID: RowSnapshot] = [:]
        for row in read.rows { sourceRows[row.objectID] = row }
        var related: [String: [ObjectID: [ObjectID]]] = [:]
        for (relationship, members) in zip(toMany, read.members) { related[relationship.name] = members }
        let destinationRows = Dictionary(
            try destinationCoordinator.storeBatch(batch.map(\.1), in: destination, rows: true).rows.map { ($0.objectID, $0) },
            uniquingKeysWith: { a, _ in a })
        var changes: [SaveRequest.Change] = []
        for (origin, id) in batch {
            guard let row = destinationRows[id] else { continue }
            var relationships = plan.destination.emptyRelationshipValues
            for (new, old, maker) in plan.relationships {
                let members: [ObjectID]
                if old.isToMany {
                    members = related[old.name]?[origin] ?? []
                } else if case .toOne(let member?)? = sourceRows[origin]?.relationships[old.slot] {
                    members = [member]
                } else {
                    members = []
                }
                let mapped = maker.map { name in members.compactMap { makerIDs[name]?[$0] } } ?? members.compactMap { destinationIDs[$0] }
                if !new.isToMany {
                    relationships[new.slot] = .toOne(mapped.first)
                } else if new.isOrdered {
                    relationships[new.slot] = .ordered(OrderedSet(mapped))
                } else {
                    relationships[new.slot] = .toMany(Set(mapped))
                }
            }
            changes.append(
                SaveRequest.Change(
                    objectID: id, store: destination, version: row.version, attributes: row.attributes,
                    relationships: relationships, committedRelationships: nil))
        }
        if !changes.isEmpty { _ = try save(SaveRequest(updated: changes), in: destinationCoordinator, plan: plan) }
    }

    private func save(_ request: SaveRequest, in coordinator: PersistentStoreCoordinator, plan: Plan) throws -> SaveResult {
        do {
            return try coordinator.save(request)
        } catch let error as QuireError {
            throw QuireError(
                .migrationManagerDestinationStore,
                "Writing the objects of '\(plan.mapping.name)' to the migrated store failed: \(error.message)",
                context: .init(file: error.context.file, entity: plan.destination.name), underlying: error)
        }
    }

    private func runPolicy(_ plan: Plan, _ body: (any MigrationPolicy) throws -> Void) throws {
        guard let policy = plan.mapping.migrationPolicy else { return }
        do {
            try body(policy)
        } catch {
            throw QuireError(
                .entityMigrationPolicy, "The migration policy of '\(plan.mapping.name)' failed: \(error)",
                context: .init(entity: plan.destination.name), underlying: error as? QuireError)
        }
    }
}
