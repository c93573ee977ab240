import Foundation

/// The `NSNumber`s that ``AttributeValue/bridgedValue`` (and so `value(forKey:)`) gives for Booleans and
/// Integer 64 values: Booleans and integers from -128 to 1,023 (counters, ranks, enumerations' raw values) come
/// from a table made once; other values are made per read.
///
/// Making an `NSNumber` on swift-corelibs-foundation costs about 560 instructions (a Boolean's about 1,000,
/// measured with callgrind on `fetch-all-100k`); taking one from the table costs a retain. The numbers are the
/// same objects `NSNumber(value:)` makes, of the same type (`objCType`), so casts and comparisons see no
/// difference; only identity (`===`) tells two reads of the same small value apart from two new numbers.
package enum NumberBoxes {
    /// The smallest integer in the table.
    static let smallestInteger: Int64 = -128
    /// The largest integer in the table.
    static let largestInteger: Int64 = 1_023
    /// `NSNumber(value:)` of each integer from ``smallestInteger`` to ``largestInteger``, in order.
    static let integers: [NSNumber] = (smallestInteger...largestInteger).map { NSNumber(value: $0) }
    /// `NSNumber(value: true)`.
    static let trueNumber = NSNumber(value: true)
    /// `NSNumber(value: false)`.
    static let falseNumber = NSNumber(value: false)

    /// `NSNumber(value: value)`, from the table when the value is in it.
    @inline(__always)
    package static func integer(_ value: Int64) -> NSNumber {
        guard value >= smallestInteger && value <= largestInteger else { return NSNumber(value: value) }
        return integers[Int(truncatingIfNeeded: value &- smallestInteger)]
    }

    /// `NSNumber(value: value)` of a Boolean, made once for each.
    @inline(__always)
    package static func boolean(_ value: Bool) -> NSNumber {
        value ? trueNumber : falseNumber
    }
}
