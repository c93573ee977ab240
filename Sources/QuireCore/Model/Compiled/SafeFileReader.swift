import QuireSupport
import Foundation

/// Reads files defensively: regular files only (no symbolic links, devices or folders), at most a given size.
enum SafeFileReader {
    /// The bytes of a regular file of at most `limit` bytes.
    ///
    /// - Throws: ``CompiledModelError/fileError(path:reason:)`` when the path is missing, a link or not a
    ///   regular file, ``CompiledModelError/inputTooLarge(size:limit:)`` when it is larger than `limit`.
    static func read(_ url: URL, limit: Int) throws -> Data {
        let path = url.path
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw CompiledModelError.fileError(path: path, reason: "it does not exist or cannot be examined")
        }
        guard let type = attributes[.type] as? FileAttributeType, type == .typeRegular else {
            throw CompiledModelError.fileError(path: path, reason: "it is not a regular file (links are refused)")
        }
        if let size = (attributes[.size] as? NSNumber)?.intValue, size > limit {
            throw CompiledModelError.inputTooLarge(size: size, limit: limit)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CompiledModelError.fileError(path: path, reason: "it cannot be opened")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            // One byte more than the limit tells a file that grew since it was examined.
            data = try handle.read(upToCount: limit < Int.max ? max(0, limit) + 1 : limit) ?? Data()
        } catch {
            throw CompiledModelError.fileError(path: path, reason: "reading failed")
        }
        guard data.count <= limit else { throw CompiledModelError.inputTooLarge(size: data.count, limit: limit) }
        return data
    }

    /// Whether a path is a real folder (not a link to one).
    static func isDirectory(_ url: URL) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return false }
        return (attributes[.type] as? FileAttributeType) == .typeDirectory
    }
}
