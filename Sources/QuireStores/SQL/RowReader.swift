import QuireCore
import Foundation

/// How to turn a row of an entity's table into a snapshot. A class, so that reading a row retains one
/// object rather than the reader's arrays.
///
/// Part of the engine SPI (`@_spi(QuireEngine)`): its per-row entry points are `@inlinable`, so that an engine's
/// target specializes them for its row source; the fields they read are `@usableFromInline`.
@_spi(QuireEngine) public final class RowReader {
    /// How one attribute's column is read; the common types have a case of their own, read inline.
    @usableFromInline package enum Kind: UInt8 {
        /// A transient attribute: no column, always `.null`.
        case none
        /// A 64-bit integer (any value is in range).
        case integer
        /// A 16- or 32-bit integer, whose value is checked against its type's range.
        case rangedInteger
        case boolean, double, string, date, data
        /// Any other type, or binary data in Core Data's external-storage encoding: read by
        /// `RowReader.readValue(_:from:row:into:)`'s slower path (each store decodes decimals its own way).
        case other
    }
    @usableFromInline package struct AttributeRead {
        @usableFromInline package let column: Int32
        @usableFromInline package let kind: Kind
        @usableFromInline package let type: AttributeType
        @usableFromInline package let external: Bool
        /// The SQLite storage classes the column may hold for the type, one bit per class
        /// (`1 << SQLITE_INTEGER`, …); anything else is a damaged row, never coerced.
        @usableFromInline let storageClasses: Int32
        /// The range of an integer type (the whole of `Int64` for the others).
        @usableFromInline package let minimum: Int64
        @usableFromInline package let maximum: Int64

        /// How one attribute's column is read.
        init(column: Int32, kind: Kind, type: AttributeType, external: Bool) {
            self.column = column
            self.kind = kind
            self.type = type
            self.external = external
            self.storageClasses = SQLStorageClass.allowed(for: type)
            let range = type.integerRange ?? Int64.min...Int64.max
            self.minimum = range.lowerBound
            self.maximum = range.upperBound
        }
    }
    @usableFromInline package struct RelationshipRead {
        @usableFromInline package let foreignKey: Int32
        @usableFromInline package let foreignEntity: Int32
        /// The destination, not retained: plain bits, so a row's loop copies a read without counting a reference.
        /// The store that holds the reader holds the destination's model (the reader's entity's).
        @usableFromInline package let destinationHandle: Unmanaged<EntityDescription>

        /// How one to-one's columns are read.
        init(foreignKey: Int32, foreignEntity: Int32, destination: EntityDescription) {
            self.foreignKey = foreignKey
            self.foreignEntity = foreignEntity
            self.destinationHandle = .passUnretained(destination)
        }

        /// The relationship's destination entity.
        @inlinable package var destination: EntityDescription { destinationHandle.takeUnretainedValue() }
    }
    @usableFromInline package let entity: EntityDescription
    /// The entity's table, named by errors.
    package let tableName: String
    /// Per attribute slot.
    @usableFromInline package let attributes: [AttributeRead]
    /// Per relationship slot; nil for to-many (and transient) relationships.
    @usableFromInline package let relationships: [RelationshipRead?]
    /// The foreign-key columns of the to-one relationships.
    @usableFromInline let foreignKeyColumns: [Int32]

    /// The relationship values of a row whose to-one keys are all NULL: one shared array, so such rows (the
    /// common case for optional relationships) allocate nothing for their relationships.
    @usableFromInline package let unrelated: [RelationshipStorage]

    package init(entity: EntityDescription, tableName: String, attributes: [AttributeRead], relationships: [RelationshipRead?]) {
        self.entity = entity
        self.tableName = tableName
        self.attributes = attributes
        self.relationships = relationships
        self.foreignKeyColumns = relationships.compactMap { $0?.foreignKey }
        self.unrelated = relationships.map { $0 == nil ? .fault : .toOne(nil) }
    }

    package static func kind(of type: AttributeType, external: Bool) -> Kind {
        switch type {
        case .integer64: return .integer
        case .integer16, .integer32: return .rangedInteger
        case .boolean: return .boolean
        case .double: return .double
        case .string: return .string
        case .date: return .date
        case .binaryData, .transformable: return external ? .other : .data
        case .float, .decimal, .uuid, .uri: return .other
        }
    }
}
