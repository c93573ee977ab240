import QuireSupport
/// Bounds on what the decoder accepts, so hostile input fails fast with
/// ``CompiledModelError/limitExceeded(what:limit:)`` instead of exhausting memory, time or stack.
///
/// The defaults are far above what real models need (the largest corpus model has a few hundred archived
/// objects and nests four levels deep) and far below what would hurt a process.
package struct DecodingLimits: Sendable, Hashable {
    /// The most bytes raw DEFLATE may inflate to (default 64 MiB).
    package var maximumInflatedSize: Int
    /// The largest input file or property list, in bytes (default 64 MiB).
    package var maximumInputSize: Int
    /// The most objects a binary property list may declare (default 2,000,000).
    package var maximumObjectCount: Int
    /// The most elements of one array, set or dictionary (default 1,000,000).
    package var maximumCollectionCount: Int
    /// The deepest nesting of property-list containers and of archived collections, predicates and
    /// expressions (default 128; keyed archives of models nest about 4 deep).
    package var maximumDepth: Int
    /// The most values the resolver produces for one archive, counting every element of every collection it
    /// resolves (default 4,000,000). This bounds the work of archives that share collections many times over.
    package var maximumResolvedValues: Int
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
        maximumPropertiesPerEntity: Int = 10_000
    ) {
        self.maximumInflatedSize = maximumInflatedSize
        self.maximumInputSize = maximumInputSize
        self.maximumObjectCount = maximumObjectCount
        self.maximumCollectionCount = maximumCollectionCount
        self.maximumDepth = maximumDepth
        self.maximumResolvedValues = maximumResolvedValues
        self.maximumEntities = maximumEntities
        self.maximumPropertiesPerEntity = maximumPropertiesPerEntity
    }

    /// The default limits.
    package static let `default` = DecodingLimits()
}
