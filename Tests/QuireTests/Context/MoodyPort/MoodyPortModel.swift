import Quire

// The data layer of objc.io's Moody (the sample app of their Core Data book; the model file is
// Fixtures/CoreData/Models/objcio__core-data/Moody), written again as a developer porting it would write it: the
// same class shapes and API calls, with Core Data's names renamed (`NSManagedObject` → `ManagedObject`,
// `@NSManaged` → `@ManagedProperty`, `NSMergePolicy` → `MergePolicy`, `NSPredicate` → `QueryPredicate`,
// `NSFetchRequest` → `FetchRequest`, `NSSortDescriptor` → `SortKey`). Our own code, not the app's: the shapes are
// what matters (counters kept in `willSave()` from `changedValues()` and `committedValues(forKeys:)` read `as? Int`,
// properties declared in extensions, primitive accessors, a protocol named `Managed`, a merge policy subclass that
// calls `super` and then fixes counters, `registeredObjects` searched with an in-memory predicate).
//
// The classes live in an enum so that their names (`Mood`, `Country`, `Managed`) stay out of the rest of the test
// module; the model's class names are rewritten to `MoodyPort.…` (see `MoodyPort.model()`), which
// `MoodyPort.registerClasses()` registers one line per class.
enum MoodyPort {
    enum ISOCountry: Int16, CaseIterable {
        case deu = 276, fra = 250, pol = 616, usa = 840
        var continent: ISOContinent { self == .usa ? .na : .eu }
    }

    enum ISOContinent: Int16 {
        case na = 10001, eu = 10003
    }

    static let updateTimestampKey = "updatedAt"
    static let markedForDeletionDateKey = "markedForDeletionDate"

    /// Moody's own protocol of this name (CoreDataHelpers): it must not clash with anything Quire declares.
    protocol Managed: AnyObject, FetchRequestResult {
        static var entityName: String { get }
        static var defaultSortDescriptors: [SortKey] { get }
        static var defaultPredicate: QueryPredicate { get }
    }

    protocol DelayedDeletable: AnyObject {
        var changedForDelayedDeletion: Bool { get }
        var markedForDeletionDate: Date? { get set }
        func markForLocalDeletion()
    }

    protocol UpdateTimestampable: AnyObject {
        var updatedAt: Date { get set }
    }

    final class Region: ManagedObject {}

    final class Country: ManagedObject {
        @ManagedProperty fileprivate(set) var moods: Set<Mood>
        @ManagedProperty fileprivate(set) var continent: Continent?
        @ManagedProperty var numberOfMoods: Int64
        @ManagedProperty var updatedAt: Date

        fileprivate(set) var iso3166Code: ISOCountry {
            get { ISOCountry(rawValue: numericISO3166Code) ?? .deu }
            set { numericISO3166Code = newValue.rawValue }
        }

        override func awakeFromInsert() {
            super.awakeFromInsert()
            primitiveUpdatedAt = Date()
        }

        static func findOrCreate(for isoCountry: ISOCountry, in context: ManagedObjectContext) -> Country {
            let predicate = Country.predicate(format: "%K == %d", "numericISO3166Code", Int(isoCountry.rawValue))
            return findOrCreate(in: context, matching: predicate) {
                $0.iso3166Code = isoCountry
                $0.continent = Continent.findOrCreateContinent(for: isoCountry, in: context)
            }
        }

        override func prepareForDeletion() {
            guard let c = continent else { return }
            if c.countries.filter({ !$0.isDeleted }).isEmpty {
                managedObjectContext?.delete(c)
            }
        }

        override func willSave() {
            super.willSave()
            if hasChangedMoods {
                updateMoodCount()
                if moods.count == 0 { markForLocalDeletion() }
            }
            if hasInsertedMoods { refreshUpdateDate() }
            if changedForDelayedDeletion { removeFromContinent() }
        }

        var changedMoodCountDelta: Int64 {
            guard hasChangedMoods else { return 0 }
            return numberOfMoods - committedNumberOfMoods
        }

        @ManagedProperty fileprivate var numericISO3166Code: Int16
        @ManagedProperty fileprivate var primitiveUpdatedAt: Date

        fileprivate var hasChangedMoods: Bool { changedValue(forKey: "moods") != nil }

        fileprivate var hasInsertedMoods: Bool {
            guard hasChangedMoods else { return false }
            return moods.contains { $0.isInserted }
        }

        fileprivate var committedNumberOfMoods: Int64 {
            let n = committedValue(forKey: "numberOfMoods") as? Int ?? 0
            return Int64(n)
        }

        fileprivate func refreshUpdateDate() {
            guard changedValue(forKey: updateTimestampKey) == nil else { return }
            updatedAt = Date()
            continent?.refreshUpdateDate()
        }

        fileprivate func updateMoodCount() {
            guard Int64(moods.count) != numberOfMoods else { return }
            numberOfMoods = Int64(moods.count)
            continent?.updateMoodCount()
        }

        fileprivate func removeFromContinent() {
            guard continent != nil else { return }
            continent = nil
        }
    }

    final class Continent: ManagedObject {
        @ManagedProperty var numberOfCountries: Int64
        @ManagedProperty var numberOfMoods: Int64
        @ManagedProperty fileprivate(set) var countries: Set<Country>
        @ManagedProperty var updatedAt: Date

        fileprivate(set) var iso3166Code: ISOContinent {
            get { ISOContinent(rawValue: numericISO3166Code) ?? .eu }
            set { numericISO3166Code = newValue.rawValue }
        }

        override func awakeFromInsert() {
            super.awakeFromInsert()
            primitiveUpdatedAt = Date()
        }

        static func findOrCreateContinent(for isoCountry: ISOCountry, in context: ManagedObjectContext) -> Continent? {
            let iso3166 = isoCountry.continent
            let predicate = Continent.predicate(format: "%K == %d", "numericISO3166Code", Int(iso3166.rawValue))
            return findOrCreate(in: context, matching: predicate) { $0.iso3166Code = iso3166 }
        }

        override func willSave() {
            super.willSave()
            if hasChangedCountries {
                updateCountryCount()
                if countries.count == 0 { markForLocalDeletion() }
            }
            updateMoodCount()
        }

        func refreshUpdateDate() {
            guard changedValue(forKey: updateTimestampKey) == nil else { return }
            updatedAt = Date()
        }

        func updateMoodCount() {
            let currentAndDeletedCountries = countries.union(committedCountries)
            let deltaInCountries: Int64 = currentAndDeletedCountries.reduce(0) { $0 + $1.changedMoodCountDelta }
            let pendingDelta = numberOfMoods - committedNumberOfMoods
            guard pendingDelta != deltaInCountries else { return }
            numberOfMoods = committedNumberOfMoods + deltaInCountries
        }

        @ManagedProperty fileprivate var numericISO3166Code: Int16
        @ManagedProperty fileprivate var primitiveUpdatedAt: Date

        fileprivate var hasChangedCountries: Bool { changedValue(forKey: "countries") != nil }

        fileprivate func updateCountryCount() {
            guard numberOfCountries != Int64(countries.count) else { return }
            numberOfCountries = Int64(countries.count)
        }

        fileprivate var committedCountries: Set<Country> {
            committedValue(forKey: "countries") as? Set<Country> ?? Set()
        }

        fileprivate var committedNumberOfMoods: Int64 {
            let n = committedValue(forKey: "numberOfMoods") as? Int ?? 0
            return Int64(n)
        }
    }

    final class Mood: ManagedObject {
        @ManagedProperty fileprivate(set) var date: Date
        @ManagedProperty fileprivate(set) var colors: [MoodColor]
        @ManagedProperty var creatorID: String?
        @ManagedProperty var remoteIdentifier: String?
        @ManagedProperty fileprivate(set) var country: Country?

        override func awakeFromInsert() {
            super.awakeFromInsert()
            primitiveDate = Date()
        }

        static func insert(
            into moc: ManagedObjectContext, colors: [MoodColor], latitude: Double?, longitude: Double?,
            isoCountry: ISOCountry, remoteIdentifier: String? = nil, date: Date? = nil, creatorID: String? = nil
        ) -> Mood {
            let mood: Mood = moc.insertObject()
            mood.colors = colors
            if let latitude, let longitude {
                mood.latitude = NSNumber(value: latitude)
                mood.longitude = NSNumber(value: longitude)
            }
            mood.country = Country.findOrCreate(for: isoCountry, in: moc)
            mood.remoteIdentifier = remoteIdentifier
            if let d = date { mood.date = d }
            mood.creatorID = creatorID
            return mood
        }

        override func willSave() {
            super.willSave()
            if changedForDelayedDeletion || changedForRemoteDeletion { removeFromCountry() }
        }

        @ManagedProperty fileprivate var primitiveDate: Date
        @ManagedProperty fileprivate(set) var latitude: NSNumber?
        @ManagedProperty fileprivate(set) var longitude: NSNumber?

        fileprivate func removeFromCountry() {
            guard country != nil else { return }
            country = nil
        }

        static func registerValueTransformers() {
            ValueTransformerRegistry.register(ColorsTransformer(), forName: "ColorsTransformer")
        }
    }

    /// What the app keeps as `UIColor`s: three bytes of RGB.
    struct MoodColor: Hashable, Sendable {
        var red: UInt8, green: UInt8, blue: UInt8
        static let white = MoodColor(red: 255, green: 255, blue: 255)
    }

    /// The app's `ColorsTransformer`: colors as RGB bytes.
    struct ColorsTransformer: AttributeValueTransformer {
        func transformedValue(_ value: Any) throws -> Data {
            guard let colors = value as? [MoodColor] else { throw QuireError(.invalidValue, "Not colors: \(value).") }
            return Data(colors.flatMap { [$0.red, $0.green, $0.blue] })
        }

        func reverseTransformedValue(_ data: Data) throws -> Any {
            guard data.count % 3 == 0 else { throw QuireError(.fileReadCorruptFile, "Colors are three bytes each.") }
            let bytes = [UInt8](data)
            return stride(from: 0, to: bytes.count, by: 3).map { MoodColor(red: bytes[$0], green: bytes[$0 + 1], blue: bytes[$0 + 2]) }
        }
    }

    /// The app's merge policy: by-property merges, then timestamps and counters recomputed.
    final class MoodyMergePolicy: MergePolicy {
        enum MergeMode {
            case remote
            case local

            fileprivate var mergeType: MergePolicyType {
                switch self {
                case .remote: return .mergeByPropertyObjectTrumpMergePolicyType
                case .local: return .mergeByPropertyStoreTrumpMergePolicyType
                }
            }
        }

        required init(mode: MergeMode) {
            super.init(merge: mode.mergeType)
        }

        override func resolve(optimisticLockingConflicts list: [MergeConflict]) throws {
            var regionsAndLatestDates: [(UpdateTimestampable, Date)] = []
            for (c, r) in list.conflictsAndObjects(of: UpdateTimestampable.self) {
                regionsAndLatestDates.append((r, c.newestUpdatedAt))
            }

            try super.resolve(optimisticLockingConflicts: list)

            for (region, date) in regionsAndLatestDates {
                region.updatedAt = date
            }

            resolveCountryConflicts(list)
            resolveContinentConflicts(list)
        }

        func resolveCountryConflicts(_ conflicts: [MergeConflict]) {
            for country in conflicts.conflictedObjects(of: Country.self) {
                country.refresh()
                country.numberOfMoods = Int64(country.moods.count)
            }
        }

        func resolveContinentConflicts(_ conflicts: [MergeConflict]) {
            for continent in conflicts.conflictedObjects(of: Continent.self) {
                continent.refresh()
                continent.numberOfCountries = Int64(continent.countries.count)
                guard let ctx = continent.managedObjectContext else { continue }
                let count = Mood.count(in: ctx) { request in
                    request.predicate = Mood.predicate(format: "country IN %@", continent.countries)
                }
                continent.numberOfMoods = Int64(count)
            }
        }
    }
}

extension MoodyPort.Country: MoodyPort.Managed, MoodyPort.DelayedDeletable, MoodyPort.UpdateTimestampable {
    static var defaultSortDescriptors: [SortKey] { [SortKey(key: MoodyPort.updateTimestampKey, ascending: false)] }
    static var defaultPredicate: QueryPredicate { notMarkedForLocalDeletionPredicate }
}

extension MoodyPort.Country {
    // Xcode's code generation and Moody declare properties in extensions.
    @ManagedProperty var markedForDeletionDate: Date?
}

extension MoodyPort.Continent: MoodyPort.Managed, MoodyPort.DelayedDeletable, MoodyPort.UpdateTimestampable {
    static var defaultSortDescriptors: [SortKey] { [SortKey(key: MoodyPort.updateTimestampKey, ascending: false)] }
    static var defaultPredicate: QueryPredicate { notMarkedForLocalDeletionPredicate }
}

extension MoodyPort.Continent {
    @ManagedProperty var markedForDeletionDate: Date?
}

extension MoodyPort.Region: MoodyPort.Managed {
    static var defaultSortDescriptors: [SortKey] { [SortKey(key: "updatedAt", ascending: false)] }
    static var defaultPredicate: QueryPredicate { MoodyPort.Country.notMarkedForLocalDeletionPredicate }
}

extension MoodyPort.Mood: MoodyPort.Managed, MoodyPort.DelayedDeletable {
    static var defaultSortDescriptors: [SortKey] { [SortKey(key: "date", ascending: false)] }
    static var defaultPredicate: QueryPredicate { notMarkedForLocalDeletionPredicate }

    @ManagedProperty var markedForDeletionDate: Date?
}

extension MoodyPort.Mood {
    @ManagedProperty var markedForRemoteDeletion: Bool

    var changedForRemoteDeletion: Bool {
        changedValue(forKey: "markedForRemoteDeletion") as? Bool == true
    }
}

extension MoodyPort.Managed {
    static var defaultSortDescriptors: [SortKey] { [] }
    static var defaultPredicate: QueryPredicate { .true }

    static var sortedFetchRequest: FetchRequest<Self> {
        let request = FetchRequest<Self>(entityName: entityName)
        request.sortDescriptors = defaultSortDescriptors
        request.predicate = defaultPredicate
        return request
    }

    static func predicate(format: String, _ args: Any...) -> QueryPredicate {
        // The app builds its predicates from literal formats: a bad one is its bug, as `NSPredicate(format:)` raises.
        let p = try! QueryPredicate(format: format, argumentArray: args)
        return QueryPredicate(andPredicateWithSubpredicates: [defaultPredicate, p])
    }
}

extension MoodyPort.Managed where Self: ManagedObject {
    static var entityName: String { entity().name }

    static func findOrCreate(in context: ManagedObjectContext, matching predicate: QueryPredicate, configure: (Self) -> Void) -> Self {
        guard let object = findOrFetch(in: context, matching: predicate) else {
            let newObject: Self = context.insertObject()
            configure(newObject)
            return newObject
        }
        return object
    }

    static func findOrFetch(in context: ManagedObjectContext, matching predicate: QueryPredicate) -> Self? {
        guard let object = materializedObject(in: context, matching: predicate) else {
            return fetch(in: context) { request in
                request.predicate = predicate
                request.returnsObjectsAsFaults = false
                request.fetchLimit = 1
            }.first
        }
        return object
    }

    static func materializedObject(in context: ManagedObjectContext, matching predicate: QueryPredicate) -> Self? {
        for object in context.registeredObjects where !object.isFault {
            guard let result = object as? Self, (try? predicate.evaluate(with: result)) == true else { continue }
            return result
        }
        return nil
    }

    static func fetch(in context: ManagedObjectContext, configurationBlock: (FetchRequest<Self>) -> Void = { _ in }) -> [Self] {
        let request = FetchRequest<Self>(entityName: Self.entityName)
        configurationBlock(request)
        return try! context.fetch(request)
    }

    static func count(in context: ManagedObjectContext, configure: (FetchRequest<Self>) -> Void = { _ in }) -> Int {
        let request = FetchRequest<Self>(entityName: entityName)
        configure(request)
        return try! context.count(for: request)
    }

    func materialize() -> Self {
        for property in entity.properties {
            if let relationship = value(forKey: property.name) as? Set<ManagedObject> {
                _ = relationship.count
            }
        }
        return self
    }

    func materializedObject(in context: ManagedObjectContext) -> Self {
        context.performAndWait { (context.object(with: objectID) as! Self).materialize() }
    }
}

extension MoodyPort.DelayedDeletable {
    static var notMarkedForLocalDeletionPredicate: QueryPredicate {
        try! QueryPredicate(format: "%K == NULL", MoodyPort.markedForDeletionDateKey)
    }
}

extension MoodyPort.DelayedDeletable where Self: ManagedObject {
    var changedForDelayedDeletion: Bool {
        changedValue(forKey: MoodyPort.markedForDeletionDateKey) as? Date != nil
    }

    func markForLocalDeletion() {
        guard isFault || markedForDeletionDate == nil else { return }
        markedForDeletionDate = Date()
    }
}

extension ManagedObject {
    // CoreDataHelpers' conveniences.
    func changedValue(forKey key: String) -> Any? {
        changedValues()[key]
    }

    func committedValue(forKey key: String) -> Any? {
        let value = committedValues(forKeys: [key])[key]
        return value is NSNull ? nil : value
    }

    func refresh(_ mergeChanges: Bool = true) {
        managedObjectContext?.refresh(self, mergeChanges: mergeChanges)
    }
}

extension ManagedObjectContext {
    func insertObject<A: ManagedObject>() -> A where A: MoodyPort.Managed {
        guard let obj = EntityDescription.insertNewObject(forEntityName: A.entityName, into: self) as? A else {
            fatalError("Wrong object type")
        }
        return obj
    }

    func performChangesAndWait(_ f: () -> Void) {
        performAndWait {
            f()
            try! save()
        }
    }
}

extension MergeConflict {
    var newestUpdatedAt: Date {
        guard let o = sourceObject as? MoodyPort.UpdateTimestampable else { fatalError("must be UpdateTimestampable") }
        let key = MoodyPort.updateTimestampKey
        let zeroDate = Date(timeIntervalSince1970: 0)
        let objectDate = objectSnapshot?[key] as? Date ?? zeroDate
        let cachedDate = cachedSnapshot?[key] as? Date ?? zeroDate
        let persistedDate = persistedSnapshot?[key] as? Date ?? zeroDate
        return max(o.updatedAt as Date, max(objectDate, max(cachedDate, persistedDate)))
    }
}

extension Sequence where Iterator.Element == MergeConflict {
    func conflictedObjects<T>(of cls: T.Type) -> [T] {
        let objects = map { $0.sourceObject }
        return objects.compactMap { $0 as? T }
    }

    func conflictsAndObjects<T>(of cls: T.Type) -> [(MergeConflict, T)] {
        filter { $0.sourceObject is T }.map { ($0, $0.sourceObject as! T) }
    }
}
