import QuireSupport

extension EntityDescription {
    /// Whether the attribute at a slot of the frozen entity reads as its stored value's own Swift type
    /// (`AttributeValue.anyValue`), so keyed and typed reads need no conversion: every type but the 16- and
    /// 32-bit integers (read as `Int16`/`Int32`) and transformable attributes (read through their
    /// transformer).
    package func isPlainAttribute(at slot: Int) -> Bool {
        guard slot >= 0, slot < _frozenAttributeTypes.count else { return false }
        switch _frozenAttributeTypes[slot] {
        case .integer16, .integer32, .transformable: return false
        default: return true
        }
    }

    /// The index of property `key` of the frozen entity (``propertyIndex(forKey:)``) and whether it is a plain
    /// attribute (``isPlainAttribute(at:)``): `value(forKey:)`'s first step in one call into this module.
    package func keyedPropertyIndex(forKey key: String) -> (index: Int, isPlainAttribute: Bool)? {
        guard let index = propertyIndex(forKey: key) else { return nil }
        return (index, isPlainAttribute(at: index))
    }
}
