import QuireCore
import Foundation

extension ObjectGraphDump {
    /// The dump as JSON with typed values (what `quire dump --json` prints; the schema is in the CLI article):
    /// integers and floating-point numbers as JSON numbers (non-finite ones as the strings `"NaN"`,
    /// `"Infinity"`, `"-Infinity"`), decimals as numbers, Booleans as `true`/`false`, dates as ISO 8601 UTC
    /// strings (with fractional seconds when they have any), binary data (inline or external) as base64,
    /// UUIDs and URIs as strings, nil as `null`; and under `entities` each attribute's type, so that a date
    /// or data string is told from a string. Keys are sorted: the same graph gives the same bytes.
    ///
    /// ```swift
    /// let dump = try ObjectGraphDump(storeAt: url, type: .sqlite, includingValues: true)
    /// FileHandle.standardOutput.write(try dump.typedJSON())
    /// ```
    ///
    /// - Returns: UTF-8 JSON. A dump made without `includingValues` has no values to type: its attributes are
    ///   then its canonical strings.
    /// - Throws: What `JSONSerialization` throws (never for a dump's own values).
    public func typedJSON() throws -> Data {
        let entities = attributeTypes.mapValues { $0.mapValues(\.rawValue) }
        let objects: [[String: Any]] = objects.map { object in
            let attributes: [String: Any] =
                object.values.isEmpty && !object.attributes.isEmpty
                ? object.attributes
                : object.values.mapValues(Self.jsonValue)
            return [
                "key": object.key, "entity": object.entity, "attributes": attributes,
                "relationships": object.relationships,
            ]
        }
        return try JSONSerialization.data(
            withJSONObject: ["formatVersion": 2, "entities": entities, "objects": objects] as [String: Any],
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// The JSON form of a value.
    static func jsonValue(_ value: AttributeValue) -> Any {
        switch value {
        case .null, .externalData: return NSNull()
        case .integer(let v): return v
        case .double(let v): return finite(v)
        case .float(let v): return finite(Double(v))
        case .decimal(let v): return v.isFinite ? NSDecimalNumber(decimal: v) : "NaN"
        case .string(let v): return v
        case .boolean(let v): return v
        case .date(let v): return isoDate(v)
        case .data(let v): return v.base64EncodedString()
        case .uuid(let v): return v.uuidString
        case .uri(let v): return v.absoluteString
        }
    }

    private static func finite(_ value: Double) -> Any {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return value
    }

    /// A date in ISO 8601 UTC, with milliseconds only when it has a fraction of a second.
    static func isoDate(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: seconds != seconds.rounded(.down))
        return date.formatted(style)
    }
}
