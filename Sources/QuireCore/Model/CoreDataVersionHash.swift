import QuireSupport
import Foundation

/// Core Data's version hashes (`NSStoreModelVersionHashes`), byte for byte: what Core Data computes for an entity
/// and its properties, so a store written by Core Data and its model agree with Quire's hashes, and stores Quire
/// writes carry the hashes Core Data expects.
///
/// All strings are UTF-8 without terminator or length; integers are little-endian; `?` parts only when set:
///
/// ```text
/// P(p) = SHA256( name ‖ u16(isOptional | isTransient<<1 | isReadOnly<<2) ‖ versionHashModifier? )
/// A(a) = SHA256( P(a) ‖ i32(NSAttributeType) ‖ [0x01 if allowsExternalBinaryDataStorage]
///                ‖ [0x01 if preservesValueInHistoryOnDeletion] )
/// R(r) = SHA256( P(r) ‖ destination name ‖ inverse name? ‖ u32(maxCount) ‖ u32(minCount) ‖ [u16(1) if ordered] )
/// E(e) = SHA256( name ‖ u8(isAbstract) ‖ E(superentity)? ‖ Σ H(p) over the persistent attributes and
///                relationships, inherited ones included, by name (UTF-16 order) ‖ versionHashModifier?
///                ‖ Σ sorted(constraint names joined by ".") for the uniqueness constraints )
/// ```
///
/// Established on real Core Data files (69 of 69 stored hashes reproduced, Core Data 241 to 1344): see
/// <doc:SQLiteStoreFormat>. A derived attribute hashes its expression alone, `D(a) = SHA256(predicateFormat)`
/// (`count:(pages)`), so `isReadOnly` (set only on derived attributes) never reaches a hash.
/// A composite attribute hashes its elements, `C(c)` (see `hash(of:)` for composites; unconfirmed by a real file).
/// Fetch indexes, user info, class names, defaults, validation, delete rules and renaming identifiers do not
/// take part.
package enum CoreDataVersionHash {
    /// `P(p)`: the part every property shares.
    static func property(_ property: PropertyDescription) -> Data {
        var bytes = Data(property.name.utf8)
        let flags: UInt16 = (property.isOptional ? 1 : 0) | (property.isTransient ? 2 : 0)
        append(flags, to: &bytes)
        if let modifier = property.versionHashModifier { bytes.append(contentsOf: modifier.utf8) }
        return Data(SHA256.hash(bytes))
    }

    /// The hash of an attribute (`A`), a relationship (`R`), or any other property (`P`).
    package static func hash(of property: PropertyDescription) -> Data {
        if let composite = property as? CompositeAttributeDescription { return hash(of: composite) }
        if let attribute = property as? AttributeDescription, let derivation = attribute.derivationExpression {
            // A derived attribute hashes its compiled expression only: D(a) = SHA256(predicateFormat).
            let format = DerivationExpression(derivation)?.predicateFormat ?? derivation
            return Data(SHA256.hash(Data(format.utf8)))
        }
        var bytes = self.property(property)
        if let attribute = property as? AttributeDescription {
            append(Int32(attribute.attributeType.coreDataCode), to: &bytes)
            if attribute.allowsExternalBinaryDataStorage { bytes.append(1) }
            if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
        } else if let relationship = property as? RelationshipDescription {
            bytes.append(contentsOf: relationship.destinationEntityName.utf8)
            // A relationship that is its own inverse leaves the inverse out.
            if let inverse = relationship.inverseRelationshipName,
                !(inverse == relationship.name && relationship.destinationEntityName == relationship.entity?.name)
            {
                bytes.append(contentsOf: inverse.utf8)
            }
            append(UInt32(truncatingIfNeeded: relationship.maxCount), to: &bytes)
            append(UInt32(truncatingIfNeeded: relationship.minCount), to: &bytes)
            if relationship.isOrdered { append(UInt16(1), to: &bytes) }
        } else {
            return bytes
        }
        return Data(SHA256.hash(bytes))
    }

    /// `C(c)`, a composite attribute: SHA256 over `A` of each persistent element attribute, nested ones flattened, by
    /// element name; the composite's own name and flags take no part. This follows a public decompilation of Core
    /// Data's `-[NSCompositeAttributeDescription _versionHash:inStyle:]` (iOS 18); no real Core Data file with a
    /// composite confirms it yet.
    static func hash(of composite: CompositeAttributeDescription) -> Data {
        let elements = composite.flattenedElements().map(\.element)
            .filter { $0 is AttributeDescription && !$0.isTransient }
            .sorted { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) }
        var bytes = Data()
        for element in elements { bytes.append(hash(of: element)) }
        return Data(SHA256.hash(bytes))
    }

    /// `E(e)`.
    package static func hash(of entity: EntityDescription) -> Data {
        var bytes = Data(entity.name.utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let parent = entity.superentity { bytes.append(hash(of: parent)) }
        let persistent = entity.propertiesByName.values
            .filter {
                !$0.isTransient && ($0 is AttributeDescription || $0 is RelationshipDescription || $0 is CompositeAttributeDescription)
            }
            .sorted { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) }
        for property in persistent { bytes.append(hash(of: property)) }
        if let modifier = entity.versionHashModifier { bytes.append(contentsOf: modifier.utf8) }
        let constraints = entity.uniquenessConstraints.map { $0.joined(separator: ".") }
            .sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
        for constraint in constraints { bytes.append(contentsOf: constraint.utf8) }
        return Data(SHA256.hash(bytes))
    }

    /// `NSStoreModelVersionChecksumKey`: base64 of SHA-256 over the entity hashes, by entity name.
    package static func checksum(_ hashes: [String: Data]) -> String {
        var bytes = Data()
        for name in sortedNames(hashes) { bytes.append(hashes[name] ?? Data()) }
        return Data(SHA256.hash(bytes)).base64EncodedString()
    }

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over each entity's name and hash, by entity name.
    package static func digest(_ hashes: [String: Data]) -> String {
        var bytes = Data()
        for name in sortedNames(hashes) {
            bytes.append(contentsOf: name.utf8)
            bytes.append(hashes[name] ?? Data())
        }
        return SHA512.hash(bytes).base64EncodedString()
    }

    /// Entity names in code-point order.
    private static func sortedNames(_ hashes: [String: Data]) -> [String] {
        hashes.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
    }

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
