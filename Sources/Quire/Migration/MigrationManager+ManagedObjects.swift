import QuireCore
import QuireStores
import Foundation
import OrderedCollections

extension MigrationManager {
    // MARK: Choosing the way

    /// Whether a mapping model needs managed objects (Core Data's three stages with policy objects): it names a
    /// policy class, or has an expression that reads more than the source object's own attributes and
    /// relationships. Other mapping models (inferred ones among them) are copied row by row.
    static func needsManagedObjects(_ mapping: MappingModel) -> Bool {
        mapping.entityMappings.contains { entityMapping in
            guard entityMapping.migratesObjects || entityMapping.entityMigrationPolicyClassName != nil else { return false }
            if entityMapping.entityMigrationPolicyClassName != nil { return true }
            let attributes = entityMapping.attributeMappings.contains { property in
                switch property.valueExpression {
                case nil, .sourceValue?, .constant?, .custom?: return false
                case .expression(let expression)?: return !MappingExpressionScan.readsOnlySourceKeys(expression)
                default: return true
                }
            }
            let relationships = entityMapping.relationshipMappings.contains { property in
                switch property.valueExpression {
                case nil, .sourceValue?: return false
                case .destinationInstances(_, let instances)?, .expression(let instances)?,
                    .destinationInstancesForSourceRelationship(_, let instances)?:
                    return MappingExpressionScan.directSourceKey(instances) == nil
                default: return true
                }
            }
            return attributes || relationships
        }
    }

    // MARK: The three stages

    /// Migrates the objects of `sourceStore` into `destinationStore` on managed objects, in two private contexts
    /// (see ``EntityMigrationPolicy`` for the stages), and saves the destination context.
    ///
    /// - Returns: How many objects of each destination entity the migration inserted, by entity name.
    func migrateManagedObjects(
        mapping: MappingModel, from sourceStore: PersistentStore, in sourceCoordinator: PersistentStoreCoordinator,
        to destinationStore: PersistentStore, in destinationCoordinator: PersistentStoreCoordinator
    ) throws -> [String: Int] {
        let sourceContext = ManagedObjectContext(concurrencyType: .privateQueue)
        sourceContext.name = "migration source"
        sourceContext.persistentStoreCoordinator = sourceCoordinator
        let destinationContext = ManagedObjectContext(concurrencyType: .privateQueue)
        destinationContext.name = "migration destination"
        destinationContext.persistentStoreCoordinator = destinationCoordinator
        let run = ManagedObjectMigration(
            sourceContext: sourceContext, destinationContext: destinationContext, sourceStore: sourceStore, mappingModel: mapping)
        try resolvePlans(of: run)
        return try destinationContext.performAndWait {
            try sourceContext.performAndWait {
                try state.withLock { state in
                    guard !state.isRunningManagedObjects else {
                        throw QuireError(.migration, "The migration manager is already running a migration; use one manager per migration.")
                    }
                    state.isRunningManagedObjects = true
                }
                activeRun.withLock { $0 = run }
                defer {
                    activeRun.withLock { $0 = nil }
                    state.withLock {
                        $0.isRunningManagedObjects = false
                        $0.currentEntityMapping = nil
                    }
                }
                return try runStages(run)
            }
        }
    }

    private func runStages(_ run: ManagedObjectMigration) throws -> [String: Int] {
        let failurePoint = state.withLock { $0.failurePoint }
        let batchSize = self.batchSize
        // Stage 1: the destination objects, mapping by mapping.
        var sources: [[ManagedObject]] = []
        for plan in run.plans {
            guard let entity = plan.source, plan.mapping.migratesObjects else {
                sources.append([])
                continue
            }
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            request.includesSubentities = false
            // Every object is read: filled at once rather than made as a fault and fired.
            request.returnsObjectsAsFaults = false
            var objects = try fetchSources(request, in: run, plan: plan)
            objects.sort { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
            run.fetchedSources[ObjectIdentifier(entity)] = objects
            if let filter = plan.mapping.sourceFilter {
                objects = try objects.filter { object in
                    do {
                        return try filter.evaluate(with: object, substitutionVariables: ["source": object])
                    } catch let error as QuireError {
                        throw QuireError(
                            .migration, "The source filter of '\(plan.mapping.name)' cannot be evaluated for \(object.objectID): \(error.message)",
                            context: .init(entity: plan.destination.name, object: object.objectID.uriRepresentation()), underlying: error)
                    }
                }
            }
            plan.sourceCount = objects.count
            plan.reserve(objects.count, largestKey: objects.last?.objectID.primaryKey ?? -1)
            sources.append(objects)
        }
        let total = sources.reduce(0) { $0 + $1.count } * 2
        var done = 0
        func advance(_ count: Int, _ phase: MigrationProgress.Phase, _ plan: ManagedObjectMigration.Plan) {
            done += count
            report(phase, fraction: total == 0 ? 1 : Double(done) / Double(max(total, 1)) * 0.95, mapping: plan.mapping.name, done: done, total: total)
        }
        var created = 0
        for (plan, objects) in zip(run.plans, sources) {
            state.withLock { $0.currentEntityMapping = plan.mapping }
            try callPolicy(plan, "begin") { try plan.policy.begin(plan.mapping, with: self) }
            for start in stride(from: 0, to: objects.count, by: batchSize) {
                try checkCancelled()
                let batch = objects[start..<min(start + batchSize, objects.count)]
                for object in batch {
                    let before = plan.pairs.count
                    try callPolicy(plan, "createDestinationInstances", for: object) {
                        try plan.policy.createDestinationInstances(forSource: object, in: plan.mapping, manager: self)
                    }
                    created += plan.pairs.count - before
                }
                if case .afterObjects(let limit)? = failurePoint, created >= limit {
                    throw QuireError(.migration, "Injected failure after \(created) objects.")
                }
                advance(batch.count, .copyingObjects, plan)
            }
            try callPolicy(plan, "endInstanceCreation") { try plan.policy.endInstanceCreation(forMapping: plan.mapping, manager: self) }
            if plan.makesOnePerSource && plan.pairs.count != plan.sourceCount {
                throw QuireError(
                    .migration,
                    "The entity mapping '\(plan.mapping.name)' made \(plan.pairs.count) objects of '\(plan.destination.name)' from "
                        + "\(plan.sourceCount) objects of '\(plan.source?.name ?? "")'; the migration would lose objects.",
                    context: .init(entity: plan.destination.name))
            }
        }
        // Stage 2: relationships, once every destination object exists.
        for plan in run.plans {
            state.withLock { $0.currentEntityMapping = plan.mapping }
            let destinations = plan.associatedDestinations
            for start in stride(from: 0, to: destinations.count, by: batchSize) {
                try checkCancelled()
                let batch = destinations[start..<min(start + batchSize, destinations.count)]
                try loadMembers(of: batch, for: plan, in: run)
                for (offset, object) in batch.enumerated() {
                    plan.pairHint = start + offset
                    try callPolicy(plan, "createRelationships", for: object) {
                        try plan.policy.createRelationships(forDestination: object, in: plan.mapping, manager: self)
                    }
                }
                advance(batch.count, .linkingRelationships, plan)
            }
            // Objects a policy left out count as done.
            advance(max(0, plan.sourceCount - destinations.count), .linkingRelationships, plan)
            try callPolicy(plan, "endRelationshipCreation") { try plan.policy.endRelationshipCreation(forMapping: plan.mapping, manager: self) }
        }
        // Stage 3: validation, the end of each mapping, and the save.
        for plan in run.plans {
            state.withLock { $0.currentEntityMapping = plan.mapping }
            try callPolicy(plan, "performCustomValidation") { try plan.policy.performCustomValidation(forMapping: plan.mapping, manager: self) }
        }
        for plan in run.plans {
            try callPolicy(plan, "end") { try plan.policy.end(plan.mapping, manager: self) }
        }
        state.withLock { $0.currentEntityMapping = nil }
        try checkCancelled()
        report(.finishing, fraction: 0.97)
        var made: [String: Int] = [:]
        for object in run.destinationContext.insertedObjects { made[object.entity.name, default: 0] += 1 }
        do {
            try run.destinationContext.save()
        } catch let error as QuireError {
            throw QuireError(
                .migration, "The migrated objects cannot be saved: \(error.message)", context: error.context, underlying: error)
        }
        return made
    }

    private func fetchSources(
        _ request: FetchRequest<ManagedObject>, in run: ManagedObjectMigration, plan: ManagedObjectMigration.Plan
    ) throws -> [ManagedObject] {
        do {
            return try run.sourceContext.fetch(request)
        } catch let error as QuireError {
            throw QuireError(
                .migrationManagerSourceStore, "Reading the objects of '\(plan.mapping.name)' from the store failed: \(error.message)",
                context: error.context, underlying: error)
        }
    }

    /// Runs one step of a policy, turning what it throws into ``QuireError/Code/entityMigrationPolicy`` (a cancel
    /// stays a cancel).
    private func callPolicy(
        _ plan: ManagedObjectMigration.Plan, _ step: String, for object: ManagedObject? = nil, _ body: () throws -> Void
    ) throws {
        do {
            try body()
        } catch let error as QuireError where error.code == .migrationCancelled {
            throw error
        } catch {
            let policy = plan.mapping.entityMigrationPolicyClassName.map { "policy \($0)" } ?? "default policy"
            let subject = object.map { " for \($0.objectID.uriRepresentation().absoluteString)" } ?? ""
            let reason = (error as? QuireError)?.message ?? "\(error)"
            throw QuireError(
                .entityMigrationPolicy, "The \(policy) of the entity mapping '\(plan.mapping.name)' failed in \(step)\(subject): \(reason)",
                context: .init(entity: plan.destination.name, object: object?.objectID.uriRepresentation()),
                underlying: error as? QuireError ?? QuireError(.entityMigrationPolicy, "\(error)"))
        }
        // A policy that cancelled (`cancelMigration(with:)`) stops the migration as soon as its step returns.
        try checkCancelled()
    }

    // MARK: Resolving the mapping

    /// Checks every entity mapping against both models and the registry, before anything is written, and makes
    /// the policy objects.
    private func resolvePlans(of run: ManagedObjectMigration) throws {
        let registry = policyRegistry
        let names = Set(run.mappingModel.entityMappings.map(\.name))
        for mapping in run.mappingModel.entityMappings {
            func invalid(_ reason: String, key: String? = nil) -> QuireError {
                QuireError(
                    .migration, "The entity mapping '\(mapping.name)' \(reason).",
                    context: .init(file: run.mappingModel.url, entity: mapping.destinationEntityName ?? mapping.sourceEntityName, key: key))
            }
            guard mapping.mappingType != .remove, let destinationName = mapping.destinationEntityName else { continue }
            guard let destination = destinationModel.entitiesByName[destinationName] else {
                throw invalid("names the destination entity '\(destinationName)', which the destination model does not have")
            }
            var source: EntityDescription?
            if let sourceName = mapping.sourceEntityName {
                guard let entity = sourceModel.entitiesByName[sourceName] else {
                    throw invalid("names the source entity '\(sourceName)', which the source model does not have")
                }
                source = entity
            }
            if mapping.migratesObjects && destination.isAbstract && mapping.entityMigrationPolicyClassName == nil {
                throw invalid("creates objects of the abstract entity '\(destinationName)'")
            }
            let policy: EntityMigrationPolicy
            if let className = mapping.entityMigrationPolicyClassName {
                guard let made = registry.makePolicy(named: className) else {
                    throw QuireError(
                        .entityMigrationPolicy,
                        "The entity mapping '\(mapping.name)' names the migration policy class '\(className)', which is not registered; "
                            + "register it with EntityMigrationPolicyRegistry.shared.register(_:as:) under that name.",
                        context: .init(file: run.mappingModel.url, entity: destinationName))
                }
                policy = made
            } else {
                policy = EntityMigrationPolicy()
            }
            var attributes: [(AttributeDescription, ManagedObjectMigration.AttributeRule)] = []
            for property in mapping.attributeMappings {
                guard let attribute = destination.storedAttributesByKey[property.name], !attribute.isTransient else {
                    throw invalid("maps '\(property.name)', which is not a stored attribute of '\(destinationName)'", key: property.name)
                }
                guard let expression = property.valueExpression else { continue }
                func unusable(_ reason: String) -> QuireError {
                    MappingExpression.unusable(
                        expression.description, mapping: mapping.name, property: property.name, file: run.mappingModel.url, reason: reason)
                }
                switch expression {
                case .sourceValue(let key):
                    guard let old = source?.storedAttributesByKey[key], !old.isTransient else {
                        throw invalid("reads '\(key)', which is not a stored attribute of '\(source?.name ?? "")'", key: property.name)
                    }
                    let convert = old.attributeType != attribute.attributeType || old.valueTransformerName != attribute.valueTransformerName
                    attributes.append((attribute, .sourceSlot(old.slot, convert: convert)))
                case .constant(let value):
                    do {
                        attributes.append((attribute, .constant(try ValueCoercion.coerce(value, to: attribute))))
                    } catch let error as QuireError {
                        throw unusable(error.message)
                    }
                case .destinationInstances, .sourceInstances, .destinationInstancesForSourceRelationship:
                    throw unusable("it gives objects, and '\(property.name)' is an attribute")
                case .expression(let query):
                    if let variable = MappingExpressionScan.unknownVariable(in: query) {
                        throw unusable("it reads $\(variable); mapping expressions read $source and $destination")
                    }
                    attributes.append((attribute, .expression(expression)))
                case .policyFunction(let selector, let arguments):
                    if mapping.entityMigrationPolicyClassName == nil {
                        throw unusable("it calls '\(selector)' of $entityPolicy, and the mapping names no policy class")
                    }
                    if let variable = arguments.lazy.compactMap(MappingExpressionScan.unknownVariable).first {
                        throw unusable("it reads $\(variable); mapping expressions read $source and $destination")
                    }
                    attributes.append((attribute, .expression(expression)))
                case .custom:
                    attributes.append((attribute, .expression(expression)))
                }
            }
            var relationships: [(RelationshipDescription, MappingExpression)] = []
            var direct: [ManagedObjectMigration.DirectRelationship?] = []
            for property in mapping.relationshipMappings {
                guard let relationship = destination.relationshipsByName[property.name], !relationship.isTransient else {
                    throw invalid("maps '\(property.name)', which is not a stored relationship of '\(destinationName)'", key: property.name)
                }
                guard let expression = property.valueExpression else { continue }
                func unusable(_ reason: String) -> QuireError {
                    MappingExpression.unusable(
                        expression.description, mapping: mapping.name, property: property.name, file: run.mappingModel.url, reason: reason)
                }
                switch expression {
                case .sourceValue(let key):
                    guard let old = source?.relationshipsByName[key], !old.isTransient else {
                        throw invalid("reads '\(key)', which is not a stored relationship of '\(source?.name ?? "")'", key: property.name)
                    }
                case .destinationInstances(let maker, let instances), .sourceInstances(let maker, let instances):
                    guard names.contains(maker) else {
                        throw unusable("no entity mapping of the mapping model is named '\(maker)'")
                    }
                    if let variable = MappingExpressionScan.unknownVariable(in: instances) {
                        throw unusable("it reads $\(variable); mapping expressions read $source and $destination")
                    }
                case .destinationInstancesForSourceRelationship(let name, let instances):
                    guard let old = source?.relationshipsByName[name], !old.isTransient else {
                        throw unusable("'\(name)' is not a stored relationship of '\(source?.name ?? "")'")
                    }
                    if let variable = MappingExpressionScan.unknownVariable(in: instances) {
                        throw unusable("it reads $\(variable); mapping expressions read $source and $destination")
                    }
                case .expression(let query):
                    if let variable = MappingExpressionScan.unknownVariable(in: query) {
                        throw unusable("it reads $\(variable); mapping expressions read $source and $destination")
                    }
                case .constant(.null):
                    break
                case .constant:
                    throw unusable("it gives a value, and '\(property.name)' is a relationship")
                case .custom:
                    throw unusable("Swift code computes attribute values; relationships take expressions or a policy")
                case .policyFunction(let selector, _):
                    if mapping.entityMigrationPolicyClassName == nil {
                        throw unusable("it calls '\(selector)' of $entityPolicy, and the mapping names no policy class")
                    }
                }
                relationships.append((relationship, expression))
                direct.append(Self.directRelationship(expression, source: source))
            }
            let makesOnePerSource =
                mapping.migratesObjects && mapping.entityMigrationPolicyClassName == nil && mapping.migrationPolicy == nil
                && mapping.sourceFilter == nil
            let plan = ManagedObjectMigration.Plan(
                mapping: mapping, source: source, destination: destination, attributes: attributes, relationships: relationships,
                directRelationships: direct, policy: policy, makesOnePerSource: makesOnePerSource)
            run.planIndexByName[mapping.name] = run.plans.count
            run.plans.append(plan)
        }
        for plan in run.plans {
            plan.makerPlanIndexes = plan.directRelationships.map { direct in direct?.maker.flatMap { run.planIndexByName[$0] } }
        }
    }

    // MARK: The default steps

    /// ``EntityMigrationPolicy/createDestinationInstances(forSource:in:manager:)``'s default.
    func createDefaultDestinationInstance(forSource sInstance: ManagedObject, in mapping: EntityMapping, policy: EntityMigrationPolicy) throws {
        let run = currentRun()
        guard let plan = run.plan(named: mapping.name) else { throw unknownMapping(mapping.name) }
        let entity = plan.destination
        func failure(_ reason: String, key: String?, underlying: QuireError? = nil) -> QuireError {
            QuireError(
                .migration, "Migrating \(sInstance.objectID) to '\(entity.name)' failed: \(reason).",
                context: .init(entity: entity.name, key: key, object: sInstance.objectID.uriRepresentation()), underlying: underlying)
        }
        if plan.copiesStoredValues && mapping.migrationPolicy == nil {
            // Every value is a source value as stored or a constant: nothing can fail, so the object is made first
            // and each value goes straight into it.
            let object = ManagedObject(entity: entity, insertInto: run.destinationContext)
            for (attribute, rule) in plan.attributes {
                let value: AttributeValue
                switch rule {
                case .sourceSlot(let slot, _): value = sInstance.attributeValue(at: slot)
                case .constant(let constant): value = constant
                case .expression: continue
                }
                object.setAttributeValue(value.isNull && !attribute.isOptional ? attribute.defaultAttributeValue : value, at: attribute.slot)
            }
            plan.associate(sInstance, object)
            return
        }
        let sharesFiles = state.withLock { $0.sharesExternalDataFiles }
        var values: [(AttributeDescription, AttributeValue)] = []
        values.reserveCapacity(plan.attributes.count)
        for (attribute, rule) in plan.attributes {
            do {
                switch rule {
                case .sourceSlot(let slot, let convert):
                    // Kept as stored: a value in an external data file stays a reference to the file, which the
                    // migration carries over by a hard link, unread (read when the stores share no files).
                    let stored = sInstance.attributeValue(at: slot)
                    var reads = convert
                    if !sharesFiles, case .externalData = stored { reads = true }
                    if reads {
                        let value = try sInstance.resolvedAttributeValue(at: slot, key: attribute.name)
                        values.append((attribute, try ValueCoercion.coerce(value, to: attribute)))
                    } else {
                        values.append((attribute, stored))
                    }
                case .constant(let value):
                    values.append((attribute, value))
                case .expression(let expression):
                    values.append((attribute, try attributeValue(of: expression, for: attribute, source: sInstance, policy: policy, run: run)))
                }
            } catch let error as QuireError where error.code != .migrationCancelled {
                throw failure("the value of '\(attribute.name)' cannot be computed (\(error.message))", key: attribute.name, underlying: error)
            }
        }
        if let valuePolicy = mapping.migrationPolicy {
            var proposed: [String: AttributeValue] = [:]
            for (attribute, value) in values { proposed[attribute.name] = value }
            guard let chosen = try valuePolicy.createDestinationValues(
                forSource: MigrationSourceObject(object: sInstance), proposedValues: proposed, mapping: mapping, manager: self)
            else { return }
            values = []
            for (name, value) in chosen.sorted(by: { $0.key < $1.key }) {
                guard let attribute = entity.storedAttributesByKey[name], !attribute.isTransient else {
                    throw failure("'\(name)' is not a stored attribute of '\(entity.name)'", key: name)
                }
                do {
                    values.append((attribute, try ValueCoercion.coerce(value, to: attribute)))
                } catch let error as QuireError {
                    throw failure(error.message, key: name, underlying: error)
                }
            }
        }
        let object = ManagedObject(entity: entity, insertInto: run.destinationContext)
        for (attribute, value) in values {
            object.setAttributeValue(value.isNull && !attribute.isOptional ? attribute.defaultAttributeValue : value, at: attribute.slot)
        }
        plan.associate(sInstance, object)
    }

    /// The direct reading of a relationship expression (`$source.<key>` through one mapping, or whichever made
    /// the objects), when it is one.
    static func directRelationship(_ expression: MappingExpression, source: EntityDescription?) -> ManagedObjectMigration.DirectRelationship? {
        let key: String?
        var maker: String?
        switch expression {
        case .sourceValue(let name): key = name
        case .destinationInstances(let name, let instances):
            key = MappingExpressionScan.directSourceKey(instances)
            maker = name
        case .destinationInstancesForSourceRelationship(_, let instances), .expression(let instances):
            key = MappingExpressionScan.directSourceKey(instances)
        default: key = nil
        }
        guard let key, let old = source?.relationshipsByName[key], !old.isTransient else { return nil }
        return ManagedObjectMigration.DirectRelationship(source: old, maker: maker)
    }

    /// Loads, for a batch of destination objects, the members of their source objects' to-many relationships
    /// their mapping reads directly: one query per relationship for the batch, instead of one per object.
    private func loadMembers(of batch: ArraySlice<ManagedObject>, for plan: ManagedObjectMigration.Plan, in run: ManagedObjectMigration) throws {
        plan.members = [:]
        let toMany = plan.directRelationships.compactMap { $0?.source }.filter(\.isToMany)
        guard !toMany.isEmpty, let coordinator = run.sourceContext.persistentStoreCoordinator else { return }
        let ids = batch.compactMap { plan.firstSource(of: $0)?.objectID }
        guard !ids.isEmpty else { return }
        for relationship in toMany where plan.members[relationship.name] == nil {
            if let members = run.membersFromInverse(of: relationship) { plan.members[relationship.name] = members }
        }
        let store = run.sourceStore
        do {
            var relationships: [RelationshipDescription] = []
            for relationship in toMany
            where plan.members[relationship.name] == nil && !relationships.contains(where: { $0.name == relationship.name }) {
                relationships.append(relationship)
            }
            guard !relationships.isEmpty else { return }
            let read = try coordinator.storeBatch(ids, in: store, rows: false, members: relationships)
            for (relationship, members) in zip(relationships, read.members) { plan.members[relationship.name] = members }
        } catch let error as QuireError {
            throw QuireError(
                .migrationManagerSourceStore, "Reading the relationships of '\(plan.mapping.name)' from the store failed: \(error.message)",
                context: error.context, underlying: error)
        }
    }

    /// The IDs a relationship of a source object holds, in order: from the object's own row for a to-one or a
    /// loaded to-many, else from the batch's loaded members.
    private func memberIDs(of source: ManagedObject, _ relationship: RelationshipDescription, plan: ManagedObjectMigration.Plan) -> [ObjectID] {
        if relationship.isToMany, !source.hasLoadedRelationship(relationship), let loaded = plan.members[relationship.name] {
            return loaded[source.objectID] ?? []
        }
        switch source.loadedStorage(for: relationship) {
        case .fault: return []
        case .toOne(let id): return id.map { [$0] } ?? []
        case .toMany(let ids): return ids.sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        case .ordered(let ids): return Array(ids)
        }
    }

    /// ``EntityMigrationPolicy/createRelationships(forDestination:in:manager:)``'s default.
    func createDefaultRelationships(forDestination dInstance: ManagedObject, in mapping: EntityMapping, policy: EntityMigrationPolicy) throws {
        let run = currentRun()
        guard let plan = run.plan(named: mapping.name) else { throw unknownMapping(mapping.name) }
        guard !plan.relationships.isEmpty else { return }
        let source = plan.firstSource(of: dInstance)
        for (position, (relationship, expression)) in plan.relationships.enumerated() {
            if let direct = plan.directRelationships[position], let source {
                // `$source.<key>`: the IDs the source object's relationship holds, through the maker's associations.
                let wanted = relationship.resolvedDestination ?? relationship.destinationEntity
                var related: [ManagedObject] = []
                for id in memberIDs(of: source, direct.source, plan: plan) {
                    if let maker = plan.makerPlanIndexes[position] {
                        run.plans[maker].appendDestinations(ofSource: id, to: &related)
                    } else if direct.maker == nil {
                        related += run.destinationsByAnyMapping(ofSource: id).filter { made in wanted.map { made.entity.isKind(of: $0) } ?? true }
                    }
                }
                dInstance.setRelatedObjects(relationship.isToMany ? related : Array(related.prefix(1)), for: relationship)
                continue
            }
            let related: [ManagedObject]
            do {
                related = try destinationObjects(of: expression, for: relationship, source: source, destination: dInstance, policy: policy, run: run)
            } catch let error as QuireError where error.code != .migrationCancelled {
                throw QuireError(
                    .migration,
                    "Making the relationship '\(relationship.name)' of \(dInstance.objectID) ('\(mapping.name)') failed: \(error.message)",
                    context: .init(entity: plan.destination.name, key: relationship.name, object: source?.objectID.uriRepresentation()),
                    underlying: error)
            }
            dInstance.setRelatedObjects(relationship.isToMany ? related : Array(related.prefix(1)), for: relationship)
        }
    }

    // MARK: Evaluating expressions

    private func attributeValue(
        of expression: MappingExpression, for attribute: AttributeDescription, source: ManagedObject, policy: EntityMigrationPolicy,
        run: ManagedObjectMigration
    ) throws -> AttributeValue {
        switch expression {
        case .sourceValue(let key):
            return try ValueCoercion.coerce(source.attributeValue(forKey: key), to: attribute)
        case .constant(let value):
            return try ValueCoercion.coerce(value, to: attribute)
        case .custom(let compute):
            return try ValueCoercion.coerce(try compute(MigrationSourceObject(object: source)), to: attribute)
        case .expression(let query):
            switch PredicateEvaluator.normalized(try query.value(with: source, substitutionVariables: ["source": source])) {
            case .value(let value): return try ValueCoercion.coerce(value, to: attribute)
            case .object, .collection:
                throw QuireError(.predicateEvaluation, "the expression \(query.expressionFormat) gives objects, not a value")
            }
        case .policyFunction(let selector, let arguments):
            let values = try arguments.map { try anyValue(of: $0, source: source, destination: nil) }
            let result = try policy.evaluateFunction(selector, arguments: values, manager: self)
            return try ValueCoercion.attributeValue(from: result, for: attribute)
        case .destinationInstances, .sourceInstances, .destinationInstancesForSourceRelationship:
            throw QuireError(.predicateEvaluation, "the expression gives objects, not a value")
        }
    }

    /// The destination objects an expression gives a relationship of `destination`.
    private func destinationObjects(
        of expression: MappingExpression, for relationship: RelationshipDescription, source: ManagedObject?, destination: ManagedObject,
        policy: EntityMigrationPolicy, run: ManagedObjectMigration
    ) throws -> [ManagedObject] {
        let objects: [ManagedObject]
        switch expression {
        case .constant:
            return []
        case .sourceValue(let key):
            guard let source else { return [] }
            objects = Self.objects(in: source.value(forKey: key))
        case .destinationInstances(let maker, let instances):
            let found = try self.objects(of: instances, source: source, destination: destination, run: run)
            return destinationInstances(forEntityMappingName: maker, sourceInstances: found.filter(run.isSourceObject))
        case .sourceInstances(let maker, let instances):
            let found = try self.objects(of: instances, source: source, destination: destination, run: run)
            objects = sourceInstances(forEntityMappingName: maker, destinationInstances: found.filter { !run.isSourceObject($0) })
        case .expression(let query), .destinationInstancesForSourceRelationship(_, let query):
            // Source objects are mapped below through the mapping of their own entity.
            objects = try self.objects(of: query, source: source, destination: destination, run: run)
        case .policyFunction(let selector, let arguments):
            let values = try arguments.map { try anyValue(of: $0, source: source, destination: destination) }
            objects = Self.objects(in: try policy.evaluateFunction(selector, arguments: values, manager: self))
        case .custom:
            throw QuireError(.predicateEvaluation, "Swift code computes attribute values, not relationships")
        }
        // Source objects stand for what the migration made of them; destination objects are themselves.
        var result: [ManagedObject] = []
        for object in objects {
            if run.isSourceObject(object) {
                let wanted = relationship.resolvedDestination ?? relationship.destinationEntity
                result += run.destinationsByAnyMapping(of: object).filter { made in wanted.map { made.entity.isKind(of: $0) } ?? true }
            } else if object.managedObjectContext === run.destinationContext {
                result.append(object)
            } else {
                throw QuireError(.predicateEvaluation, "the expression gives \(object.objectID), which belongs to neither store of the migration")
            }
        }
        return result
    }

    /// The objects an expression reaches from the source object (`$source`, `SELF`) and the destination object
    /// (`$destination`).
    private func objects(of query: QueryExpression, source: ManagedObject?, destination: ManagedObject?, run: ManagedObjectMigration) throws -> [ManagedObject] {
        var variables: [String: Any] = [:]
        if let source { variables["source"] = source }
        if let destination { variables["destination"] = destination }
        let value: PredicateValue
        if let source {
            value = try query.value(with: source, substitutionVariables: variables)
        } else if let destination {
            value = try query.value(with: destination, substitutionVariables: variables)
        } else {
            return []
        }
        return try objects(in: value, run: run, query: query)
    }

    private func objects(in value: PredicateValue, run: ManagedObjectMigration, query: QueryExpression) throws -> [ManagedObject] {
        switch PredicateEvaluator.normalized(value) {
        case .value(.null):
            return []
        case .value(let other):
            throw QuireError(.predicateEvaluation, "the expression \(query.expressionFormat) gives the value \(other), not objects")
        case .object(let object):
            if let managed = object as? ManagedObject { return [managed] }
            guard let id = object.predicateObjectID else {
                throw QuireError(.predicateEvaluation, "the expression \(query.expressionFormat) gives something other than objects")
            }
            return [id.isStored(in: run.sourceStore) ? run.sourceContext.object(with: id) : run.destinationContext.object(with: id)]
        case .collection(let elements):
            return try elements.flatMap { try objects(in: $0, run: run, query: query) }
        }
    }

    /// The value of a function argument, as ``EntityMigrationPolicy/evaluateFunction(_:arguments:manager:)`` gets it.
    private func anyValue(of query: QueryExpression, source: ManagedObject?, destination: ManagedObject?) throws -> Any? {
        var variables: [String: Any] = [:]
        if let source { variables["source"] = source }
        if let destination { variables["destination"] = destination }
        guard let base: any PredicateEvaluable = source ?? destination else { return nil }
        func convert(_ value: PredicateValue) -> Any? {
            switch PredicateEvaluator.normalized(value) {
            case .value(let value): return value.anyValue
            case .object(let object): return object as? ManagedObject ?? object.predicateObjectID
            case .collection(let elements): return elements.map(convert)
            }
        }
        return convert(try query.value(with: base, substitutionVariables: variables))
    }

    /// The managed objects in a value `value(forKey:)` or a policy gave: one object, a set, an ordered set or an
    /// array of them.
    static func objects(in value: Any?) -> [ManagedObject] {
        switch value {
        case let object as ManagedObject: return [object]
        case let ordered as OrderedSet<ManagedObject>: return Array(ordered)
        case let set as Set<ManagedObject>: return set.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        case let array as [ManagedObject]: return array
        case let array as [Any?]: return array.flatMap(objects(in:))
        default: return []
        }
    }

    func unknownMapping(_ name: String) -> QuireError {
        QuireError(.migration, "The migration's mapping model has no entity mapping named '\(name)'.")
    }
}

extension MigrationSourceObject {
    /// The source object a managed object of the source context stands for.
    init(object: ManagedObject) {
        var values: [String: AttributeValue] = [:]
        var toOne: [String: ObjectID] = [:]
        for attribute in object.entity.allAttributes where !attribute.isTransient {
            values[attribute.name] = (try? object.resolvedAttributeValue(at: attribute.slot, key: attribute.name)) ?? .null
        }
        for relationship in object.entity.allRelationships where !relationship.isToMany && !relationship.isTransient {
            if let related = object.value(forKey: relationship.name) as? ManagedObject { toOne[relationship.name] = related.objectID }
        }
        self.init(objectID: object.objectID, values: values, toOneObjectIDs: toOne)
    }
}

/// What a mapping expression reads, found without evaluating it.
enum MappingExpressionScan {
    /// The key of `$source.<key>` (or a plain `<key>`, which reads `SELF`, the source object) with one component; nil
    /// for anything else.
    static func directSourceKey(_ expression: QueryExpression) -> String? {
        switch expression {
        case .member(.variable("source"), let keyPath), .keyPath(let keyPath):
            return keyPath.contains(".") || keyPath.hasPrefix("@") ? nil : keyPath
        default:
            return nil
        }
    }

    /// Whether an expression reads only one-component keys of the source object, so that a row of it is enough.
    static func readsOnlySourceKeys(_ expression: QueryExpression) -> Bool {
        switch expression {
        case .constant, .objectID:
            return true
        case .evaluatedObject:
            return false
        case .keyPath(let path), .member(.variable("source"), let path):
            return !path.contains(".") && !path.hasPrefix("@")
        case .member, .variable, .aggregate, .subquery:
            return false
        case .array(let elements):
            return elements.allSatisfy(readsOnlySourceKeys)
        case .cast(let operand, _):
            return readsOnlySourceKeys(operand)
        case .function(_, let arguments):
            return arguments.allSatisfy(readsOnlySourceKeys)
        }
    }

    /// A variable other than `$source` and `$destination` the expression reads, if any (variables a subquery binds
    /// are its own).
    static func unknownVariable(in expression: QueryExpression) -> String? {
        switch expression {
        case .variable(let name):
            return name == "source" || name == "destination" ? nil : name
        case .member(let base, _), .cast(let base, _), .aggregate(_, let base, _):
            return unknownVariable(in: base)
        case .subquery(let collection, _, _):
            return unknownVariable(in: collection)
        case .array(let elements), .function(_, let elements):
            return elements.lazy.compactMap(unknownVariable).first
        case .constant, .objectID, .evaluatedObject, .keyPath:
            return nil
        }
    }
}
