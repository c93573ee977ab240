import QuireSupport
import Foundation
import Synchronization

/// The identity of a managed object (`NSManagedObjectID`): its entity, its store and its primary key.
///
/// An object inserted into a context has a temporary ID until its first save, and a permanent one after.
/// IDs are values: `Sendable`, so they carry objects across contexts and threads
/// (`context.object(with: id)`), and `Hashable`.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    package enum Key: Hashable, Sendable {
        case temporary(UInt64)
        case permanent(Int64)
    }

    /// The entity of the object.
    public var entity: EntityDescription { entityHandle.takeUnretainedValue() }
    /// The store the object lives in; `nil` while the ID is temporary, and once its store was removed from its
    /// coordinator or deallocated.
    public var persistentStore: PersistentStore? {
        storeToken == 0 ? nil : StoreHandles.shared.store(for: storeToken)
    }

    // IDs are copied on every fetch, fault and save, so they hold their entity without retaining it
    // (`Unmanaged`: comparing and hashing IDs then use the entity's address without even a passing retain).
    // What keeps the entity alive is the ID's owner (`ObjectIDOwner`), which the ID retains: it holds the
    // entity's model, and the store's token, which `StoreHandles` turns back into the store while it is attached.
    // So an ID never keeps its store alive and never points at a freed one, and a model lives exactly as long as
    // something uses it, its IDs included. One owner serves every permanent ID of a store (one reference count
    // per copy, the same as an entity reference would cost).
    // `@usableFromInline` so that the store's row readers make IDs inline (a fetch makes one per row).
    @usableFromInline let entityHandle: Unmanaged<EntityDescription>
    /// The store's token and the model kept alive; `nil` only for the ID of an object made outside any context
    /// (``unassigned(for:)``), whose entity the object keeps alive itself.
    @usableFromInline let owner: ObjectIDOwner?
    /// The primary key's or the temporary number's bits: the ID is temporary exactly when its store token is 0,
    /// so the kind of key needs no storage of its own (an ID is 24 bytes).
    @usableFromInline let keyBits: UInt64

    /// The store's ``PersistentStore/token`` (never reused in the process); 0 while the ID is temporary.
    @inlinable package var storeToken: UInt64 { owner?.token ?? 0 }

    /// What keeps the ID's entity alive, shared with IDs made from this one (``PackedRow`` rebuilds the IDs it
    /// packs with the owner of the object that holds it).
    @inlinable package var idOwner: ObjectIDOwner? { owner }

    /// The primary key of a permanent ID, or the number of a temporary one.
    package var key: Key {
        storeToken == 0 ? .temporary(keyBits) : .permanent(Int64(bitPattern: keyBits))
    }

    /// The store's identity (its token, never reused in the process, as a pointer-sized key), read without
    /// retaining or looking up the store; `nil` while the ID is temporary. What the object registry keys its
    /// tables by.
    package var storeAddress: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: UInt(storeToken)) }

    /// Whether the ID is a permanent ID of `store` (a comparison of tokens, without looking the store up).
    package func isStored(in store: PersistentStore) -> Bool { storeToken == store.token }

    /// Whether the ID is permanent and its store was removed from its coordinator or is gone.
    package var storeWasRemoved: Bool { storeToken != 0 && persistentStore == nil }

    /// Runs `body` with the ID's entity, without retaining it (an object made for a fetched row).
    @inline(__always)
    package func withEntity<Result>(_ body: (EntityDescription) -> Result) -> Result {
        // Safe: the ID's owner keeps the entity's model alive (an unassigned ID's entity is kept by the caller's
        // object), and `self` is alive for the call.
        entityHandle._withUnsafeGuaranteedRef(body)
    }

    /// The address of the entity's hierarchy root, as an identity read without retaining the entity.
    package var rootEntityAddress: UnsafeMutableRawPointer {
        entityHandle._withUnsafeGuaranteedRef { $0.rootEntityAddress }
    }

    /// A permanent ID; inlinable, as the stores make one for every row they read.
    @inlinable
    package init(entity: EntityDescription, store: PersistentStore, primaryKey: Int64) {
        self.entityHandle = .passUnretained(entity)
        // The store's owner keeps every entity of the store's model (one retain); an entity of another model
        // (an ID of one store named in a fetch of another) gets an owner of its own.
        let owner = store.idOwner
        self.owner = owner.keeps(entity) ? owner : ObjectIDOwner(token: owner.token, keeping: entity)
        self.keyBits = UInt64(bitPattern: primaryKey)
    }

    /// An ID of the same key with another owner of the same store (``PackedRow``'s rebuilt to-one IDs); inlinable,
    /// as a fetch's row reader makes one per row with the owner it found for the fetch's first row.
    @inlinable
    package init(entity: EntityDescription, owner: ObjectIDOwner?, keyBits: UInt64) {
        self.entityHandle = .passUnretained(entity)
        self.owner = owner
        self.keyBits = keyBits
    }

    private init(temporaryFor entity: EntityDescription, number: UInt64, owner: ObjectIDOwner?) {
        self.entityHandle = .passUnretained(entity)
        self.owner = owner
        self.keyBits = number
    }

    private static let temporaryCounter = Atomic<UInt64>(0)
    private static let processToken = UUID().uuidString

    /// The ID of an object not inserted into any context yet (temporary, number 0, never registered). With
    /// `keepingAlive`, the ID keeps the entity's model alive (an object made outside a context and kept by the
    /// application); without, the object keeps its entity alive until a context gives it a temporary ID.
    package static func unassigned(for entity: EntityDescription, keepingAlive: Bool = false) -> ObjectID {
        ObjectID(temporaryFor: entity, number: 0, owner: keepingAlive ? ObjectIDOwner(token: 0, keeping: entity) : nil)
    }

    /// Whether this is the ID of an object not inserted anywhere yet.
    package var isUnassigned: Bool { storeToken == 0 && keyBits == 0 }

    /// A new temporary ID for an object being inserted, owned by `owner` (a coordinator's
    /// ``ObjectIDOwner`` of token 0) when it keeps the entity's model alive, else by a new owner that does.
    package static func makeTemporary(for entity: EntityDescription, owner: ObjectIDOwner? = nil) -> ObjectID {
        let number = temporaryCounter.add(1, ordering: .relaxed).newValue
        let kept = owner.map { ObjectIDOwner.owner($0, keeping: entity) } ?? ObjectIDOwner(token: 0, keeping: entity)
        return ObjectID(temporaryFor: entity, number: number, owner: kept)
    }

    /// Whether the ID is temporary (the object has not been saved yet).
    public var isTemporaryID: Bool { storeToken == 0 }

    /// The primary key (`Z_PK`) of a permanent ID.
    public var primaryKey: Int64? { storeToken == 0 ? nil : Int64(bitPattern: keyBits) }

    /// The ID as a URI: `x-coredata://<store UUID>/<Entity>/p<pk>`, or `x-coredata:///<Entity>/t<token>` while
    /// temporary, as in Core Data. ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)``
    /// turns it back into an ID.
    public func uriRepresentation() -> URL {
        let text: String
        switch key {
        case .permanent(let pk):
            let store = StoreHandles.shared.identifier(for: storeToken) ?? owner?.identifierOfGoneStore ?? ""
            text = "x-coredata://\(store)/\(entity.name)/p\(pk)"
        case .temporary(let number):
            text = "x-coredata:///\(entity.name)/t\(Self.processToken)\(number)"
        }
        // Entity names are identifiers and the store UUID is hex, so the URL is always valid.
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// Two IDs are equal when they name the same record: the same key in the same store and entity hierarchy.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.keyBits == rhs.keyBits && (lhs.owner === rhs.owner || lhs.storeToken == rhs.storeToken)
            && (lhs.entityHandle.toOpaque() == rhs.entityHandle.toOpaque() || lhs.rootEntityAddress == rhs.rootEntityAddress)
    }

    /// Whether two IDs are one value bit for bit (one a copy of the other): then they are equal (``==``), and
    /// that is checked inline, without a call or a copy of either ID. IDs that are not identical may still be
    /// equal (two owners of one store's token, an entity and its copy): ask ``==`` for those.
    @inlinable @inline(__always)
    package func isIdentical(to other: ObjectID) -> Bool {
        keyBits == other.keyBits && owner === other.owner && entityHandle.toOpaque() == other.entityHandle.toOpaque()
    }

    /// Hashes the key and store.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keyBits)
        if storeToken != 0 { hasher.combine(storeToken) }
    }

    /// The hash value sets and dictionaries use (`Hashable`'s hidden requirement, which the standard library's
    /// own integer types implement): the key and the store's token folded into one word and mixed with the
    /// table's seed by `identityHash(_:seed:)`, about a tenth of the work of a `Hasher` fed two words and
    /// finalized. A save's ``ContextDidSave`` hashes every saved object's ID once; so does every dictionary keyed
    /// by IDs.
    ///
    /// Equal IDs have equal keys and tokens, so equal hashes. The token (small, never reused in a process) is
    /// spread over the high bits by an odd multiplier, so the IDs of one store differ in their keys' bits and
    /// IDs of two stores with the same key differ in the high bits: folding makes no collision among real keys.
    public func _rawHashValue(seed: Int) -> Int {
        identityHash(keyBits ^ (storeToken &* 0x9E37_79B9_7F4A_7C15), seed: seed)
    }

    /// The URI representation as text.
    public var description: String { uriRepresentation().absoluteString }
}
