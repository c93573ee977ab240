import QuireCore
import QuireStores
import Foundation

extension ManagedObjectContext {
    /// Deletes objects in their stores (`execute(_:)` with an `NSBatchDeleteRequest`); see ``BatchDeleteRequest``.
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` for an unknown entity or key, ``QuireError/Code/invalidArgument``
    ///   for IDs of several entities, ``QuireError/Code/validationRelationshipDeniedDelete`` when a deny relationship
    ///   still holds objects that are not deleted too, ``QuireError/Code/validationMissingMandatoryProperty`` when a
    ///   surviving object's required to-one would be nullified; nothing is deleted then.
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchDeleteResult {
        try performAndWait {
            let coordinator = coordinatorOrFail()
            let entity: EntityDescription
            let target: StoreBatchRequest.Target
            if let ids = request.objectIDs {
                guard let first = ids.first else { return BatchResult(resultType: request.resultType, count: 0, objectIDs: []) }
                guard ids.allSatisfy({ $0.entity === first.entity }) else {
                    throw QuireError(
                        .invalidArgument, "A batch delete request's object IDs must all be of one entity (the first is \(first.entity.name)).",
                        context: .init(entity: first.entity.name))
                }
                entity = first.entity
                target = .objectIDs(ids)
            } else {
                entity = try batchEntity(named: request.entityName, coordinator)
                target = try batchTarget(
                    StoreFetch(
                        entity: entity, predicate: request.predicate, sortKeys: request.sortDescriptors,
                        limit: max(0, request.fetchLimit), offset: max(0, request.fetchOffset),
                        includesSubentities: request.includesSubentities, kind: .objectIDs),
                    stores: request.affectedStores, coordinator)
            }
            return try runBatch(
                entity, target: target, operation: .delete, resultType: request.resultType, stores: request.affectedStores,
                coordinator)
        }
    }

    /// Sets attributes of objects in their stores (`execute(_:)` with an `NSBatchUpdateRequest`); see
    /// ``BatchUpdateRequest``.
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` for an unknown entity or key; ``QuireError/Code/invalidArgument``
    ///   for a property that is not a persistent attribute or a value that does not fit it; nothing is written then.
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchUpdateResult {
        try performAndWait {
            let coordinator = coordinatorOrFail()
            let entity = try batchEntity(named: request.entityName, coordinator)
            var values: [(attribute: AttributeDescription, value: StoreBatchRequest.Value)] = []
            for (name, raw) in request.propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
                guard let attribute = entity.attributesByName[name], !attribute.isTransient else {
                    throw QuireError(
                        .invalidArgument,
                        "A batch update of '\(entity.name)' can set only its persistent attributes; '\(name)' is not one.",
                        context: .init(entity: entity.name, key: name))
                }
                values.append((attribute, try batchValue(raw, for: attribute, in: entity)))
            }
            let target = try batchTarget(
                StoreFetch(
                    entity: entity, predicate: request.predicate, sortKeys: [], limit: 0, offset: 0,
                    includesSubentities: request.includesSubentities, kind: .objectIDs),
                stores: request.affectedStores, coordinator)
            guard !values.isEmpty else { return BatchResult(resultType: request.resultType, count: 0, objectIDs: []) }
            return try runBatch(
                entity, target: target, operation: .update(values), resultType: request.resultType,
                stores: request.affectedStores, coordinator)
        }
    }

    /// Inserts objects into a store (`execute(_:)` with an `NSBatchInsertRequest`); see ``BatchInsertRequest``.
    /// Rows that meet a uniqueness constraint's values are resolved by the context's ``mergePolicy``.
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` for an unknown or abstract entity;
    ///   ``QuireError/Code/invalidArgument`` for a key that is not a persistent attribute or a value that does not
    ///   fit it; ``QuireError/Code/managedObjectConstraintMerge`` for a row that breaks a uniqueness constraint
    ///   under ``MergePolicy/error``; nothing is inserted then.
    @discardableResult
    public func execute(_ request: BatchInsertRequest) throws -> BatchInsertResult {
        try performAndWait {
            let coordinator = coordinatorOrFail()
            let entity = try batchEntity(named: request.entityName, coordinator)
            var rows: [[AttributeValue]] = []
            func add(_ dictionary: [String: Any]) throws {
                var values = entity.defaultAttributeValues
                for (name, raw) in dictionary {
                    guard let attribute = entity.attributesByName[name], !attribute.isTransient else {
                        throw QuireError(
                            .invalidArgument, "A batch insert into '\(entity.name)' can set only its persistent attributes; '\(name)' is not one.",
                            context: .init(entity: entity.name, key: name))
                    }
                    values[attribute.slot] = raw is NSNull ? .null : try ValueCoercion.attributeValue(from: raw, for: attribute)
                }
                rows.append(values)
            }
            if let objects = request.objectsToInsert { for object in objects { try add(object) } }
            if let handler = request.dictionaryHandler {
                while true {
                    var dictionary: [String: Any] = [:]
                    if handler(&dictionary) { break }
                    try add(dictionary)
                }
            }
            if let handler = request.managedObjectHandler {
                guard !entity.isAbstract else {
                    throw QuireError(
                        .invalidFetchRequest, "A batch insert cannot make objects of the abstract entity '\(entity.name)'.",
                        context: .init(entity: entity.name))
                }
                while true {
                    let object = ManagedObject(entity: entity, insertInto: nil)
                    if handler(object) { break }
                    rows.append(entity.allAttributes.map { $0.isTransient ? .null : object.attributeValue(at: $0.slot) })
                }
            }
            let ids = try coordinator.executeBatchInsert(
                entity: entity, attributes: rows, conflicts: batchInsertConflictRule, stores: request.affectedStores,
                transactionAuthor: transactionAuthor, contextName: name)
            return BatchResult(resultType: request.resultType, count: ids.count, objectIDs: ids)
        }
    }

    /// Brings changes made outside any context into contexts (`mergeChanges(fromRemoteContextSave:into:)`):
    /// the IDs a batch request returned, or those another process saved. Deleted objects leave the contexts,
    /// updated ones are refreshed (keeping their unsaved changes), as in ``mergeChanges(fromContextDidSave:)-(ContextDidSave)``.
    ///
    /// - Parameters:
    ///   - changes: ``insertedObjectsKey``, ``updatedObjectsKey`` and ``deletedObjectsKey`` (or the did-save keys,
    ///     ``insertedObjectIDsKey`` …) to arrays or sets of ``ObjectID``s or of their URIs.
    ///   - contexts: The contexts to update; each may use another coordinator on the same store files.
    public static func mergeChanges(fromRemoteContextSave changes: [AnyHashable: Any], into contexts: [ManagedObjectContext]) {
        for context in contexts {
            func ids(_ keys: [String]) -> Set<ObjectID> {
                var result = Set<ObjectID>()
                for key in keys {
                    let values: [Any]
                    switch changes[key] {
                    case let array as [Any]: values = array
                    case let set as Set<ObjectID>: values = Array(set)
                    case let set as Set<URL>: values = Array(set)
                    default: continue
                    }
                    for value in values {
                        if let id = value as? ObjectID {
                            result.insert(id)
                        } else if let uri = value as? URL, let id = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri) {
                            result.insert(id)
                        }
                    }
                }
                return result
            }
            let changes = ContextDidSave(
                insertedObjectIDs: ids([insertedObjectsKey, insertedObjectIDsKey]),
                updatedObjectIDs: ids([updatedObjectsKey, updatedObjectIDsKey]),
                deletedObjectIDs: ids([deletedObjectsKey, deletedObjectIDsKey]))
            // The changes were made outside the contexts (a batch request, another process): no row this
            // coordinator cached for them is current.
            context.persistentStoreCoordinator?.forgetRowsChangedElsewhere(changes.updatedObjectIDs.union(changes.deletedObjectIDs))
            context.mergeChanges(fromContextDidSave: changes)
        }
    }

    /// What a batch insert does with rows that meet a uniqueness constraint's values: what the merge policy's kind
    /// says. The rows never become objects, so no `resolve` method runs: a subclass of a standard policy acts as the
    /// policy it was made with (its ``MergePolicy/mergeType``), as on the Mac.
    private var batchInsertConflictRule: BatchInsertConflictRule {
        switch mergePolicy.mergeType {
        case .mergeByPropertyObjectTrumpMergePolicyType: .objectTrump
        case .mergeByPropertyStoreTrumpMergePolicyType: .storeTrump
        case .overwriteMergePolicyType: .overwrite
        case .rollbackMergePolicyType: .rollback
        case .errorMergePolicyType: .fail
        }
    }

    /// Runs a batch delete or update in the stores, recorded in history with this context's author and name.
    private func runBatch(
        _ entity: EntityDescription, target: StoreBatchRequest.Target, operation: StoreBatchRequest.Operation,
        resultType: BatchResultType, stores: [PersistentStore]?, _ coordinator: PersistentStoreCoordinator
    ) throws -> BatchResult {
        var batch = StoreBatchRequest(entity: entity, target: target, operation: operation, wantsObjectIDs: resultType == .objectIDs)
        batch.transactionAuthor = transactionAuthor
        batch.contextName = name
        let result = try coordinator.executeBatch(batch, stores: stores)
        return BatchResult(resultType: resultType, count: result.count, objectIDs: result.objectIDs)
    }

    /// The model's entity of a batch request.
    private func batchEntity(named name: String, _ coordinator: PersistentStoreCoordinator) throws -> EntityDescription {
        guard let entity = coordinator.managedObjectModel.entitiesByName[name] else {
            throw QuireError(
                .invalidFetchRequest, "The batch request names entity '\(name)', which the model does not have.",
                context: .init(entity: name))
        }
        return entity
    }

    /// The records of a batch request made from a fetch: the fetch itself when every store evaluates its
    /// predicate, otherwise the IDs of the objects the context finds matching (the stores' contents only).
    private func batchTarget(
        _ fetch: StoreFetch, stores: [PersistentStore]?, _ coordinator: PersistentStoreCoordinator
    ) throws -> StoreBatchRequest.Target {
        try fetch.predicate?.validateKeyPaths(from: fetch.entity)
        for key in fetch.sortKeys where !key.comparesObjects { try KeyPathResolver.validate(key.keyPath, from: fetch.entity) }
        // Sort keys with Swift comparators pick the objects here, in memory.
        if !fetch.sortKeys.contains(where: \.sortsInMemory) {
            guard let predicate = fetch.predicate, !coordinator.storesEvaluate(predicate, for: fetch, in: stores) else {
                return .fetch(fetch)
            }
        }
        let request = FetchRequest<ObjectID>(entityName: fetch.entity.name)
        request.predicate = fetch.predicate
        request.sortDescriptors = fetch.sortKeys
        request.fetchLimit = fetch.limit
        request.fetchOffset = fetch.offset
        request.includesSubentities = fetch.includesSubentities
        request.includesPendingChanges = false
        request.affectedStores = stores
        return .objectIDs(try self.fetch(request))
    }

    /// The new value of an attribute in a batch update: a constant converted to its type, another attribute
    /// of the same type, or an expression of the object's own attributes.
    private func batchValue(_ raw: Any, for attribute: AttributeDescription, in entity: EntityDescription) throws -> StoreBatchRequest.Value {
        var raw = raw
        if let expression = raw as? QueryExpression {
            switch expression {
            case .constant(let constant): raw = constant
            case .keyPath(let keyPath):
                guard let source = entity.attributesByName[keyPath], !source.isTransient, source.attributeType == attribute.attributeType else {
                    throw QuireError(
                        .invalidArgument,
                        "A batch update can set '\(attribute.name)' from another persistent attribute of the same type; '\(keyPath)' is not one.",
                        context: .init(entity: entity.name, key: attribute.name))
                }
                return .attribute(source)
            default:
                if let part = StoreBatchRequest.unsupportedPart(of: expression, in: entity) {
                    throw QuireError(
                        .invalidArgument,
                        "A batch update sets '\(attribute.name)' to a constant or an expression of the object's own persistent "
                            + "attributes; '\(part)' in '\(expression)' is not one.",
                        context: .init(entity: entity.name, key: attribute.name))
                }
                return .expression(expression)
            }
        }
        if raw is NSNull { return .constant(.null) }
        if let value = raw as? AttributeValue { return .constant(try ValueCoercion.coerce(value, to: attribute)) }
        return .constant(try ValueCoercion.attributeValue(from: raw, for: attribute))
    }
}
