import QuireCore

extension AtomicStore: PrimaryKeyReservingBackend {
    /// Takes the next `count` keys of the store's counter (saved with the file at the next save; keys reserved
    /// and never saved are simply not used again while the store is open).
    package func reservePrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        guard !options.isReadOnly else { throw readOnlyError() }
        let first = nextKey
        nextKey += Int64(count)
        return Array(first..<nextKey)
    }
}
