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

    // IDs are copied on every fetch, fault and save, so they hold their entity without retaining it (a frozen
    // model lives for the rest of the process; see `ManagedObjectModel.freeze()`; models read from stores are
    // interned by content, see `ManagedObjectModel.interned()`) and their store as a token that `StoreHandles`
    // turns back into the store while it is attached: an ID never keeps its store alive and never points at a
    // freed one. `Unmanaged` rather than `unowned(unsafe)`: comparing and hashing IDs then use the entity's
    // address and the store's token without even a passing retain.
    // `@usableFromInline` so that the store's row readers make IDs inline (a fetch makes one per row).
    @usableFromInline let entityHandle: Unmanaged<EntityDescription>
    /// The store's ``PersistentStore/token`` (never reused in the process); 0 while the ID is temporary.
    @usableFromInline let storeToken: UInt64
    /// The primary key's or the temporary number's bits: the ID is temporary exactly when `storeToken` is 0, so
    /// the kind of key needs no storage of its own (an ID is 24 bytes, not 32).
    @usableFromInline let keyBits: UInt64

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

    /// The address of the entity's hierarchy root, as an identity read without retaining the entity.
    package var rootEntityAddress: UnsafeMutableRawPointer {
        entityHandle._withUnsafeGuaranteedRef { $0.rootEntityAddress }
    }

    /// A permanent ID; inlinable, as the stores make one for every row they read.
    @inlinable
    package init(entity: EntityDescription, store: PersistentStore, primaryKey: Int64) {
        self.entityHandle = .passUnretained(entity)
        self.storeToken = store.token
        self.keyBits = UInt64(bitPattern: primaryKey)
    }

    private init(temporaryFor entity: EntityDescription, number: UInt64) {
        self.entityHandle = .passUnretained(entity)
        self.storeToken = 0
        self.keyBits = number
    }

    private static let temporaryCounter = Atomic<UInt64>(0)
    private static let processToken = UUID().uuidString

    /// The ID of an object not inserted into any context yet (temporary, number 0, never registered).
    package static func unassigned(for entity: EntityDescription) -> ObjectID {
        ObjectID(temporaryFor: entity, number: 0)
    }

    /// Whether this is the ID of an object not inserted anywhere yet.
    package var isUnassigned: Bool { storeToken == 0 && keyBits == 0 }

    /// A new temporary ID for an object being inserted.
    package static func makeTemporary(for entity: EntityDescription) -> ObjectID {
        let number = temporaryCounter.add(1, ordering: .relaxed).newValue
        return ObjectID(temporaryFor: entity, number: number)
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
            text = "x-coredata://\(StoreHandles.shared.identifier(for: storeToken) ?? "")/\(entity.name)/p\(pk)"
        case .temporary(let number):
            text = "x-coredata:///\(entity.name)/t\(Self.processToken)\(number)"
        }
        // Entity names are identifiers and the store UUID is hex, so the URL is always valid.
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// Two IDs are equal when they name the same record: the same key in the same store and entity hierarchy.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.keyBits == rhs.keyBits && lhs.storeToken == rhs.storeToken
            && (lhs.entityHandle.toOpaque() == rhs.entityHandle.toOpaque() || lhs.rootEntityAddress == rhs.rootEntityAddress)
    }

    /// Hashes the key and store.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keyBits)
        if storeToken != 0 { hasher.combine(storeToken) }
    }

    /// The URI representation as text.
    public var description: String { uriRepresentation().absoluteString }
}
