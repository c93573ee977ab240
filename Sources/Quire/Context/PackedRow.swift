import QuireCore
import Foundation

/// The row a fault keeps from the fetch that made it (where Core Data's row cache would keep it), packed into
/// one allocation: its values' bytes one after another, strings and data inline, instead of an array of
/// ``AttributeValue``s with a separate allocation for every string and data value. A fault of the benchmark's
/// entity holds about 270 bytes of row this way, against about 730 as arrays.
///
/// Firing the fault unpacks it into the object's arrays. A row with a value the packing does not cover
/// (decimals, UUIDs, URIs, external data references, loaded to-many sets) keeps its arrays as they came.
final class PackedRow: ManagedBuffer<PackedRow.Header, UInt8> {
    /// What the allocation holds besides the bytes.
    struct Header {
        /// The coordinator's held-row generation when the row was kept (see `heldRowIsCurrent`).
        let generation: Int
        /// The row as it came, when it has a value the packing does not cover; `nil` when packed.
        let unpacked: Unpacked?
        /// The number of attribute and relationship values packed.
        let attributeCount: UInt16
        let relationshipCount: UInt16
    }

    /// A row kept as arrays.
    final class Unpacked {
        let attributes: [AttributeValue]
        let relationships: [RelationshipStorage]

        init(attributes: [AttributeValue], relationships: [RelationshipStorage]) {
            self.attributes = attributes
            self.relationships = relationships
        }
    }

    /// What each packed value is: one byte, then its payload (8 bytes for numbers and dates, a 4-byte length
    /// and the bytes for strings and data, an ``ObjectID``'s bytes for a to-one, nothing for the others).
    private enum Tag: UInt8 {
        case null, integer, double, float, booleanTrue, booleanFalse, date, string, data
        case relationshipFault, toOneNone, toOne
    }

    /// Keeps a row's values, packed when every value can be.
    static func make(attributes: [AttributeValue], relationships: [RelationshipStorage], generation: Int) -> PackedRow {
        guard attributes.count <= Int(UInt16.max), relationships.count <= Int(UInt16.max),
            let size = packedSize(attributes, relationships)
        else {
            let kept = Unpacked(attributes: attributes, relationships: relationships)
            let row = create(minimumCapacity: 0) { _ in
                Header(generation: generation, unpacked: kept, attributeCount: 0, relationshipCount: 0)
            }
            return unsafeDowncast(row, to: PackedRow.self)
        }
        let row = unsafeDowncast(
            create(minimumCapacity: size) { _ in
                Header(
                    generation: generation, unpacked: nil, attributeCount: UInt16(attributes.count),
                    relationshipCount: UInt16(relationships.count))
            }, to: PackedRow.self)
        row.withUnsafeMutablePointerToElements { start in
            var cursor = UnsafeMutableRawPointer(start)
            for value in attributes { pack(value, at: &cursor) }
            for value in relationships { pack(value, at: &cursor) }
        }
        return row
    }

    /// The bytes the values take packed, or `nil` when one of them cannot be packed.
    private static func packedSize(_ attributes: [AttributeValue], _ relationships: [RelationshipStorage]) -> Int? {
        var size = attributes.count + relationships.count
        for value in attributes {
            switch value {
            case .null, .boolean: break
            case .integer, .double, .date: size += 8
            case .float: size += 4
            case .string(var text):
                let count = text.withUTF8 { $0.count }
                guard count <= Int(UInt32.max) else { return nil }
                size += 4 + count
            case .data(let bytes):
                guard bytes.count <= Int(UInt32.max) else { return nil }
                size += 4 + bytes.count
            case .decimal, .uuid, .uri, .externalData: return nil
            }
        }
        for value in relationships {
            switch value {
            case .fault, .toOne(nil): break
            case .toOne: size += MemoryLayout<ObjectID>.size
            case .toMany, .ordered: return nil
            }
        }
        return size
    }

    private static func put<T>(_ value: T, at cursor: inout UnsafeMutableRawPointer) {
        cursor.storeBytes(of: value, toByteOffset: 0, as: T.self)
        cursor += MemoryLayout<T>.size
    }

    private static func put(_ tag: Tag, at cursor: inout UnsafeMutableRawPointer) {
        put(tag.rawValue, at: &cursor)
    }

    private static func pack(_ value: AttributeValue, at cursor: inout UnsafeMutableRawPointer) {
        switch value {
        case .integer(let number):
            put(.integer, at: &cursor)
            put(number, at: &cursor)
        case .double(let number):
            put(.double, at: &cursor)
            put(number, at: &cursor)
        case .float(let number):
            put(.float, at: &cursor)
            put(number, at: &cursor)
        case .boolean(let flag):
            put(flag ? .booleanTrue : .booleanFalse, at: &cursor)
        case .date(let date):
            put(.date, at: &cursor)
            put(date.timeIntervalSinceReferenceDate, at: &cursor)
        case .string(var text):
            put(.string, at: &cursor)
            text.withUTF8 { utf8 in
                put(UInt32(utf8.count), at: &cursor)
                if let base = utf8.baseAddress { cursor.copyMemory(from: base, byteCount: utf8.count) }
                cursor += utf8.count
            }
        case .data(let bytes):
            put(.data, at: &cursor)
            put(UInt32(bytes.count), at: &cursor)
            bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress { cursor.copyMemory(from: base, byteCount: raw.count) }
            }
            cursor += bytes.count
        case .null, .decimal, .uuid, .uri, .externalData:
            // Only `.null` reaches here: `packedSize` refuses the others.
            put(.null, at: &cursor)
        }
    }

    private static func pack(_ value: RelationshipStorage, at cursor: inout UnsafeMutableRawPointer) {
        switch value {
        case .toOne(let id?):
            put(.toOne, at: &cursor)
            put(id, at: &cursor)
        case .toOne(nil):
            put(.toOneNone, at: &cursor)
        case .fault, .toMany, .ordered:
            // Only `.fault` reaches here: `packedSize` refuses the others.
            put(.relationshipFault, at: &cursor)
        }
    }

    private static func take<T>(_ type: T.Type, at cursor: inout UnsafeRawPointer) -> T {
        let value = cursor.loadUnaligned(as: T.self)
        cursor += MemoryLayout<T>.size
        return value
    }

    /// The row's values as the arrays an object holds.
    func unpacked() -> (attributes: [AttributeValue], relationships: [RelationshipStorage]) {
        let header = self.header
        if let kept = header.unpacked { return (kept.attributes, kept.relationships) }
        return withUnsafeMutablePointerToElements { start in
            var cursor = UnsafeRawPointer(start)
            let attributes = (0..<Int(header.attributeCount)).map { _ -> AttributeValue in
                switch Tag(rawValue: Self.take(UInt8.self, at: &cursor)) {
                case .integer: return .integer(Self.take(Int64.self, at: &cursor))
                case .double: return .double(Self.take(Double.self, at: &cursor))
                case .float: return .float(Self.take(Float.self, at: &cursor))
                case .booleanTrue: return .boolean(true)
                case .booleanFalse: return .boolean(false)
                case .date: return .date(Date(timeIntervalSinceReferenceDate: Self.take(Double.self, at: &cursor)))
                case .string:
                    let count = Int(Self.take(UInt32.self, at: &cursor))
                    defer { cursor += count }
                    return .string(String(decoding: UnsafeRawBufferPointer(start: cursor, count: count), as: UTF8.self))
                case .data:
                    let count = Int(Self.take(UInt32.self, at: &cursor))
                    defer { cursor += count }
                    return .data(count == 0 ? Data() : Data(bytes: cursor, count: count))
                default: return .null
                }
            }
            let relationships = (0..<Int(header.relationshipCount)).map { _ -> RelationshipStorage in
                switch Tag(rawValue: Self.take(UInt8.self, at: &cursor)) {
                case .toOne: return .toOne(Self.take(ObjectID.self, at: &cursor))
                case .toOneNone: return .toOne(nil)
                default: return .fault
                }
            }
            return (attributes, relationships)
        }
    }
}
