import QuireCore
import QuireSupport
import QuireStores
import Foundation
import OrderedCollections

/// An object of the graph (`NSManagedObject`): one record of an entity, living in one context.
///
/// Read and write its properties by key:
///
/// ```swift
/// let run = ManagedObject(entity: runEntity, insertInto: context)
/// run.setValue(Date(), forKey: "date")
/// let pid = run.value(forKey: "processID") as? Int64   // -1, the default
/// ```
///
/// or declare a typed subclass whose properties are backed by the object's own storage, so faulting and
/// change tracking work through them (see ``Managed``):
///
/// ```swift
/// final class Run: ManagedObject {
///     @Managed("date") var date: Date
///     @Managed("processID") var processID: Int64
/// }
/// ```
///
/// An object is confined to its context's queue, as in Core Data: it is not `Sendable`; pass its
/// ``objectID`` across threads instead.
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's entity.
    public var entity: EntityDescription { entityHandle.takeUnretainedValue() }
    /// Objects refer to their entity without retaining it: a frozen entity's model is kept alive by the object's
    /// ID (its `ObjectIDOwner`); an object made from an entity whose model is still editable keeps it alive
    /// through its change state (`ManagedObjectChangeState.entityOwner`). `Unmanaged`, so that keyed access can use the entity without
    /// even a passing retain (`withEntity(_:)`).
    @usableFromInline let entityHandle: Unmanaged<EntityDescription>

    /// Runs `body` with the object's entity, without retaining it: keyed reads and writes, once a value each.
    @inlinable @inline(__always)
    func withEntity<Result>(_ body: (EntityDescription) -> Result) -> Result {
        // Safe: the entity outlives the object (a frozen entity's model is kept alive by the object's ID, an
        // editable one by the object's change state), so it is alive for the whole of `body`.
        entityHandle._withUnsafeGuaranteedRef(body)
    }

    // The object's state is used only on its context's queue, so the accesses of the properties marked
    // `@exclusivity(unchecked)` are not checked at run time: those checks cost more than the accesses.

    /// The object's ID: temporary until its first save, permanent after.
    @exclusivity(unchecked) public internal(set) var objectID: ObjectID
    /// The context the object lives in; `nil` once it was deleted and saved, or never inserted.
    ///
    /// Not retained, and not a weak reference either (those slow every retain of the object): the context
    /// registers every object that points at it and clears their pointers when it goes away.
    @exclusivity(unchecked) public internal(set) unowned(unsafe) var managedObjectContext: ManagedObjectContext?

    /// Attribute values by slot once unpacked; empty while the object is a fault or keeps its values packed
    /// (read them through `attributeStorage`, which unpacks, or `attributeValue(at:)`, which decodes one).
    @usableFromInline @exclusivity(unchecked) final var storedAttributes: [AttributeValue]
    /// Relationship values by slot once unpacked; empty while the object is a fault or keeps its values packed.
    @exclusivity(unchecked) var storedRelationships: [RelationshipStorage]
    /// What only a changed object needs (committed values, deferred to-many changes, its place in the change
    /// log), made at the first change: see `ManagedObject+ChangeState.swift`.
    @exclusivity(unchecked) var changeState: ManagedObjectChangeState?
    /// The version (`Z_OPT`) the values were read at.
    @exclusivity(unchecked) var version: Int64 = 0

    /// A fault made by a fetch keeps the row it was fetched with (where Core Data's row cache would), packed in
    /// one allocation, so firing it reads nothing; refreshing it releases the row. Once the fault fired, the row
    /// is the object's values until they are first needed as arrays (see `ManagedObject+PackedValues.swift`).
    @usableFromInline @exclusivity(unchecked) final var heldRow: PackedRow?
    /// Whether the object is a fault that keeps its fetched row.
    var faultHoldsRow: Bool { heldRow != nil }
    // The flags are declared together so that they share one word of the object.
    // `@usableFromInline` for the walk of a context's registered objects and the inlined part of a predicate's
    // evaluation, which read them in the caller's loop.
    @usableFromInline @exclusivity(unchecked) final var faultFlag = false
    @usableFromInline @exclusivity(unchecked) final var insertedFlag = false
    @usableFromInline @exclusivity(unchecked) final var updatedFlag = false
    @usableFromInline @exclusivity(unchecked) final var deletedFlag = false
    /// Set when the object's fault fired and its record could not be found (deleted elsewhere, or its store
    /// removed): its values read as `nil`, ``ManagedObjectContext/existingObject(with:)`` and the throwing
    /// accessors report ``QuireError/Code/managedObjectReferentialIntegrity``.
    @exclusivity(unchecked) var recordIsMissing = false
    /// `recentlyFetched` (the high bit) and `nextKeyHint` (the low seven) in one byte, so that the flags fit in
    /// one word and the object stays within its allocation size class.
    @exclusivity(unchecked) var fetchedAndKeyHint: UInt8 = 0
    /// Set when a fetch returns the object; the registry's pruning clears it and spares the object once.
    var recentlyFetched: Bool {
        @inline(__always) get { fetchedAndKeyHint & 0x80 != 0 }
        @inline(__always) set { fetchedAndKeyHint = newValue ? fetchedAndKeyHint | 0x80 : fetchedAndKeyHint & 0x7F }
    }
    /// The property index `value(forKey:)` tries first: the one after the property it found last (objects are
    /// read field by field). A guess only: a wrong one costs one comparison; indexes from 128 on are never guessed.
    var nextKeyHint: UInt8 {
        @inline(__always) get { fetchedAndKeyHint & 0x7F }
        @inline(__always) set { fetchedAndKeyHint = (fetchedAndKeyHint & 0x80) | (newValue & 0x7F) }
    }
    /// Set while the object is in its context's change notes as inserted (from `insert(_:)` until the context
    /// posts them) and the context has no undo manager: its attribute changes need no note of their own (an
    /// object is reported as inserted or updated, not both), no committed values (it has none) and no undo
    /// registration, so `setAttributeValue` just stores them. Cleared when the notes are posted, and for every
    /// such object when the context gets an undo manager.
    @exclusivity(unchecked) var insertionNotePending = false
    /// Whether the object is in its context's change log (``ManagedObjectContext``'s `changeLog`, the changed
    /// objects in the order of their first change, which saves follow).
    @exclusivity(unchecked) var isInChangeLog = false

    /// Creates an object of exactly this class for an entity, in no context, with its attributes at their
    /// defaults: the designated initializer every way of making an object ends in. Override it (as a
    /// `required init(entity:)` calling `super`) to initialize a subclass's own stored properties.
    ///
    /// Applications call ``init(entity:insertInto:)`` instead, which makes an object of the entity's
    /// ``EntityDescription/managedObjectClass`` and inserts it, or, given no context, makes the object keep its
    /// model alive (an object made by this initializer alone relies on its context, or on the application, to
    /// keep a frozen model alive).
    ///
    /// - Parameter entity: The object's entity.
    public required init(entity: EntityDescription) {
        self.entityHandle = Unmanaged.passUnretained(entity)
        // A temporary ID is drawn when the object is inserted; objects a context makes for records get
        // their permanent ID straight away.
        self.objectID = ObjectID.unassigned(for: entity)
        self.storedAttributes = entity.defaultAttributeValues
        self.storedRelationships = entity.emptyRelationshipValues
        if !entity.isFrozen { keepEntityAlive(entity) }
    }

    /// Creates an object of the entity whose ``EntityDescription/managedObjectClass`` is this class, and
    /// inserts it into a context (`init(context:)`).
    ///
    /// ```swift
    /// let run = Run(context: context)
    /// ```
    public convenience init(context: ManagedObjectContext) {
        guard let entity = context.entity(for: Self.self) else {
            preconditionFailure("No entity of the context's model has the class \(Self.self); set its managedObjectClass.")
        }
        self.init(entity: entity, insertInto: context)
    }

    // MARK: State

    // Not `final`: final, the getters are inlined into other modules, and a loop over an array of objects asking
    // `isFault` then drops the retain and release of each object, which no sequence handing out owned references
    // (`RegisteredObjects`) can follow: registered-objects-100k read 11 times its array walk, against 1.25 (its
    // target is 2). The walk of the registered objects reads the flags inlined itself.

    /// Whether the object is a fault: its values are not loaded. Reading this never fires the fault.
    public var isFault: Bool { faultFlag }
    /// Whether the object was inserted and not yet saved.
    public var isInserted: Bool { insertedFlag }
    /// Whether the object has unsaved changes (and was not inserted).
    public var isUpdated: Bool { updatedFlag }
    /// Whether the object was deleted and the delete not yet saved; also true for an object whose record was
    /// gone when its fault fired, in a context that ``ManagedObjectContext/shouldDeleteInaccessibleFaults``.
    public var isDeleted: Bool { deletedFlag || (recordIsMissing && managedObjectContext?.shouldDeleteInaccessibleFaults == true) }
    /// Whether the object is inserted, updated or deleted.
    public var hasChanges: Bool { insertedFlag || updatedFlag || deletedFlag }

    // MARK: Lifecycle hooks (override in subclasses)

    /// Called once, when the object is first inserted into a context. Set initial values here.
    open func awakeFromInsert() {}
    /// Called when the object's values are loaded from a store (a fetch or a fired fault).
    open func awakeFromFetch() {}
    /// Called when the object was deleted, before its delete rules run (`prepareForDeletion()`): its
    /// relationships still hold their objects, for custom propagation. Runs when the context processes its
    /// pending changes (``ManagedObjectContext/processPendingChanges()``, at the latest at save).
    open func prepareForDeletion() {}
    /// Called before the object is saved (inserted, updated or deleted).
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Called before the object is turned into a fault.
    open func willTurnIntoFault() {}
    /// Called after the object was turned into a fault.
    open func didTurnIntoFault() {}

    // MARK: Validation (override in subclasses)

    /// Checks the object before it is first saved (`validateForInsert()`): every rule of its entity (required
    /// values, ranges, lengths, patterns, validation predicates, relationship counts) and the per-key methods
    /// of ``keysWithValidationMethods``. Saves call it for each inserted object.
    ///
    /// Override it to check rules that span properties; call `super` first:
    ///
    /// ```swift
    /// override func validateForInsert() throws {
    ///     try super.validateForInsert()
    ///     if end < start { throw QuireError(.managedObjectValidation, "A run cannot end before it starts.") }
    /// }
    /// ```
    ///
    /// - Throws: The failure (codes 1550–1680), or ``QuireError/Code/validationMultipleErrors`` listing several
    ///   in ``QuireError/detailedErrors``.
    open func validateForInsert() throws {
        try SaveValidation.throwIfAny(SaveValidation.errors(for: self))
    }

    /// Checks a changed object before it is saved (`validateForUpdate()`), as ``validateForInsert()`` does.
    ///
    /// - Throws: The failure, or ``QuireError/Code/validationMultipleErrors`` listing several.
    open func validateForUpdate() throws {
        try SaveValidation.throwIfAny(SaveValidation.errors(for: self))
    }

    /// Checks a deleted object before its deletion is saved (`validateForDelete()`): a relationship with the
    /// deny rule must not hold objects.
    ///
    /// - Throws: ``QuireError/Code/validationRelationshipDeniedDelete``, or several as
    ///   ``QuireError/Code/validationMultipleErrors``.
    open func validateForDelete() throws {
        try SaveValidation.throwIfAny(SaveValidation.deleteErrors(for: self))
    }

    /// The keys for which validation calls ``validate(key:value:)`` (Swift has no selectors to find Core
    /// Data's `validate<Key>:error:` methods by name, so a typed subclass lists its keys here).
    ///
    /// Read once, when the model is frozen; the list must not change afterwards.
    open class var keysWithValidationMethods: Set<String> { [] }

    /// A typed subclass's validation method for one key, Core Data's `validate<Key>(_:)`: called at save and
    /// by ``validateValue(_:forKey:)`` for each key of ``keysWithValidationMethods``, after the model's rules.
    ///
    /// ```swift
    /// final class Run: ManagedObject {
    ///     @Managed("processID") var processID: Int64
    ///     override class var keysWithValidationMethods: Set<String> { ["processID"] }
    ///     override func validate(key: String, value: inout Any?) throws {
    ///         guard key == "processID" else { return try super.validate(key: key, value: &value) }
    ///         if let pid = value as? Int64, pid == 1 {
    ///             throw QuireError(.managedObjectValidation, "Process ID 1 is reserved for init.")
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Through ``validateValue(_:forKey:)`` the method may replace the value (the caller gets the new one);
    /// at save a replacement is ignored, as in Core Data. Errors other than ``QuireError`` are reported as
    /// ``QuireError/Code/managedObjectValidation`` with the error as the underlying cause.
    ///
    /// - Parameters:
    ///   - key: The property's key.
    ///   - value: The value to check, as ``value(forKey:)`` gives it.
    /// - Throws: The validation failure.
    open func validate(key: String, value: inout Any?) throws {}

    // MARK: Identity

    /// Objects are equal only to themselves (uniquing makes one object per record per context).
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The hash value sets and dictionaries use (`Hashable`'s hidden requirement): the object's address mixed
    /// with the table's seed by `identityHash(_:seed:)`, rather than a `Hasher` made, fed and finalized for every
    /// object (a save's notifications put every saved object in a set). Consistent with ``==(_:_:)``, which
    /// compares identities; ``hash(into:)`` is not `open`, so no subclass hashes otherwise.
    public func _rawHashValue(seed: Int) -> Int {
        identityHash(UInt64(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())), seed: seed)
    }

    /// The entity, the ID and, unless a fault, the attribute values.
    open var description: String {
        if faultFlag { return "<\(entity.name) \(objectID) (fault)>" }
        let values = entity.allAttributes.enumerated().map { index, attribute in
            "\(attribute.name)=\(index < attributeStorage.count ? attributeStorage[index].description : "?")"
        }
        return "<\(entity.name) \(objectID) {\(values.joined(separator: ", "))}>"
    }
}

