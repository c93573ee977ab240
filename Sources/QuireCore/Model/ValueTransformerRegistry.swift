import QuireSupport
import Foundation

/// Turns the values of a transformable attribute into bytes and back (Core Data's `ValueTransformer`).
///
/// ```swift
/// struct ColorTransformer: AttributeValueTransformer {
///     func transformedValue(_ value: Any) throws -> Data { try JSONEncoder().encode(value as! Color) }
///     func reverseTransformedValue(_ data: Data) throws -> Any { try JSONDecoder().decode(Color.self, from: data) }
/// }
/// ValueTransformerRegistry.register(ColorTransformer(), forName: "ColorTransformer")
/// ```
public protocol AttributeValueTransformer: Sendable {
    /// Turns a value into the bytes a store keeps.
    func transformedValue(_ value: Any) throws -> Data
    /// Turns stored bytes back into the value.
    func reverseTransformedValue(_ data: Data) throws -> Any
}

/// The named value transformers transformable attributes use (`ValueTransformer.setValueTransformer(_:forName:)`).
///
/// An attribute with no transformer name uses ``defaultTransformerName``, which stores property-list values
/// (strings, numbers, dates, data, arrays and dictionaries of them) as a binary property list.
public enum ValueTransformerRegistry {
    /// The transformer used when an attribute names none.
    public static let defaultTransformerName = "PropertyListTransformer"

    private static let transformers = LockedValue<[String: any AttributeValueTransformer]>(
        [defaultTransformerName: PropertyListTransformer()])

    /// Registers a transformer under a name, replacing any other of that name.
    public static func register(_ transformer: any AttributeValueTransformer, forName name: String) {
        transformers.withLock { $0[name] = transformer }
    }

    /// The transformer registered under a name.
    public static func transformer(forName name: String) -> (any AttributeValueTransformer)? {
        transformers.withLock { $0[name] }
    }

    /// The names attributes asked for while no transformer was registered under them, so that the default
    /// transformer stood in (see ``transformer(for:)``).
    public static var unregisteredNamesUsed: Set<String> { fallbacks.withLock { $0 } }

    private static let fallbacks = LockedValue<Set<String>>([])

    /// The transformer of a transformable attribute: the one registered under its `valueTransformerName`, or the
    /// default one when the attribute names none.
    ///
    /// When the attribute names a transformer that is not registered, the default transformer stands in, as Core
    /// Data falls back to its default transformer: the first time a name is missed, a note naming it and the
    /// attribute goes to standard error, and the name joins ``unregisteredNamesUsed``. Register the transformer
    /// before the attribute is first used (as the application does on the Mac) to store values its way.
    public static func transformer(for attribute: AttributeDescription) -> any AttributeValueTransformer {
        let name = attribute.valueTransformerName ?? defaultTransformerName
        if let transformer = transformer(forName: name) { return transformer }
        let first = fallbacks.withLock { $0.insert(name).inserted }
        if first {
            let owner = attribute.entity.map { "'\($0.name).\(attribute.name)'" } ?? "'\(attribute.name)'"
            FileHandle.standardError.write(Data(
                ("Quire note: no value transformer is registered under '\(name)' (attribute \(owner)); the default "
                    + "transformer (\(defaultTransformerName)) stands in, as Core Data falls back to its default.\n").utf8))
        }
        return transformer(forName: defaultTransformerName) ?? PropertyListTransformer()
    }
}

/// Stores property-list values as a binary property list.
struct PropertyListTransformer: AttributeValueTransformer {
    func transformedValue(_ value: Any) throws -> Data {
        // Wrap in an array so plain strings and numbers, which are not valid plist roots in every
        // implementation, round-trip too.
        do {
            return try PropertyListSerialization.data(fromPropertyList: [value], format: .binary, options: 0)
        } catch {
            throw QuireError(.invalidValue, "The value \(value) is not a property-list value.")
        }
    }

    func reverseTransformedValue(_ data: Data) throws -> Any {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw QuireError(.fileReadCorruptFile, "A transformable value is not a valid property list.")
        }
        guard let array = object as? [Any], let first = array.first else {
            throw QuireError(.fileReadCorruptFile, "A transformable value is not a property list this transformer wrote.")
        }
        return first
    }
}
