@_spi(QuireEngine) import QuireStores
import Foundation

/// How decimals live in a `DECIMAL` column, which SQLite gives NUMERIC affinity: any text that reads as a
/// number is converted to INTEGER or REAL on the way in, even when that loses digits.
///
/// Core Data stores decimals there as REAL, so a store from a Mac holds doubles: a REAL is read back through
/// its shortest round-trip text (`12345.6789` stays `12345.6789`, not the binary double's
/// `12345.678900000002048`). Quire writes what a Mac writes whenever it is exact: an INTEGER for a whole
/// number in 64 bits, a REAL when the double's shortest text is the decimal itself. A decimal a double cannot
/// hold (more than 15–17 significant digits) is written as its exact text followed by ``textMarker``, which
/// keeps SQLite from converting it; comparisons and sorts read such a column through `CAST(… AS REAL)`.
enum SQLiteDecimal {
    /// What a decimal is bound as.
    package enum Stored: Equatable {
        case integer(Int64)
        case real(Double)
        case text(String)
    }

    /// The suffix that makes exact decimal text not a numeric literal, so NUMERIC affinity keeps it as TEXT.
    static let textMarker = "D"

    /// How a decimal is stored: exactly, as a Mac would where it can.
    static func stored(_ value: Decimal) -> Stored {
        let text = "\(value)"
        if value.isNaN { return .text(text) }
        if let integer = Int64(text) { return .integer(integer) }
        if let double = Double(text), double.isFinite, Decimal(string: "\(double)") == value { return .real(double) }
        return .text(text + textMarker)
    }

    /// A REAL read back as the decimal its shortest round-trip text names.
    @inline(__always)
    package static func decimal(fromReal double: Double) -> Decimal {
        Decimal(string: "\(double)") ?? Decimal(double)
    }

    /// Text read back exactly (with or without ``textMarker``); nil when it is not a decimal.
    package static func decimal(fromText text: String) -> Decimal? {
        Decimal(string: text.hasSuffix(textMarker) ? String(text.dropLast(textMarker.count)) : text)
    }
}
