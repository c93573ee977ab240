extension EntityDescription {
    /// ``keyedPropertyIndex(forKey:)`` trying the property at `hint` first: one comparison of the key's words
    /// instead of a scan when the caller guessed right (an object read field by field asks for the property
    /// after the one it read last).
    package func keyedPropertyIndex(forKey key: String, hint: Int) -> (index: Int, isPlainAttribute: Bool)? {
        let known = frozenNameWords
        if hint < known.count, known[hint] == StringWords(key) { return (hint, isPlainAttribute(at: hint)) }
        return keyedPropertyIndex(forKey: key)
    }
}
