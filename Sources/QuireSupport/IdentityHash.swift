/// The hash of a one-word identity (an object's address, an object ID's key and store folded together) for sets
/// and dictionaries: the `_rawHashValue(seed:)` of ``ObjectID`` and `ManagedObject`.
///
/// A save puts every saved object in the objects-did-change and did-save sets and every saved ID in the did-save
/// ID set, so a hash is computed several times an object. The standard library's one-word hash (SipHash-1-3 of
/// the word) costs about 95 instructions; this one about 10: the word and the table's seed are mixed by one
/// full-width multiplication by an odd constant whose two halves are folded together (the "multiply and fold"
/// step of hashes such as wyhash), so every bit of the word and of the seed reaches the low bits a table uses.
/// The words it is given are not chosen by a document (addresses, and keys a store assigned), and each table's
/// own seed still varies the result, so a fast mix is enough; it is not a keyed hash against chosen inputs.
@inlinable
package func identityHash(_ word: UInt64, seed: Int) -> Int {
    let mixed = (word ^ UInt64(bitPattern: Int64(seed)) ^ 0x9E37_79B9_7F4A_7C15).multipliedFullWidth(by: 0xBF58_476D_1CE4_E5B9)
    return Int(bitPattern: UInt(mixed.high ^ mixed.low))
}
