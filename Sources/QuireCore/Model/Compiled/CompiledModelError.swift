import QuireSupport
import Foundation

/// Every failure of the compiled-model decoder: input it cannot read, or input that exceeds a bound of
/// ``DecodingLimits``. Hostile input always ends in one of these, never in a crash.
package enum CompiledModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The raw DEFLATE stream ends before its final block.
    case truncatedDeflate
    /// The raw DEFLATE stream is corrupt (zlib's message).
    case invalidDeflate(String)
    /// Inflating would produce more bytes than the limit allows.
    case inflatedSizeLimitExceeded(limit: Int)
    /// An input (file, blob or property list) is larger than the limit allows.
    case inputTooLarge(size: Int, limit: Int)
    /// The bytes are not a well-formed binary property list; the message says what is wrong and where.
    case malformedPropertyList(String)
    /// The property list is in a format this reader does not take (XML, or a newer binary version).
    case unsupportedPropertyListFormat(String)
    /// A structural bound of ``DecodingLimits`` was exceeded (objects, nesting, elements).
    case limitExceeded(what: String, limit: Int)
    /// The property list is not an `NSKeyedArchiver` archive (no `$archiver`, `$top` or `$objects`).
    case notAKeyedArchive(String)
    /// A `CF$UID` reference points outside `$objects`.
    case invalidReference(UInt64)
    /// Resolving a reference led back to itself (a collection that contains itself).
    case referenceCycle(UInt64)
    /// An object's `$class` is missing or does not point at a `$classname`/`$classes` dictionary.
    case invalidClass(uid: UInt64, reason: String)
    /// An object has a class the decoder cannot use where it was found.
    case unexpectedClass(expected: String, found: String, context: String)
    /// A required key is missing from an archived object.
    case missingKey(key: String, className: String)
    /// A key holds a value of the wrong kind.
    case invalidValue(key: String, className: String, expected: String)
    /// A `.momd` folder or `VersionInfo.plist` is malformed.
    case invalidModelBundle(String)
    /// A file could not be read, or is not a regular file.
    case fileError(path: String, reason: String)

    /// One sentence saying what failed.
    package var description: String {
        switch self {
        case .truncatedDeflate:
            return "The DEFLATE stream ends before its last block."
        case .invalidDeflate(let message):
            return "The DEFLATE stream is corrupt: \(message)."
        case .inflatedSizeLimitExceeded(let limit):
            return "The inflated model is larger than the limit of \(limit) bytes."
        case .inputTooLarge(let size, let limit):
            return "The input is \(size) bytes, more than the limit of \(limit) bytes."
        case .malformedPropertyList(let message):
            return "The binary property list is malformed: \(message)."
        case .unsupportedPropertyListFormat(let message):
            return "Unsupported property list format: \(message)."
        case .limitExceeded(let what, let limit):
            return "The archive has more \(what) than the limit of \(limit)."
        case .notAKeyedArchive(let message):
            return "Not an NSKeyedArchiver archive: \(message)."
        case .invalidReference(let uid):
            return "The reference CF$UID \(uid) points outside $objects."
        case .referenceCycle(let uid):
            return "Resolving CF$UID \(uid) leads back to itself."
        case .invalidClass(let uid, let reason):
            return "The class of object \(uid) is invalid: \(reason)."
        case .unexpectedClass(let expected, let found, let context):
            return "Expected \(expected) but found \(found) in \(context)."
        case .missingKey(let key, let className):
            return "The \(className) has no '\(key)'."
        case .invalidValue(let key, let className, let expected):
            return "'\(key)' of the \(className) is not \(expected)."
        case .invalidModelBundle(let message):
            return "Invalid model bundle: \(message)."
        case .fileError(let path, let reason):
            return "Cannot read '\(path)': \(reason)."
        }
    }
}
