import QuireCore
import CQuireSupport
import Foundation

/// Extended attributes of a file or folder (Linux `user.*` names), without following a final symbolic link.
///
/// ```swift
/// try ExtendedAttributes.set("user.xdg.tags", to: Data("draft,2025".utf8), on: documentURL)
/// let tags = try ExtendedAttributes.value("user.xdg.tags", of: documentURL)   // Data("draft,2025")
/// ```
///
/// Quire writes `user.xdg.tags` and `user.xdg.comment` on every saved document (KDE's Baloo indexes them) and
/// carries every attribute of a document over to each new version a safe save writes.
public enum ExtendedAttributes {
    /// The most bytes one attribute value may have when read (Linux allows 64 KiB).
    package static let maximumValueSize = 65_536

    /// The value of an attribute, or `nil` when the file has no attribute of that name.
    ///
    /// - Throws: ``QuireError/Code/fileReadUnknown`` naming the file and attribute when the filesystem refuses
    ///   (`ENOTSUP` where it has no extended attributes), or ``QuireError/Code/fileReadNoSuchFile``. Every
    ///   method here gives the code Foundation gives the same `errno`; writes to a missing file give
    ///   ``QuireError/Code/fileNoSuchFile``.
    public static func value(_ name: String, of url: URL) throws -> Data? {
        var buffer = [UInt8](repeating: 0, count: maximumValueSize)
        let length = quire_getxattr(url.path, name, &buffer, buffer.count)
        if length < 0 {
            let code = quire_errno()
            if code == ENODATA { return nil }
            throw error(code, "read the extended attribute '\(name)' of", url, writing: false)
        }
        return Data(buffer[0..<length])
    }

    /// Sets an attribute, replacing any previous value.
    ///
    /// - Throws: ``QuireError`` naming the file and attribute when the filesystem refuses (`ENOTSUP` where it
    ///   has no extended attributes, `EPERM` for names outside `user.*` without privileges).
    public static func set(_ name: String, to value: Data, on url: URL) throws {
        let result = value.withUnsafeBytes { quire_setxattr(url.path, name, $0.baseAddress, $0.count) }
        if result != 0 {
            throw error(quire_errno(), "set the extended attribute '\(name)' on", url, writing: true)
        }
    }

    /// Removes an attribute; removing one the file does not have is not an error.
    ///
    /// - Throws: ``QuireError`` when the filesystem refuses.
    public static func remove(_ name: String, from url: URL) throws {
        if quire_removexattr(url.path, name) != 0 {
            let code = quire_errno()
            if code == ENODATA { return }
            throw error(code, "remove the extended attribute '\(name)' from", url, writing: true)
        }
    }

    /// The names of every attribute of a file, in the order the filesystem lists them.
    ///
    /// - Throws: ``QuireError`` when the filesystem refuses or the file does not exist.
    public static func names(of url: URL) throws -> [String] {
        let size = quire_listxattr(url.path, nil, 0)
        if size < 0 { throw error(quire_errno(), "list the extended attributes of", url, writing: false) }
        if size == 0 { return [] }
        var buffer = [CChar](repeating: 0, count: size)
        let length = quire_listxattr(url.path, &buffer, buffer.count)
        if length < 0 { throw error(quire_errno(), "list the extended attributes of", url, writing: false) }
        return buffer[0..<length].split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }

    /// Copies every attribute of `source` that can be read onto `destination`, returning one warning per
    /// attribute that could not be copied (none when the filesystem has no extended attributes at all, which
    /// is reported once).
    package static func copyAll(from source: URL, to destination: URL) -> [String] {
        let names: [String]
        do {
            names = try self.names(of: source)
        } catch {
            return isUnsupported(error) ? [] : ["\(error)"]
        }
        var warnings: [String] = []
        for name in names {
            do {
                if let value = try value(name, of: source) { try set(name, to: value, on: destination) }
            } catch {
                warnings.append("\(error)")
            }
        }
        return warnings
    }

    /// Whether an error says the filesystem has no extended attributes (or refuses `user.*` ones).
    package static func isUnsupported(_ error: any Error) -> Bool {
        guard let error = error as? QuireError, let cause = error.underlying as? SystemCallError else { return false }
        return cause.code == ENOTSUP || cause.code == EOPNOTSUPP || cause.code == EPERM
    }

    private static func error(_ code: Int32, _ action: String, _ url: URL, writing: Bool) -> QuireError {
        QuireError.systemCall(code, function: "xattr", "Unable to \(action) '\(url.path)'", file: url, reading: !writing)
    }
}
