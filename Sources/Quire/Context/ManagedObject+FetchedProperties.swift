import QuireCore
import QuireStores
import Foundation

extension ManagedObject {
    /// The objects a fetched property of the object's entity finds (`value(forKey:)` of an
    /// `NSFetchedPropertyDescription`): the destination entity's objects that match its predicate, in which
    /// `$FETCH_SOURCE` is this object and `$FETCHED_PROPERTY` the property's description (`$FETCHED_PROPERTY.userInfo.key`
    /// reads its user info).
    ///
    /// ```swift
    /// // Book.feedbacks: Feedback where bookID == $FETCH_SOURCE.uniqueID
    /// let feedbacks = try book.fetchedValue(forKey: "feedbacks")
    /// ```
    ///
    /// The fetch runs the first time the value is asked for, and the result is kept, as in Core Data: objects saved
    /// since do not change it until ``ManagedObjectContext/refresh(_:mergeChanges:)`` refreshes this object.
    /// ``value(forKey:)`` gives the same array (or nil when the fetch fails).
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` when the predicate does not parse or names a variable it
    ///   is not given; a store error from the fetch.
    public func fetchedValue(forKey key: String) throws -> [ManagedObject] {
        guard let property = entity.fetchedProperty(named: key) else {
            throw QuireError(
                .unknownKey, "Entity '\(entity.name)' has no fetched property named '\(key)'.",
                context: .init(entity: entity.name, key: key))
        }
        guard let context = managedObjectContext else {
            throw QuireError(
                .coreData, "The fetched property '\(entity.name).\(key)' cannot be evaluated: the object belongs to no context.",
                context: .init(entity: entity.name, key: key))
        }
        if let ids = context.fetchedPropertyResults[objectID]?[key] { return ids.map { context.object(with: $0) } }
        let objects = try context.evaluate(property, for: self)
        context.fetchedPropertyResults[objectID, default: [:]][key] = objects.map(\.objectID)
        return objects
    }
}

extension ManagedObjectContext {
    /// Runs a fetched property's request for a source object.
    func evaluate(_ property: FetchedPropertyDescription, for source: ManagedObject) throws -> [ManagedObject] {
        let request = FetchRequest<ManagedObject>(entityName: property.destinationEntityName)
        request.sortDescriptors = (property.sortKeys ?? []).map { sort in
            SortKey(sort.keyPath, ascending: sort.ascending, comparator: sort.selector.flatMap(SortKey.Comparator.init(selectorName:)) ?? .compare)
        }
        if let format = property.predicateFormat {
            let parsed: QueryPredicate
            do {
                parsed = try QueryPredicate(format: format)
            } catch let error as QuireError {
                throw QuireError(
                    .predicateEvaluation,
                    "The predicate \"\(format)\" of the fetched property '\(source.entity.name).\(property.name)' does not parse: \(error.message)",
                    context: .init(entity: source.entity.name, key: property.name), underlying: error)
            }
            var resolver = FetchedPropertyVariables(source: source, property: property)
            let resolved = resolver.apply(to: parsed)
            request.predicate = try resolved.withSubstitutionVariables(resolver.values)
        }
        return try fetch(request)
    }
}

/// Replaces `$FETCH_SOURCE`, `$FETCH_SOURCE.keyPath` and `$FETCHED_PROPERTY.keyPath` with variables whose values
/// are read from the source object and the property's description.
private struct FetchedPropertyVariables {
    let source: ManagedObject
    let property: FetchedPropertyDescription
    var values: [String: Any] = [:]

    init(source: ManagedObject, property: FetchedPropertyDescription) {
        self.source = source
        self.property = property
        values["FETCH_SOURCE"] = source
    }

    mutating func apply(to predicate: QueryPredicate) -> QueryPredicate {
        switch predicate {
        case .true, .false: return predicate
        case .comparison(var comparison):
            comparison.left = apply(to: comparison.left)
            comparison.right = apply(to: comparison.right)
            return .comparison(comparison)
        case .and(let operands): return .and(operands.map { apply(to: $0) })
        case .or(let operands): return .or(operands.map { apply(to: $0) })
        case .not(let operand): return .not(apply(to: operand))
        }
    }

    mutating func apply(to expression: QueryExpression) -> QueryExpression {
        switch expression {
        case .member(.variable("FETCH_SOURCE"), let keyPath):
            return bind(source.value(forKeyPath: keyPath))
        case .member(.variable("FETCHED_PROPERTY"), let keyPath):
            let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
            switch parts.first {
            case "userInfo": return bind(parts.count == 2 ? property.userInfo[parts[1]] : property.userInfo)
            case "name": return bind(property.name)
            default: return bind(nil)
            }
        case .member(let base, let keyPath): return .member(apply(to: base), keyPath: keyPath)
        case .aggregate(let aggregate, let collection, let keyPath): return .aggregate(aggregate, apply(to: collection), keyPath: keyPath)
        case .subquery(let collection, let variable, let predicate):
            return .subquery(collection: apply(to: collection), variable: variable, predicate: apply(to: predicate))
        case .array(let elements): return .array(elements.map { apply(to: $0) })
        case .cast(let value, let type): return .cast(apply(to: value), type: type)
        case .function(let function, let arguments): return .function(function, arguments.map { apply(to: $0) })
        case .constant, .objectID, .evaluatedObject, .keyPath, .variable: return expression
        }
    }

    /// A fresh variable bound to a value.
    private mutating func bind(_ value: Any?) -> QueryExpression {
        let name = "QUIRE_FETCHED_PROPERTY_VALUE_\(values.count)"
        values[name] = value ?? NSNull()
        return .variable(name)
    }
}
