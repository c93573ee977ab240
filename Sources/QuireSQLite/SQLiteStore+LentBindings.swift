import QuireCore
@_spi(QuireEngine) import QuireStores
import CSQLite
import Foundation

extension SQLiteStore {
    /// Binds a row's attribute values (`slots`, from parameter `index` on) and then runs `finish` with the next
    /// parameter index, lending SQLite the bytes of strings and blobs instead of having it copy them.
    ///
    /// A save binds each string and blob once and steps the statement once, so SQLite's copy of every value
    /// (`SQLITE_TRANSIENT`: an allocation and a copy each) is work thrown away. Here each such value is bound
    /// with `SQLITE_STATIC` (a nil destructor) inside the scope that lends its bytes (`withContiguousStorageIfAvailable`,
    /// `withUnsafeBytes`), and `finish` (which binds the rest and steps the statement) runs inside every one of
    /// those scopes. The caller must clear the statement's bindings (`clearBindings()`, one call for all the lent
    /// parameters) when this returns or throws, before the statement is used again.
    ///
    /// Safety: SQLite reads a `SQLITE_STATIC` value only while the statement steps (or until the parameter is
    /// bound again); the statement steps only inside `finish`, where every lent buffer is alive (it belongs to
    /// `attributes`, which the caller holds, or to the scope of a small string's bytes, which encloses
    /// `finish`). Between the end of those scopes and the caller's clearing nothing steps or reads the
    /// statement, and afterwards no lent pointer is left in it, so a later step or a finalize can never reach
    /// one. Values of other kinds, empty strings and blobs (whose buffers may have no address), strings without
    /// contiguous UTF-8 and external-storage columns are bound as before, copied.
    ///
    /// - Parameters:
    ///   - attributes: The row's attribute values by slot.
    ///   - slots: The plan's attribute slots, each with whether it uses the external-storage encoding.
    ///   - position: The first entry of `slots` still to bind.
    ///   - index: The parameter `slots[position]` is bound to.
    ///   - bindCopied: Binds one value the copying way (external data included), as `writeRow` did.
    ///   - finish: Binds the remaining parameters and steps the statement; gets the next parameter index.
    func bindLendingBytes(
        _ attributes: UnsafeBufferPointer<AttributeValue>, slots: [(Int, Bool)], from position: Int, index: Int32,
        to statement: SQLiteStatement, bindCopied: (_ slot: Int, _ external: Bool, _ index: Int32) throws -> Void,
        finish: (Int32) throws -> Void
    ) throws {
        var position = position
        var index = index
        while position < slots.count {
            let (slot, external) = slots[position]
            if !external {
                switch attributes[slot] {
                case .string(let text):
                    let lent = try text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
                        guard let base = bytes.baseAddress, !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return false }
                        sqlite3_bind_text(statement.raw, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
                        try bindLendingBytes(
                            attributes, slots: slots, from: position + 1, index: index + 1, to: statement, bindCopied: bindCopied,
                            finish: finish)
                        return true
                    }
                    if lent == true { return }
                case .data(let data):
                    let lent = try data.withUnsafeBytes { bytes -> Bool in
                        guard let base = bytes.baseAddress, !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return false }
                        sqlite3_bind_blob(statement.raw, index, base, Int32(bytes.count), nil)
                        try bindLendingBytes(
                            attributes, slots: slots, from: position + 1, index: index + 1, to: statement, bindCopied: bindCopied,
                            finish: finish)
                        return true
                    }
                    if lent { return }
                default:
                    break
                }
            }
            try bindCopied(slot, external, index)
            position += 1
            index += 1
        }
        try finish(index)
    }
}

