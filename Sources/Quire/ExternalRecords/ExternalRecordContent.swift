import QuireCore
import QuireStores
import Foundation

/// The bytes of one record file: a property list (XML or binary, as the store's options say) of a dictionary
/// keyed by property name, or no bytes at all for an entity whose records hold no values.
///
/// Values go in as the nearest property-list type, as Core Data exports "simple types directly": strings,
/// integers, Booleans, dates and data as themselves; floating-point and decimal numbers as reals; UUIDs and
/// URIs as strings. A nil value is left out. A relationship is the URI of its related object (a string), or of
/// each related object (an array, in order for an ordered relationship, sorted otherwise).
enum ExternalRecordContent {
    /// The related objects of one stored relationship, once known.
    typealias Related = (relationship: RelationshipDescription, ids: [ObjectID])

    /// Encodes one object's record.
    ///
    /// - Parameters:
    ///   - plan: The entity's plan.
    ///   - attributes: The object's attribute values by slot.
    ///   - related: The related objects of each relationship of `plan.relationships`, in its order.
    ///   - format: The file format.
    ///   - externalData: Reads a value kept in a file beside the store (attribute key, reference).
    /// - Throws: ``QuireError/Code/invalidValue`` when the dictionary cannot be written as a property list.
    static func encode(
        plan: ExternalRecordEntityPlan, attributes: [AttributeValue], related: [Related],
        format: StoreOptions.ExternalRecordFormat, externalData: (String, ExternalDataReference) throws -> Data
    ) throws -> Data {
        guard plan.holdsValues else { return Data() }
        var dictionary: [String: PropertyListValue] = [:]
        for (name, slot) in plan.attributes where slot < attributes.count {
            if let value = try plistValue(attributes[slot], key: name, externalData: externalData) { dictionary[name] = value }
        }
        for (relationship, ids) in related {
            if relationship.isToMany {
                var uris = ids.map { $0.uriRepresentation().absoluteString }
                if !relationship.isOrdered { uris.sort() }
                dictionary[relationship.name] = .array(uris.map { .string($0) })
            } else if let id = ids.first {
                dictionary[relationship.name] = .string(id.uriRepresentation().absoluteString)
            }
        }
        return try PropertyListValue.encode(dictionary, format: format == .xml ? .xml : .binary)
    }

    /// A value as a property-list value, or nil for nil.
    static func plistValue(
        _ value: AttributeValue, key: String, externalData: (String, ExternalDataReference) throws -> Data
    ) throws -> PropertyListValue? {
        switch value {
        case .null: return nil
        case .integer(let v): return .integer(v)
        case .double(let v): return .real(v)
        case .float(let v): return .real(Double(v))
        case .decimal(let v): return .real(NSDecimalNumber(decimal: v).doubleValue)
        case .string(let v): return .string(v)
        case .boolean(let v): return .boolean(v)
        case .date(let v): return .date(v)
        case .data(let v): return .data(v)
        case .uuid(let v): return .string(v.uuidString)
        case .uri(let v): return .string(v.absoluteString)
        case .externalData(let reference): return .data(try externalData(key, reference))
        }
    }
}
