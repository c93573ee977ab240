import Foundation
import Quire
import QuireCore
import QuireSupport

/// The CLI's messages in plain words.
///
/// The library's messages already name the user's files: a document opened from an archive names its entries
/// (`'doc.zip: entry StoreContent/persistentStore'`, ``DocumentContents/errorNamingDocument(_:)``), a conversion
/// names its output rather than its staging folder, an inspection names the model it used. What is left here is
/// the CLI's own part:
/// - its own private files (a copy of standard input, the staged copy of a PostgreSQL store) named as the user
///   knows them: exact paths the CLI made, registered with ``show(_:as:)``;
/// - its own advice, chosen by the error's code rather than by its wording: `--model` for a store written with
///   another model, making a read-only file writable;
/// - the reason of a system error in words (``plainReason(_:)``), never Foundation's `NSCocoaErrorDomain … UserInfo`.
enum Messages {
    /// The CLI's private paths and how messages show them.
    private static let shownPaths = LockedValue<[(hidden: String, shown: String)]>([])

    /// Shows `hidden` (a private file or folder the CLI made) as `shown` in every message from now on.
    static func show(_ hidden: URL, as shown: String) {
        shownPaths.withLock { $0.append((hidden.standardizedFileURL.path, shown)) }
    }

    /// A message with the CLI's private paths named as registered: a registered path, or a file under a
    /// registered folder (`…/.out.zip.quire-….staging/archive`), becomes what it is shown as (longest first).
    static func naming(_ text: String) -> String {
        var text = text
        for (hidden, shown) in shownPaths.withLock({ $0 }).sorted(by: { $0.hidden.count > $1.hidden.count }) {
            var searchStart = text.startIndex
            while let range = text.range(of: hidden, range: searchStart..<text.endIndex) {
                var end = range.upperBound
                if end < text.endIndex, text[end] == "/" {
                    end = text[end...].firstIndex { $0 == "'" || $0 == " " || $0 == "," || $0 == ")" || $0 == ";" } ?? text.endIndex
                }
                let offset = text.distance(from: text.startIndex, to: range.lowerBound) + shown.count
                text.replaceSubrange(range.lowerBound..<end, with: shown)
                searchStart = text.index(text.startIndex, offsetBy: offset)
            }
        }
        return text
    }

    /// The CLI's words for a library error whose code calls for the CLI's own advice; nil to show the library's
    /// message as it is.
    static func words(for error: QuireError) -> String? {
        switch error.code {
        case .persistentStoreIncompatibleVersionHash, .migrationMissingSourceModel:
            // The inspection's message names the store, the model and what differs; the advice is the CLI's.
            return sentence(error.message) + " Pass --model with the application's model of the version that wrote it."
        case .fileWriteNoPermission, .fileWriteVolumeReadOnly:
            // A store (or archive) that cannot be opened for writing: the file and why, and what to do about it.
            // (An output that cannot be made keeps the library's message, which names its folder.)
            var status = stat()
            guard let file = error.context.file, file.isFileURL, let cause = error.underlying as? SystemCallError,
                stat(file.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG
            else { return nil }
            let reason: String
            if status.st_mode & 0o222 == 0 {
                reason = "its mode is 0" + String(status.st_mode & 0o7777, radix: 8)
            } else {
                reason = String(cString: strerror(cause.code)).lowercased()
            }
            return "'\(file.path)' cannot be written (\(reason)); make it writable (chmod u+w) or work on a copy."
        default:
            return nil
        }
    }

    /// A message ending with one full stop.
    private static func sentence(_ text: String) -> String {
        text.hasSuffix(".") ? text : text + "."
    }
}

/// The reason of a failure in words: `permission denied`, `no space left on device`.
func plainReason(_ error: any Error) -> String {
    if let error = error as? QuireError {
        if let cause = error.underlying as? SystemCallError { return String(cString: strerror(cause.code)).lowercased() }
        return error.message
    }
    if let error = error as? SystemCallError { return String(cString: strerror(error.code)).lowercased() }
    let ns = error as NSError
    // Foundation's file errors carry the system's error beneath them: its reason is the precise one
    // ("operation not permitted" where the Cocoa code only says "no permission").
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? any Error {
        let cause = underlying as NSError
        if cause.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(cause.code))).lowercased() }
    }
    if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))).lowercased() }
    if ns.domain == NSCocoaErrorDomain {
        switch CocoaError.Code(rawValue: ns.code) {
        case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
        case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file or folder"
        case .fileWriteOutOfSpace: return "no space left on device"
        case .fileWriteVolumeReadOnly: return "the filesystem is read-only"
        case .fileWriteFileExists: return "it already exists"
        default: return "the file could not be read or written"
        }
    }
    return "\(error)"
}

/// Runs `body`, turning any error into an input failure naming `url` (shown as `shownAs` when given).
func reading<T>(_ url: URL, shownAs: String?, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let failure as CommandFailure {
        throw failure
    } catch {
        guard let shownAs else { throw CommandFailure.input(error, url) }
        Messages.show(url, as: shownAs)
        throw CommandFailure.input(error, url)
    }
}

/// Runs `body`, turning any error into an output failure naming `url` (shown as `shownAs` when given).
func writing<T>(_ url: URL, shownAs: String?, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let failure as CommandFailure {
        throw failure
    } catch {
        throw CommandFailure(status: .unwritableOutput, message: "\(shownAs ?? url.path): \(plainReason(error)).")
    }
}
