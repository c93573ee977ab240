import QuireCore
import QuireStores
import Foundation

/// The ``EntityMigrationPolicy`` classes a migration can make, by the class names mapping models give them.
///
/// Core Data makes a mapping's policy with `NSClassFromString(entityMigrationPolicyClassName)`; Swift on Linux
/// cannot look classes up by name, so the application registers its policies, under the names its mapping models
/// use: `"Migrations.Country5ToCountry6Policy"` (a Swift class, `<Module>.<Class>`) or `"MHWBookToBookPolicy"` (an
/// Objective-C one).
///
/// ```swift
/// EntityMigrationPolicyRegistry.shared.register(Country5ToCountry6Policy.self, as: "Migrations.Country5ToCountry6Policy")
/// ```
///
/// A migration whose mapping model names a class nobody registered is refused before anything is written, naming
/// the entity mapping and the class. Migrations use ``shared`` unless given another registry
/// (``MigrationManager/policyRegistry``).
public final class EntityMigrationPolicyRegistry: Sendable {
    /// The registry migrations use by default.
    public static let shared = EntityMigrationPolicyRegistry()

    private let factories = LockedValue<[String: @Sendable () -> EntityMigrationPolicy]>([:])

    /// Creates an empty registry.
    public init() {}

    /// Registers a policy class under a name; a later registration under the same name replaces it.
    ///
    /// - Parameters:
    ///   - type: The class; the migration makes it with `init()`.
    ///   - name: The class name as the mapping model writes it.
    public func register<Policy: EntityMigrationPolicy>(_ type: Policy.Type, as name: String) {
        factories.withLock { $0[name] = { Policy() } }
    }

    /// Registers a function that makes the policy for a name (for a policy that needs arguments).
    ///
    /// - Parameters:
    ///   - name: The class name as the mapping model writes it.
    ///   - make: Makes a policy object; called once per entity mapping per migration.
    public func register(_ name: String, _ make: @escaping @Sendable () -> EntityMigrationPolicy) {
        factories.withLock { $0[name] = make }
    }

    /// Removes a registration.
    public func unregister(_ name: String) {
        factories.withLock { $0[name] = nil }
    }

    /// The registered names.
    public var registeredNames: [String] { factories.withLock { $0.keys.sorted() } }

    /// A new policy object for a class name, or nil when none is registered under it.
    public func makePolicy(named name: String) -> EntityMigrationPolicy? {
        factories.withLock { $0[name] }?()
    }
}
