import QuireSupport

/// The two machine words a Swift string is made of (on 64-bit platforms), compared without a call.
///
/// Two strings with the same words are the same string: a small string (up to 15 UTF-8 bytes) keeps its
/// bytes in the words themselves, and a large one the address of its storage. Different words say nothing
/// (two equal large strings can live at different addresses), so a miss falls back to comparing the text.
struct StringWords: Equatable, Sendable {
    private let first: UInt64
    private let second: UInt64

    /// The words of `string`; reads them without retaining its storage.
    @inline(__always)
    init(_ string: String) {
        (first, second) = unsafeBitCast(string, to: (UInt64, UInt64).self)
    }

    /// A string's words as taken before (`unsafeBitCast(string, to: (UInt64, UInt64).self)`).
    @inline(__always)
    init(words: (UInt64, UInt64)) {
        (first, second) = words
    }
}

extension EntityDescription {
    // MARK: Keyed access (precomputed property indexes)

    /// The index of the property named `key` in the frozen property order: attributes by slot, then
    /// relationships by slot after the attributes (nil for other keys, or before the model is frozen).
    ///
    /// The names' words are precomputed when the model freezes: a key that is the same string as the name (any
    /// small key, or the literal the model was built from) is found by comparing two machine words per
    /// property, with no hashing and no call; other keys are compared as text (or hashed, for entities with
    /// more than 24 properties). `value(forKey:)`, `setValue(_:forKey:)` and `@Managed` properties find their
    /// slots through it.
    func propertyIndex(forKey key: String) -> Int? {
        guard isFrozen else { return nil }
        let words = StringWords(key)
        let known = frozenNameWords
        for index in known.indices where known[index] == words { return index }
        let names = frozenPropertyNames
        guard names.count <= 24 else { return frozenIndexByName[key] }
        for index in names.indices where names[index] == key { return index }
        return nil
    }

    /// ``propertyIndex(forKey:)`` of a key whose words were taken once (a compiled predicate's keys): the names'
    /// words are compared in place, with no retain of their array; other keys take ``propertyIndex(forKey:)``.
    @inline(__always)
    func propertyIndex(forKey key: String, words: StringWords) -> Int? {
        guard isFrozen else { return nil }
        let found = frozenNameWords.withUnsafeBufferPointer { known -> Int? in
            for index in known.indices where known[index] == words { return index }
            return nil
        }
        return found ?? propertyIndex(forKey: key)
    }

    /// The number of attributes (inherited ones included) of the frozen entity: property indexes below it are
    /// attribute slots.
    package var frozenAttributeCount: Int { _frozenAttributeTypes.count }

    /// The attribute at a slot of the frozen entity.
    package func frozenAttribute(at slot: Int) -> AttributeDescription {
        allAttributes[slot]
    }

    /// The property at an index of ``propertyIndex(forKey:)``.
    package func frozenProperty(at index: Int) -> PropertyDescription {
        frozenPropertyList[index]
    }

    /// The slot and type of attribute `key` when `setValue(_:forKey:)` may store a value straight into it: an
    /// attribute of the frozen entity that is not derived. Nil for other keys (relationships, composites,
    /// derived attributes, unknown keys), which take the general path.
    package func settableAttributeSlot(forKey key: String) -> (slot: Int, type: AttributeType)? {
        guard let slot = propertyIndex(forKey: key), slot < _frozenAttributeTypes.count, !isDerivedAttribute(slot: slot)
        else { return nil }
        return (slot, _frozenAttributeTypes[slot])
    }
}

