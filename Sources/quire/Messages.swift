import Foundation
import Quire
import QuireCore
import QuireSupport

/// The CLI's messages in plain words: the user's file named as they know it (an archive's entry as
/// `doc.zip: entry StoreContent/persistentStore`, never the private folder it was extracted to, a staging folder
/// or a spooled copy of standard input), the reason of a system error in words (never Foundation's
/// `NSCocoaErrorDomain … UserInfo={…}`), and the CLI's own advice instead of the library's.
enum Messages {
    /// Private paths and how messages show them, registered as documents are opened.
    private static let shownPaths = LockedValue<[(hidden: String, shown: String)]>([])

    /// Shows `hidden` (a private working folder) as `shown` in every message from now on.
    static func show(_ hidden: URL, as shown: String) {
        shownPaths.withLock { $0.append((hidden.standardizedFileURL.path, shown)) }
    }

    /// A message with private paths replaced, Foundation's error dumps and the library's advice rewritten.
    static func clean(_ text: String) -> String {
        var text = text
        for (hidden, shown) in shownPaths.withLock({ $0 }).sorted(by: { $0.hidden.count > $1.hidden.count }) {
            // 'WORK/REL' (quoted, as library messages quote paths) and bare WORK/REL.
            text = replace(#"'\#(NSRegularExpression.escapedPattern(for: hidden))/([^']*)'"#, in: text, with: "\(shown): entry $1")
            text = replace(#"\#(NSRegularExpression.escapedPattern(for: hidden))/([^' ,;()]*)"#, in: text, with: "\(shown): entry $1")
            text = text.replacingOccurrences(of: hidden, with: shown)
        }
        // Staging folders beside an output: `/dir/.out.zip.quire-TOKEN.convert/work/…` is the output being built.
        text = replace(
            #"(/[^' ]*/)?\.([^/' ]+?)\.quire-[0-9A-Za-z_-]+\.(?:convert|staging|tmp)(?:/[^' ,;()]*)?"#, in: text, with: "$1$2")
        // Foundation's dumps: `The operation could not be completed. (NSCocoaErrorDomain error 513.) UserInfo={…}`.
        if let range = text.range(of: #"Error Domain=NSCocoaErrorDomain Code=(\d+).*"#, options: .regularExpression) {
            text.replaceSubrange(range, with: "permission denied or no such file")
        }
        text = replace(#" ?\(?NSCocoaErrorDomain[^)]*\)?"#, in: text, with: "")
        text = replace(#" ?UserInfo=\{.*\}"#, in: text, with: "")
        // The library's advice, for programs, becomes the CLI's.
        text = replace(
            #"add it with the options migratesAutomatically and infersMappingModel[^.]*\."#, in: text,
            with: "pass --model with the application's model for this store's version.")
        text = replace(#"set migratesAutomatically and infersMappingModel[^.]*\."#, in: text,
            with: "pass --model with the application's model for this store's version.")
        text = text.replacingOccurrences(of: "; add it with the read-only option to read it", with: "")
        text = text.replacingOccurrences(of: " with the read-only option", with: ": the file is read-only")
        text = replace(#"archivedObject\(className: ?"?([A-Za-z0-9_]+)"?, fields: \[[^\]]*\]\)"#, in: text, with: "an archived $1")
        return text
    }

    private static func replace(_ pattern: String, in text: String, with template: String) -> String {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return text }
        return regex.stringByReplacingMatches(
            in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
    }
}

/// The reason of a failure in words: `permission denied`, `no space left on device`.
func plainReason(_ error: any Error) -> String {
    if let error = error as? QuireError {
        if let cause = error.underlying as? SystemCallError { return String(cString: strerror(cause.code)).lowercased() }
        return Messages.clean(error.message)
    }
    if let error = error as? SystemCallError { return String(cString: strerror(error.code)).lowercased() }
    let ns = error as NSError
    if let posix = (ns.userInfo[NSUnderlyingErrorKey] as? NSError).flatMap({ $0.domain == NSPOSIXErrorDomain ? $0.code : nil }) {
        return String(cString: strerror(Int32(posix))).lowercased()
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
    return Messages.clean("\(error)")
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
