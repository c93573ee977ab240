import Foundation

extension PackedRow {
    // MARK: Typed reads (what `@Managed` and `@ManagedProperty` properties read)

    // Each reader decodes one attribute straight into its Swift type, with no `AttributeValue` in between: nil
    // when the slot holds another kind of value (a nil, another type), which the caller then reads the general
    // way. Like the other readers, they walk bytes `make` wrote (see the note above `take`).

    /// The integer at `slot`, or nil when it holds none.
    package func integer(at slot: Int) -> Int64? {
        typedAttribute(at: slot, tag: Tag.integer.rawValue) { cursor in Self.take(Int64.self, at: &cursor) } kept: {
            if case .integer(let value) = $0 { return value }
            return nil
        }
    }

    /// The double at `slot`, or nil when it holds none.
    package func double(at slot: Int) -> Double? {
        typedAttribute(at: slot, tag: Tag.double.rawValue) { cursor in Self.take(Double.self, at: &cursor) } kept: {
            if case .double(let value) = $0 { return value }
            return nil
        }
    }

    /// The float at `slot`, or nil when it holds none.
    package func float(at slot: Int) -> Float? {
        typedAttribute(at: slot, tag: Tag.float.rawValue) { cursor in Self.take(Float.self, at: &cursor) } kept: {
            if case .float(let value) = $0 { return value }
            return nil
        }
    }

    /// The date at `slot`, or nil when it holds none.
    package func date(at slot: Int) -> Date? {
        typedAttribute(at: slot, tag: Tag.date.rawValue) { cursor in
            Date(timeIntervalSinceReferenceDate: Self.take(Double.self, at: &cursor))
        } kept: {
            if case .date(let value) = $0 { return value }
            return nil
        }
    }

    /// The string at `slot`, or nil when it holds none.
    package func string(at slot: Int) -> String? {
        typedAttribute(at: slot, tag: Tag.string.rawValue) { cursor in
            let count = Self.takeLength(at: &cursor)
            defer { cursor += count }
            return String(decoding: UnsafeRawBufferPointer(start: cursor, count: count), as: UTF8.self)
        } kept: {
            if case .string(let value) = $0 { return value }
            return nil
        }
    }

    /// The bytes at `slot`, or nil when it holds none (or holds a reference to data kept outside the store).
    package func data(at slot: Int) -> Data? {
        typedAttribute(at: slot, tag: Tag.data.rawValue) { cursor in
            let count = Self.takeLength(at: &cursor)
            defer { cursor += count }
            return count == 0 ? Data() : Data(bytes: cursor, count: count)
        } kept: {
            if case .data(let value) = $0 { return value }
            return nil
        }
    }

    /// The Boolean at `slot`, or nil when it holds none.
    package func boolean(at slot: Int) -> Bool? {
        withUnsafeMutablePointers { header, start -> Bool? in
            if let kept = header.pointee.unpacked {
                guard slot >= 0, slot < kept.attributes.count, case .boolean(let value) = kept.attributes[slot] else { return nil }
                return value
            }
            guard slot >= 0, slot < Int(header.pointee.attributeCount) else { return nil }
            var cursor = Self.position(of: slot, header, start)
            let value: Bool
            switch Self.take(UInt8.self, at: &cursor) {
            case Tag.booleanTrue.rawValue: value = true
            case Tag.booleanFalse.rawValue: value = false
            default: return nil
            }
            Self.note(slot, endingAt: cursor, header, start)
            return value
        }
    }

    /// The attribute at `slot` decoded by `decode` when its tag is `tag` (`decode` reads the rest of the value
    /// and leaves the cursor after it), or by `kept` from a row kept as arrays; nil otherwise.
    @inline(__always)
    private func typedAttribute<Value>(
        at slot: Int, tag: UInt8, _ decode: (inout UnsafeRawPointer) -> Value, kept: (AttributeValue) -> Value?
    ) -> Value? {
        // Through the header's pointer: reading `header` itself would cost a dynamic exclusivity check.
        withUnsafeMutablePointers { header, start -> Value? in
            if let unpacked = header.pointee.unpacked {
                return slot >= 0 && slot < unpacked.attributes.count ? kept(unpacked.attributes[slot]) : nil
            }
            guard slot >= 0, slot < Int(header.pointee.attributeCount) else { return nil }
            var cursor = Self.position(of: slot, header, start)
            // Another tag: nothing noted, the general path reads the slot again.
            guard Self.take(UInt8.self, at: &cursor) == tag else { return nil }
            let value = decode(&cursor)
            Self.note(slot, endingAt: cursor, header, start)
            return value
        }
    }
}
