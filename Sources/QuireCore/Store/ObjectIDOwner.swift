import QuireSupport

/// What an ``ObjectID`` keeps alive and names its store by: the store's token and the model the ID's entity
/// belongs to.
///
/// An ID holds its entity without retaining it (copying, comparing and hashing an ID then counts no references to
/// the entity), so something must keep the entity's model alive for as long as the ID exists: the owner, which
/// the ID retains. There is one owner per store (``PersistentStore/idOwner``, every permanent ID of the store
/// shares it), one per coordinator for the temporary IDs its contexts draw, and one per object made outside any
/// context. A model is therefore freed once nothing uses it, object IDs included: no application reference, no
/// coordinator, context, object or ID of it (issue 33).
///
/// `@unchecked Sendable`: every stored property is a constant, and what they refer to is `Sendable`
/// (``ManagedObjectModel`` and ``EntityDescription`` are, once frozen; an editable entity kept here is reached
/// only through the IDs of objects confined to one context's queue).
@usableFromInline package final class ObjectIDOwner: @unchecked Sendable {
    /// The store's ``PersistentStore/token`` (never reused in the process); 0 for temporary and unassigned IDs.
    @usableFromInline package let token: UInt64
    /// The model kept alive: the one the IDs' entities belong to.
    package let model: ManagedObjectModel?
    /// The model's address, compared by ``keeps(_:)``.
    @usableFromInline let modelAddress: UnsafeMutableRawPointer?
    /// An entity kept alive when it belongs to no model (an entity built in code and never added to one).
    private let entity: EntityDescription?
    /// The identifier (`NSStoreUUID`) the store had when it was freed, for its IDs' URIs; nil while it lives.
    private let goneStoreIdentifier = LockedValue<String?>(nil)

    /// An owner of IDs of `model`'s entities, for the store of `token` (0: no store).
    package init(token: UInt64, model: ManagedObjectModel) {
        self.token = token
        self.model = model
        self.modelAddress = Unmanaged.passUnretained(model).toOpaque()
        self.entity = nil
    }

    /// An owner that keeps `entity`'s model alive (the entity itself when it belongs to no model).
    @usableFromInline package init(token: UInt64, keeping entity: EntityDescription) {
        self.token = token
        let model = entity.managedObjectModel
        self.model = model
        self.modelAddress = model.map { Unmanaged.passUnretained($0).toOpaque() }
        self.entity = model == nil ? entity : nil
    }

    /// Records the identifier of the owner's store as it is freed (from the store's `deinit`), so its IDs still
    /// print their URIs; the store's entry in ``StoreHandles`` goes with it, so nothing of the store is kept
    /// for the rest of the process.
    func noteStoreGone(identifier: String) {
        goneStoreIdentifier.withLock { $0 = identifier }
    }

    /// The identifier of the owner's store once it is freed (see ``noteStoreGone(identifier:)``).
    var identifierOfGoneStore: String? { goneStoreIdentifier.withLock { $0 } }

    /// Whether the owner keeps `entity` alive: it belongs to the owner's model (compared by address, without
    /// retaining either).
    @inlinable
    package func keeps(_ entity: EntityDescription) -> Bool {
        entity.frozenModelAddress != nil && entity.frozenModelAddress == modelAddress
    }

    /// `owner` when it keeps `entity` alive, else a new owner of the same token that does.
    @inlinable
    package static func owner(_ owner: ObjectIDOwner, keeping entity: EntityDescription) -> ObjectIDOwner {
        owner.keeps(entity) ? owner : ObjectIDOwner(token: owner.token, keeping: entity)
    }
}
