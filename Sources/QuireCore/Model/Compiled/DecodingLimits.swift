import QuireSupport
/// Bounds on what the decoder accepts, so hostile input fails fast with
/// ``CompiledModelError/limitExceeded(what:limit:)`` instead of exhausting memory, time or stack.
///
/// The defaults are far above what real models need (the largest corpus model has about a thousand archived
/// objects and nests four levels deep) and far below what would hurt a process.
package struct DecodingLimits: Sendable, Hashable {
    /// The most bytes raw DEFLATE may inflate to (default 64 MiB).
    package var maximumInflatedSize: Int
    /// The largest input file or property list, in bytes (default 64 MiB).
    var maximumInputSize: Int
    /// The most objects a binary property list may declare (default 2,000,000).
    var maximumObjectCount: Int
    /// The most elements of one array, set or dictionary (default 1,000,000).
    var maximumCollectionCount: Int
    /// The deepest nesting of property-list containers and of archived collections, predicates and
    /// expressions (default 128; keyed archives of models nest about 4 deep).
    package var maximumDepth: Int
    /// The most values one decoding pass produces (default 4,000,000): property-list objects, resolved
    /// collection elements, converted values and predicate parts, each reference to a shared object counting
    /// the whole object again (see ``DecodingBudget``). This bounds the work of archives that share objects many
    /// times over; a real model cache needs a few tens of thousands.
    var maximumResolvedValues: Int
    /// The most bytes of strings and data one pass produces, counted as ``maximumResolvedValues`` counts values
    /// (default 64 MiB; a real model cache, a little more than its own size).
    var maximumExpandedSize: Int
    /// The most properties of all entities together, each entity's own and inherited ones as its
    /// `NSProperties` lists them (default 100,000; Apple Notes' model has 607, Wire's 422).
    var maximumTotalProperties: Int
    /// The longest one decoding pass may run (default 5 seconds; real model caches take milliseconds).
    var maximumDecodingTime: Duration
    /// The longest text of one predicate or expression, in bytes (default 1 MiB; real ones are a few dozen).
    var maximumPredicateLength: Int
    /// The most entities of a model (default 10,000).
    package var maximumEntities: Int
    /// The most properties of one entity (default 10,000).
    package var maximumPropertiesPerEntity: Int

    /// Creates limits; every bound has a default.
    package init(
        maximumInflatedSize: Int = 64 * 1024 * 1024,
        maximumInputSize: Int = 64 * 1024 * 1024,
        maximumObjectCount: Int = 2_000_000,
        maximumCollectionCount: Int = 1_000_000,
        maximumDepth: Int = 128,
        maximumResolvedValues: Int = 4_000_000,
        maximumEntities: Int = 10_000,
        maximumPropertiesPerEntity: Int = 10_000,
        maximumExpandedSize: Int = 64 * 1024 * 1024,
        maximumTotalProperties: Int = 100_000,
        maximumDecodingTime: Duration = .seconds(5),
        maximumPredicateLength: Int = 1024 * 1024
    ) {
        self.maximumInflatedSize = maximumInflatedSize
        self.maximumInputSize = maximumInputSize
        self.maximumObjectCount = maximumObjectCount
        self.maximumCollectionCount = maximumCollectionCount
        self.maximumDepth = maximumDepth
        self.maximumResolvedValues = maximumResolvedValues
        self.maximumEntities = maximumEntities
        self.maximumPropertiesPerEntity = maximumPropertiesPerEntity
        self.maximumExpandedSize = maximumExpandedSize
        self.maximumTotalProperties = maximumTotalProperties
        self.maximumDecodingTime = maximumDecodingTime
        self.maximumPredicateLength = maximumPredicateLength
    }

    /// The default limits.
    package static let `default` = DecodingLimits()
}
