import QuireCore
import QuireStores
import Foundation

/// The results of a fetch request kept in sections and kept current as the context changes
/// (`NSFetchedResultsController`): what a list user interface shows.
///
/// ```swift
/// let request = FetchRequest<Employee>(entityName: "Employee")
/// request.sortDescriptors = [SortKey("department.name"), SortKey("name")]
/// let controller = FetchedResultsController(
///     fetchRequest: request, managedObjectContext: container.viewContext,
///     sectionNameKeyPath: "department.name", cacheName: "Employees")
/// controller.delegate = listView
/// try controller.performFetch()
/// let first = controller.object(at: IndexPath(item: 0, section: 0))
/// for await changes in controller.changeSets { … }
/// ```
///
/// After ``performFetch()`` the controller follows its context's ``ManagedObjectContext/objectsDidChangeNotification``:
/// objects inserted, changed, deleted or refreshed in the context, saved into it by a child, or merged into it
/// from another context's save (``ManagedObjectContext/mergeChanges(fromContextDidSave:)-(ContextDidSave)``) update its
/// sections, and each round is reported to the ``delegate`` (insert, delete, move, update, with index paths;
/// section inserts and deletes) and to every ``changeSets`` stream. Objects are tested against the request's
/// predicate and sorted by its sort keys in memory, as Core Data does; `fetchLimit` and `fetchOffset` apply to
/// ``performFetch()`` only.
///
/// Like its context's objects, a controller belongs to the context's queue: use it there (for a view context,
/// on the main thread).
public final class FetchedResultsController<Result: ManagedObject> {
    /// The request: its entity, predicate and sort keys (one at least) define the results.
    public let fetchRequest: FetchRequest<Result>
    /// The context fetched from and followed.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section, or nil for one section. The first sort key
    /// should order by it, so that each section's objects are together.
    public let sectionNameKeyPath: String?
    /// The name of the section-info cache (see ``deleteCache(withName:)``), or nil for none.
    public let cacheName: String?
    /// Told of each round of changes; not retained. Without a delegate (and without a ``changeSets`` stream)
    /// the controller does not track changes, as in Core Data: its results stay those of the last
    /// ``performFetch()``; call it again after setting a delegate.
    public weak var delegate: (any FetchedResultsControllerDelegate<Result>)?

    /// The results in order, section after section; nil before ``performFetch()``.
    public private(set) var fetchedObjects: [Result]?
    /// The sections; nil before ``performFetch()``.
    public private(set) var sections: [FetchedResultsSectionInfo<Result>]?

    /// Where each fetched object is.
    var positions: [ObjectIdentifier: IndexPath] = [:]
    /// The entities whose objects can be results: the request's entity, and its subentities when it includes them.
    var resultEntities: Set<ObjectIdentifier> = []
    private var observerToken: Int?
    let streams = FetchedResultsStreams()
    /// Set by the delegate's default implementations of the snapshot and difference callbacks: the delegate
    /// does not implement the one just called.
    var delegateLacksCallback = false
    /// The delegate types found not to implement the snapshot callback, or the difference callback (found by
    /// calling them once), so that no snapshot or difference is made for them again.
    var typesLackingSnapshot: Set<ObjectIdentifier> = []
    var typesLackingDifference: Set<ObjectIdentifier> = []

    /// Creates a controller (`init(fetchRequest:managedObjectContext:sectionNameKeyPath:cacheName:)`); nothing
    /// is fetched until ``performFetch()``.
    public init(
        fetchRequest: FetchRequest<Result>, managedObjectContext: ManagedObjectContext,
        sectionNameKeyPath: String? = nil, cacheName: String? = nil
    ) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
    }

    deinit {
        streams.finishAll()
        if let observerToken {
            let context = managedObjectContext
            context.perform { context.removeObjectsDidChangeObserver(observerToken) }
        }
    }

    /// A stream of the change rounds reported after it was made, as object IDs and index paths; each read
    /// makes a new stream, which ends when the controller is released.
    public var changeSets: AsyncStream<FetchedResultsChangeSet> { streams.makeStream() }

    /// Fetches the results and groups them in sections (`performFetch()`), from the cache when it is current;
    /// from then on the controller follows its context's changes.
    ///
    /// - Throws: ``QuireError/Code/invalidFetchRequest`` for a request without sort keys or of an entity the
    ///   model lacks; the fetch's errors.
    public func performFetch() throws {
        try managedObjectContext.performAndWait {
            guard !fetchRequest.sortDescriptors.isEmpty else {
                throw QuireError(
                    .invalidFetchRequest,
                    "A fetched results controller needs a fetch request with sort keys (entity '\(fetchRequest.entityName)').",
                    context: .init(entity: fetchRequest.entityName))
            }
            let coordinator = managedObjectContext.coordinatorOrFail()
            guard let entity = coordinator.managedObjectModel.entitiesByName[fetchRequest.entityName] else {
                throw QuireError(
                    .invalidFetchRequest, "The model has no entity '\(fetchRequest.entityName)'.",
                    context: .init(entity: fetchRequest.entityName))
            }
            resultEntities = [ObjectIdentifier(entity)]
            if fetchRequest.includesSubentities { resultEntities.formUnion(entity.allSubentities.map(ObjectIdentifier.init)) }
            if let cached = cachedSections(coordinator) {
                install(cached)
            } else {
                let objects = try managedObjectContext.fetch(fetchRequest)
                install(makeSections(objects))
                writeCache(coordinator)
            }
            if let delegate { _ = tellSnapshot(to: delegate, reloading: []) }
            if observerToken == nil {
                let box = WeakControllerBox(self)
                observerToken = managedObjectContext.addObjectsDidChangeObserver { change in
                    box.controller?.contextDidChange(change)
                }
            }
        }
    }

    /// The object at an index path (`object(at:)`). An index path outside the sections is a programmer error
    /// and traps, as Core Data raises.
    public func object(at indexPath: IndexPath) -> Result {
        guard let sections, indexPath.count == 2, sections.indices.contains(indexPath.section),
            sections[indexPath.section].objects.indices.contains(indexPath.item)
        else { preconditionFailure("No object at index path \(indexPath) of the fetched results.") }
        return sections[indexPath.section].objects[indexPath.item]
    }

    /// Where an object is in the results (`indexPath(forObject:)`); nil when it is not among them.
    public func indexPath(forObject object: Result) -> IndexPath? {
        positions[ObjectIdentifier(object)]
    }

    /// The sections' index titles, each once, in order (`sectionIndexTitles`).
    public var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return (sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The index title of a section name (`sectionIndexTitle(forSectionName:)`): its first letter, capitalized;
    /// nil for an empty name.
    public func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// The section an index title stands for (`section(forSectionIndexTitle:at:)`): the first section with
    /// that title, else the section at the title's index (clamped).
    public func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        let sections = sections ?? []
        if let index = sections.firstIndex(where: { $0.indexTitle == title }) { return index }
        return max(0, min(sectionIndex, sections.count - 1))
    }

    /// Removes a cache (`deleteCache(withName:)`); nil removes every cache.
    public static func deleteCache(withName name: String?) {
        FetchedResultsCache.remove(named: name)
    }

    // MARK: Sections

    /// An object's section name: the key path's value as Core Data's `NSNumber`, `NSDate` … describe it, so a
    /// Boolean names sections `"0"` and `"1"` and a whole floating-point number has no fraction (`"3"`).
    func sectionName(of object: Result) -> String {
        guard let sectionNameKeyPath else { return "" }
        switch object.value(forKeyPath: sectionNameKeyPath) {
        case nil: return ""
        case let string as String: return string
        case let bool as Bool: return bool ? "1" : "0"
        case let double as Double: return Self.numberName(double)
        case let float as Float: return Self.numberName(Double(float))
        case let value?: return "\(value)"
        }
    }

    /// A floating-point value as `NSNumber`'s description writes it: without a fraction when it is whole.
    private static func numberName(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Tells the delegate the results as a snapshot; false when it does not implement the snapshot callback.
    func tellSnapshot(to delegate: any FetchedResultsControllerDelegate<Result>, reloading reloaded: [ObjectID]) -> Bool {
        let kind = ObjectIdentifier(type(of: delegate))
        guard !typesLackingSnapshot.contains(kind) else { return false }
        let snapshot = FetchedResultsSnapshot(
            sections: (sections ?? []).map { ($0.name, $0.objects.map(\.objectID)) }, reloadedItemIdentifiers: reloaded)
        delegateLacksCallback = false
        delegate.controller(self, didChangeContentWith: snapshot)
        if delegateLacksCallback { typesLackingSnapshot.insert(kind) }
        return !delegateLacksCallback
    }

    /// The index title of a section: the delegate's, or the default.
    func indexTitle(for name: String) -> String? {
        delegate?.controller(self, sectionIndexTitleForSectionName: name) ?? sectionIndexTitle(forSectionName: name)
    }

    /// Sorted objects grouped in sections, in order of first appearance.
    func makeSections(_ objects: [Result]) -> [FetchedResultsSectionInfo<Result>] {
        var sections: [FetchedResultsSectionInfo<Result>] = []
        var indexByName: [String: Int] = [:]
        for object in objects {
            let name = sectionName(of: object)
            if let index = indexByName[name] {
                sections[index].objects.append(object)
            } else {
                indexByName[name] = sections.count
                sections.append(FetchedResultsSectionInfo(name: name, indexTitle: indexTitle(for: name), objects: [object]))
            }
        }
        if sections.isEmpty && sectionNameKeyPath == nil {
            sections = [FetchedResultsSectionInfo(name: "", indexTitle: nil, objects: [])]
        }
        return sections
    }

    /// Makes sections the controller's results.
    func install(_ sections: [FetchedResultsSectionInfo<Result>]) {
        self.sections = sections
        fetchedObjects = sections.flatMap(\.objects)
        positions = [:]
        for (sectionIndex, section) in sections.enumerated() {
            for (item, object) in section.objects.enumerated() {
                positions[ObjectIdentifier(object)] = IndexPath(item: item, section: sectionIndex)
            }
        }
    }

    // MARK: Cache

    /// What the cache entry must have been made for.
    private var fingerprint: String {
        "\(fetchRequest.entityName)|\(fetchRequest.predicate.map { "\($0)" } ?? "")|"
            + fetchRequest.sortDescriptors.map { key in
                // A Swift comparator counts by identity: another closure may order differently.
                "\(key.keyPath):\(key.ascending):\(key.comparator)\(key.customComparator.map { ":\($0.hashValue)" } ?? "")"
            }.joined(separator: ",")
            + "|\(sectionNameKeyPath ?? "")|\(fetchRequest.includesSubentities)|\(fetchRequest.fetchLimit)|\(fetchRequest.fetchOffset)"
    }

    /// The cached sections, when the cache is current and the context has no unsaved changes.
    private func cachedSections(_ coordinator: PersistentStoreCoordinator) -> [FetchedResultsSectionInfo<Result>]? {
        guard let cacheName, let entry = FetchedResultsCache.entry(named: cacheName), !managedObjectContext.hasChanges,
            entry.fingerprint == fingerprint, entry.coordinator == ObjectIdentifier(coordinator),
            entry.saveGeneration == coordinator.currentSaveGeneration
        else { return nil }
        var sections: [FetchedResultsSectionInfo<Result>] = []
        for cached in entry.sections {
            var objects: [Result] = []
            objects.reserveCapacity(cached.objectIDs.count)
            for id in cached.objectIDs {
                guard let object = managedObjectContext.object(with: id) as? Result else { return nil }
                objects.append(object)
            }
            sections.append(FetchedResultsSectionInfo(name: cached.name, indexTitle: cached.indexTitle, objects: objects))
        }
        return sections
    }

    /// Writes the current sections to the cache, when the controller has one and no object is unsaved.
    func writeCache(_ coordinator: PersistentStoreCoordinator) {
        guard let cacheName, let sections else { return }
        guard !sections.contains(where: { $0.objects.contains { $0.objectID.isTemporaryID } }) else {
            FetchedResultsCache.remove(named: cacheName)
            return
        }
        FetchedResultsCache.store(
            .init(
                fingerprint: fingerprint, coordinator: ObjectIdentifier(coordinator),
                saveGeneration: coordinator.currentSaveGeneration,
                sections: sections.map { ($0.name, $0.indexTitle, $0.objects.map(\.objectID)) }),
            named: cacheName)
    }

    /// Whether ``performFetch()`` used the cache: for tests.
    var cacheIsCurrent: Bool {
        guard let coordinator = managedObjectContext.persistentStoreCoordinator else { return false }
        return cachedSections(coordinator) != nil
    }
}

/// A weak reference to a controller, for the observer closure its context keeps.
private final class WeakControllerBox<Result: ManagedObject> {
    weak var controller: FetchedResultsController<Result>?
    init(_ controller: FetchedResultsController<Result>) { self.controller = controller }
}
