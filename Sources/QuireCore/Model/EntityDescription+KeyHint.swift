extension EntityDescription {
    /// ``keyedPropertyIndex(forKey:)`` trying the property at `hint` first: one comparison of the key's words
    /// instead of a scan when the caller guessed right (an object read field by field asks for the property
    /// after the one it read last).
    package func keyedPropertyIndex(forKey key: String, hint: Int) -> (index: Int, isPlainAttribute: Bool)? {
        let known = frozenNameWords
        if hint < known.count, known[hint] == StringWords(key) { return (hint, isPlainAttribute(at: hint)) }
        return keyedPropertyIndex(forKey: key)
    }

    /// ``keyedPropertyIndex(forKey:hint:)`` of a key given as its string's two words
    /// (`unsafeBitCast(key, to: (UInt64, UInt64).self)`, taken without retaining the string), which a `@Managed`
    /// property keeps instead of the string: the guess is compared without making the string at all, so the
    /// caller retains nothing. The words must be those of a string that outlives the call (an immortal string:
    /// a literal or a short one, or one kept alive elsewhere); any other key is made again from them and looked up
    /// as ``keyedPropertyIndex(forKey:)`` does.
    package func keyedPropertyIndex(forKeyWords words: (UInt64, UInt64), hint: Int) -> (index: Int, isPlainAttribute: Bool)? {
        let known = frozenNameWords
        if hint < known.count, known[hint] == StringWords(words: words) { return (hint, isPlainAttribute(at: hint)) }
        return keyedPropertyIndex(forUnguessedKeyWords: words)
    }

    /// ``keyedPropertyIndex(forKeyWords:hint:)`` when the guess was wrong: the key made again from its words (which
    /// retains it for the call), out of line so that the guessed path saves no registers.
    @inline(never)
    private func keyedPropertyIndex(forUnguessedKeyWords words: (UInt64, UInt64)) -> (index: Int, isPlainAttribute: Bool)? {
        keyedPropertyIndex(forKey: unsafeBitCast(words, to: String.self))
    }

    /// ``settableAttributeSlot(forKey:)`` trying the property at `hint` first, as
    /// ``keyedPropertyIndex(forKey:hint:)`` does: an object filled field by field sets the property after the
    /// one it set last.
    package func settableAttributeSlot(forKey key: String, hint: Int) -> (slot: Int, type: AttributeType)? {
        let known = frozenNameWords
        let slot: Int
        if hint < known.count, known[hint] == StringWords(key) {
            slot = hint
        } else {
            guard let found = propertyIndex(forKey: key) else { return nil }
            slot = found
        }
        guard slot < _frozenAttributeTypes.count, !isDerivedAttribute(slot: slot) else { return nil }
        return (slot, _frozenAttributeTypes[slot])
    }
}
