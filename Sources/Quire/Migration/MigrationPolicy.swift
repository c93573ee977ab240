import QuireCore
import QuireStores
import Foundation

/// Custom code in a migration (`NSEntityMigrationPolicy`), attached to an ``EntityMapping``.
///
/// ```swift
/// struct UppercaseTags: MigrationPolicy {
///     func createDestinationValues(
///         forSource source: MigrationSourceObject, proposedValues: [String: AttributeValue],
///         mapping: EntityMapping, manager: MigrationManager
///     ) throws -> [String: AttributeValue]? {
///         var values = proposedValues
///         if case .string(let name)? = source["name"] { values["name"] = .string(name.uppercased()) }
///         return values
///     }
/// }
/// ```
///
/// Every method has a default that does nothing special; throwing from any of them stops the migration and
/// leaves the source store as it was.
public protocol MigrationPolicy: Sendable {
    /// Called before the mapping's first object.
    func begin(_ mapping: EntityMapping, manager: MigrationManager) throws

    /// The destination attribute values for one source object, or nil to leave the object out.
    ///
    /// - Parameters:
    ///   - source: The source object.
    ///   - proposedValues: The values the property mappings computed, by destination attribute name.
    ///   - mapping: The entity mapping.
    ///   - manager: The running migration.
    /// - Returns: The values to store (missing attributes get their default), or nil to drop the object.
    func createDestinationValues(
        forSource source: MigrationSourceObject, proposedValues: [String: AttributeValue], mapping: EntityMapping,
        manager: MigrationManager
    ) throws -> [String: AttributeValue]?

    /// Called after the mapping's last object.
    func end(_ mapping: EntityMapping, manager: MigrationManager) throws
}

extension MigrationPolicy {
    /// Does nothing.
    public func begin(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Returns the proposed values unchanged.
    public func createDestinationValues(
        forSource source: MigrationSourceObject, proposedValues: [String: AttributeValue], mapping: EntityMapping,
        manager: MigrationManager
    ) throws -> [String: AttributeValue]? {
        proposedValues
    }

    /// Does nothing.
    public func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}
}
