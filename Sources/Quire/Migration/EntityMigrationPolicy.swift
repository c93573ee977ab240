import QuireCore
import QuireStores
import Foundation

/// Custom code for one entity mapping (`NSEntityMigrationPolicy`): subclass it, override the steps you need,
/// and register the class under the name the mapping model gives it (``EntityMapping/entityMigrationPolicyClassName``,
/// Xcode's "Custom Policy") in ``EntityMigrationPolicyRegistry``.
///
/// ```swift
/// final class Country5ToCountry6Policy: EntityMigrationPolicy {
///     override func createDestinationInstances(
///         forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
///     ) throws {
///         try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
///         guard let code = sInstance.value(forKey: "isoContinent") as? Int16,
///             let country = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first
///         else { return }
///         country.setValue(try continent(code, in: manager.destinationContext), forKey: "continent")
///     }
/// }
/// EntityMigrationPolicyRegistry.shared.register(Country5ToCountry6Policy.self, as: "Migrations.Country5ToCountry6Policy")
/// ```
///
/// A migration whose mapping model names a policy class runs Core Data's three stages on managed objects, in
/// two private contexts (``MigrationManager/sourceContext`` on the store being migrated, read-only, and
/// ``MigrationManager/destinationContext`` on the new store), one policy object per entity mapping:
///
/// 1. for each entity mapping, in order: ``begin(_:with:)``, then ``createDestinationInstances(forSource:in:manager:)``
///    for each source object of the mapping's source entity (its sub-entities have mappings of their own) that
///    passes the mapping's ``EntityMapping/sourceFilter``, then ``endInstanceCreation(forMapping:manager:)``;
/// 2. for each entity mapping: ``createRelationships(forDestination:in:manager:)`` for each destination object
///    associated with the mapping, then ``endRelationshipCreation(forMapping:manager:)``;
/// 3. for each entity mapping: ``performCustomValidation(forMapping:manager:)``; then ``end(_:manager:)``; then the
///    destination context is saved, which validates every object.
///
/// The policy and the contexts are used on the migration's thread only, inside both contexts' blocks: read and
/// change objects directly, without `perform`. Throwing from any step stops the migration with
/// ``QuireError/Code/entityMigrationPolicy`` (the thrown error as underlying cause) and leaves the store as it was.
open class EntityMigrationPolicy {
    /// Creates a policy; the migration makes one per entity mapping that names the class.
    public required init() {}

    /// Called before the mapping's first object (`begin(_:with:)`).
    open func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {}

    /// Makes the destination objects for one source object (`createDestinationInstances(forSource:in:manager:)`).
    ///
    /// The default inserts one object of the mapping's destination entity into ``MigrationManager/destinationContext``,
    /// gives it the attribute values the mapping's expressions compute (the others keep their defaults), and
    /// associates it with the source object (``MigrationManager/associate(sourceInstance:withDestinationInstance:for:)``).
    /// An override may make any number of objects, or none; objects it wants relationships made for in stage 2
    /// must be associated with the mapping.
    open func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        try manager.createDefaultDestinationInstance(forSource: sInstance, in: mapping, policy: self)
    }

    /// Called after the mapping's last source object (`endInstanceCreation(forMapping:manager:)`).
    open func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Makes the relationships of one destination object (`createRelationships(forDestination:in:manager:)`).
    ///
    /// The default sets each relationship the mapping has an expression for, from the source object the
    /// destination object was made from: the destination objects migrated from the objects the expression
    /// gives. Relationships without an expression keep what stage 1 gave them.
    open func createRelationships(forDestination dInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        try manager.createDefaultRelationships(forDestination: dInstance, in: mapping, policy: self)
    }

    /// Called after the mapping's last destination object got its relationships (`endRelationshipCreation(forMapping:manager:)`).
    open func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Checks the mapping's destination objects before the new store is saved (`performCustomValidation(forMapping:manager:)`);
    /// throw to refuse the migration. The save validates every object against the model afterwards.
    open func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Called once the mapping is done, before the new store is saved (`end(_:manager:)`).
    open func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Answers `FUNCTION($entityPolicy, "<selector>", <arguments>…)` in the mapping's value expressions (Core Data
    /// calls the method the selector names; Swift on Linux has no such lookup, so the policy answers by name).
    ///
    /// ```swift
    /// override func evaluateFunction(_ selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
    ///     guard selector == "fullName:last:" else { return try super.evaluateFunction(selector, arguments: arguments, manager: manager) }
    ///     return "\(arguments[0] ?? "") \(arguments[1] ?? "")"
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - selector: The selector as the expression writes it.
    ///   - arguments: The arguments' values: attribute values as ``ManagedObject/value(forKey:)`` gives them,
    ///     objects, or arrays of either.
    ///   - manager: The running migration.
    /// - Returns: The value (an attribute value, an object, or a collection of objects for a relationship).
    /// - Throws: By default ``QuireError/Code/entityMigrationPolicy`` naming the selector and the class.
    open func evaluateFunction(_ selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
        throw QuireError(
            .entityMigrationPolicy,
            "The migration policy \(type(of: self)) does not answer the function '\(selector)' its mapping's expressions call; "
                + "override evaluateFunction(_:arguments:manager:).")
    }
}
