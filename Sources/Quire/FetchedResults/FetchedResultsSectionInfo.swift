import QuireCore

/// One section of a ``FetchedResultsController``'s results (`NSFetchedResultsSectionInfo`): the objects whose
/// ``FetchedResultsController/sectionNameKeyPath`` value is the section's name.
public final class FetchedResultsSectionInfo<Result: ManagedObject> {
    /// The section's name: the key path's value as a string (`""` for nil, or for the one section when there
    /// is no section key path).
    public let name: String
    /// The section's index title: by default the name's first letter, capitalized.
    public let indexTitle: String?
    /// The section's objects, in the fetch request's order.
    public internal(set) var objects: [Result]
    /// How many objects the section has.
    public var numberOfObjects: Int { objects.count }

    init(name: String, indexTitle: String?, objects: [Result]) {
        self.name = name
        self.indexTitle = indexTitle
        self.objects = objects
    }
}
