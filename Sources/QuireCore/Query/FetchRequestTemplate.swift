import QuireSupport
import Foundation

/// A fetch request stored in a model under a name (Core Data's fetch request templates), as a `Sendable`
/// value that the model's canonical serialized form includes.
///
/// Store templates with ``ManagedObjectModel/setFetchRequestTemplate(_:forName:)-(FetchRequestTemplate?,_)`` while the model is
/// editable; read them back with ``ManagedObjectModel/fetchRequestTemplate(forName:)`` or, with
/// `$VARIABLES` substituted, ``ManagedObjectModel/fetchRequestFromTemplate(withName:substitutionVariables:)``.
///
/// ```swift
/// let request = FetchRequest<ManagedObject>(entityName: "Publication")
/// request.predicate = try QueryPredicate(format: "(mainAuthor.firstName like[cd] $FIRST_NAME) AND "
///     + "(mainAuthor.lastName like[cd] $LAST_NAME) AND (publicationDate > $DATE)")
/// model.setFetchRequestTemplate(request, forName: "publicationsForAuthorSinceDate")
/// ```
public struct FetchRequestTemplate: Hashable, Sendable {
    /// The name of the entity to fetch.
    public var entityName: String
    /// The predicate, possibly with `$VARIABLES`.
    public var predicate: QueryPredicate?
    /// The sort order.
    public var sortDescriptors: [SortKey] = []
    /// The most objects to return; 0 means no limit.
    public var fetchLimit = 0
    /// How many matching objects to skip.
    public var fetchOffset = 0
    /// How many objects a batched fetch loads at a time.
    public var fetchBatchSize = 0
    /// What the fetch returns.
    public var resultType: FetchResultType = .managedObject
    /// Whether unsaved changes count.
    public var includesPendingChanges = true
    /// Whether objects come back as faults.
    public var returnsObjectsAsFaults = true
    /// Whether objects of sub-entities match.
    public var includesSubentities = true
    /// Whether dictionary results leave out duplicates.
    public var returnsDistinctResults = false
    /// The properties of dictionary results.
    public var propertiesToFetch: [FetchedProperty]?
    /// The key paths dictionary results are grouped by.
    public var propertiesToGroupBy: [String]?
    /// The predicate on grouped dictionaries.
    public var havingPredicate: QueryPredicate?
    /// The relationship key paths to prefetch.
    public var relationshipKeyPathsForPrefetching: [String] = []

    /// Creates a template for the objects of an entity.
    public init(entityName: String) {
        self.entityName = entityName
    }

    /// The template of a request (its stores are not kept: they belong to one coordinator).
    public init<Result>(_ request: FetchRequest<Result>) {
        entityName = request.entityName
        predicate = request.predicate
        sortDescriptors = request.sortDescriptors
        fetchLimit = request.fetchLimit
        fetchOffset = request.fetchOffset
        fetchBatchSize = request.fetchBatchSize
        resultType = request.resultType
        includesPendingChanges = request.includesPendingChanges
        returnsObjectsAsFaults = request.returnsObjectsAsFaults
        includesSubentities = request.includesSubentities
        returnsDistinctResults = request.returnsDistinctResults
        propertiesToFetch = request.propertiesToFetch
        propertiesToGroupBy = request.propertiesToGroupBy
        havingPredicate = request.havingPredicate
        relationshipKeyPathsForPrefetching = request.relationshipKeyPathsForPrefetching
    }

    /// A new, mutable request with the template's parameters.
    ///
    /// - Parameter resultType: The element type of the results; the request's result type stays the
    ///   template's.
    /// - Returns: The request.
    public func makeRequest<Result>(of resultType: Result.Type) -> FetchRequest<Result> {
        let request = FetchRequest<Result>(entityName: entityName)
        request.predicate = predicate
        request.sortDescriptors = sortDescriptors
        request.fetchLimit = fetchLimit
        request.fetchOffset = fetchOffset
        request.fetchBatchSize = fetchBatchSize
        request.resultType = self.resultType
        request.includesPendingChanges = includesPendingChanges
        request.returnsObjectsAsFaults = returnsObjectsAsFaults
        request.includesSubentities = includesSubentities
        request.returnsDistinctResults = returnsDistinctResults
        request.propertiesToFetch = propertiesToFetch
        request.propertiesToGroupBy = propertiesToGroupBy
        request.havingPredicate = havingPredicate
        request.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        return request
    }
}

// MARK: - Canonical serialized form

extension FetchRequestTemplate: Codable {
    private enum CodingKeys: String, CodingKey {
        case entity, predicate, sort, limit, offset, batchSize, resultType, includesPendingChanges
        case returnsObjectsAsFaults, includesSubentities, distinct, propertiesToFetch, groupBy, having, prefetch
    }

    /// Decodes a template; predicates are read back from their format strings.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entityName = try container.decode(String.self, forKey: .entity)
        predicate = try Self.decodePredicate(container, .predicate)
        sortDescriptors = try container.decodeIfPresent([SortKey].self, forKey: .sort) ?? []
        fetchLimit = try container.decodeIfPresent(Int.self, forKey: .limit) ?? 0
        fetchOffset = try container.decodeIfPresent(Int.self, forKey: .offset) ?? 0
        fetchBatchSize = try container.decodeIfPresent(Int.self, forKey: .batchSize) ?? 0
        resultType = try container.decodeIfPresent(FetchResultType.self, forKey: .resultType) ?? .managedObject
        includesPendingChanges = try container.decodeIfPresent(Bool.self, forKey: .includesPendingChanges) ?? true
        returnsObjectsAsFaults = try container.decodeIfPresent(Bool.self, forKey: .returnsObjectsAsFaults) ?? true
        includesSubentities = try container.decodeIfPresent(Bool.self, forKey: .includesSubentities) ?? true
        returnsDistinctResults = try container.decodeIfPresent(Bool.self, forKey: .distinct) ?? false
        propertiesToFetch = try container.decodeIfPresent([FetchedProperty].self, forKey: .propertiesToFetch)
        propertiesToGroupBy = try container.decodeIfPresent([String].self, forKey: .groupBy)
        havingPredicate = try Self.decodePredicate(container, .having)
        relationshipKeyPathsForPrefetching = try container.decodeIfPresent([String].self, forKey: .prefetch) ?? []
    }

    /// Encodes a template; predicates as their canonical format strings, default values left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entityName, forKey: .entity)
        try container.encodeIfPresent(predicate?.predicateFormat, forKey: .predicate)
        if !sortDescriptors.isEmpty { try container.encode(sortDescriptors, forKey: .sort) }
        if fetchLimit != 0 { try container.encode(fetchLimit, forKey: .limit) }
        if fetchOffset != 0 { try container.encode(fetchOffset, forKey: .offset) }
        if fetchBatchSize != 0 { try container.encode(fetchBatchSize, forKey: .batchSize) }
        if resultType != .managedObject { try container.encode(resultType, forKey: .resultType) }
        if !includesPendingChanges { try container.encode(false, forKey: .includesPendingChanges) }
        if !returnsObjectsAsFaults { try container.encode(false, forKey: .returnsObjectsAsFaults) }
        if !includesSubentities { try container.encode(false, forKey: .includesSubentities) }
        if returnsDistinctResults { try container.encode(true, forKey: .distinct) }
        try container.encodeIfPresent(propertiesToFetch, forKey: .propertiesToFetch)
        try container.encodeIfPresent(propertiesToGroupBy, forKey: .groupBy)
        try container.encodeIfPresent(havingPredicate?.predicateFormat, forKey: .having)
        if !relationshipKeyPathsForPrefetching.isEmpty {
            try container.encode(relationshipKeyPathsForPrefetching, forKey: .prefetch)
        }
    }

    private static func decodePredicate(
        _ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys
    ) throws -> QueryPredicate? {
        guard let format = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        do {
            return try QueryPredicate(format: format)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "the predicate \"\(format)\" does not parse: \(error)")
        }
    }
}

extension FetchResultType: Codable {
    private var name: String {
        switch self {
        case .managedObject: return "managedObject"
        case .managedObjectID: return "managedObjectID"
        case .dictionary: return "dictionary"
        case .count: return "count"
        }
    }

    /// Decodes `managedObject`, `managedObjectID`, `dictionary` or `count`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        let all: [FetchResultType] = [.managedObject, .managedObjectID, .dictionary, .count]
        guard let type = all.first(where: { $0.name == name }) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown result type '\(name)'")
        }
        self = type
    }

    /// Encodes the type's name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

extension SortKey: Codable {
    private enum CodingKeys: String, CodingKey { case keyPath, ascending, selector }

    /// Decodes a key path, a direction and a selector name (`compare:` when absent).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let selector = try container.decodeIfPresent(String.self, forKey: .selector) ?? Comparator.compare.selectorName
        guard let comparator = Comparator(selectorName: selector) else {
            throw DecodingError.dataCorruptedError(
                forKey: .selector, in: container, debugDescription: "unknown comparator '\(selector)'")
        }
        self.init(
            try container.decode(String.self, forKey: .keyPath),
            ascending: try container.decodeIfPresent(Bool.self, forKey: .ascending) ?? true, comparator: comparator)
    }

    /// Encodes the key path, the direction and the selector name.
    ///
    /// - Throws: `EncodingError.invalidValue` for a key with a ``customComparator``, which is code.
    public func encode(to encoder: any Encoder) throws {
        if customComparator != nil {
            throw EncodingError.invalidValue(
                self, .init(codingPath: encoder.codingPath, debugDescription: "A sort key with a Swift comparator cannot be encoded."))
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(keyPath, forKey: .keyPath)
        try container.encode(ascending, forKey: .ascending)
        try container.encode(comparator.selectorName, forKey: .selector)
    }
}

extension FetchedProperty: Codable {
    private enum CodingKeys: String, CodingKey { case keyPath, name, function, resultType, expression }

    /// Decodes a key path, or a name with a key path, a function of one or an expression (in format syntax)
    /// and a result type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let format = try container.decodeIfPresent(String.self, forKey: .expression) {
            let name = try container.decode(String.self, forKey: .name)
            let resultType = try container.decode(AttributeType.self, forKey: .resultType)
            do {
                self = .expression(try ExpressionDescription(name: name, format: format, resultType: resultType))
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: .expression, in: container, debugDescription: "The expression '\(format)' does not parse: \(error)")
            }
            return
        }
        let keyPath = try container.decode(String.self, forKey: .keyPath)
        guard let name = try container.decodeIfPresent(String.self, forKey: .name) else {
            self = .keyPath(keyPath)
            return
        }
        let resultType = try container.decode(AttributeType.self, forKey: .resultType)
        if let function = try container.decodeIfPresent(ExpressionDescription.Function.self, forKey: .function) {
            self = .expression(ExpressionDescription(name: name, function: function, of: keyPath, resultType: resultType))
        } else {
            self = .expression(ExpressionDescription(name: name, expression: .keyPath(keyPath), resultType: resultType))
        }
    }

    /// Encodes a key path, or an expression description's name, key path, function and result type.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .keyPath(let keyPath):
            try container.encode(keyPath, forKey: .keyPath)
        case .expression(let description):
            try container.encode(description.name, forKey: .name)
            try container.encode(description.resultType, forKey: .resultType)
            switch description.expression {
            case .keyPath(let keyPath):
                try container.encode(keyPath, forKey: .keyPath)
            case .function(let function, let keyPath):
                try container.encode(keyPath, forKey: .keyPath)
                try container.encode(function, forKey: .function)
            case .expression(let expression):
                try container.encode(expression.expressionFormat, forKey: .expression)
            }
        }
    }
}
