import QuireSupport
import Foundation

/// Whether a store file can be opened for writing, and if not, why, in words and as the system error.
package enum StoreFileAccess {
    /// Why the file at `path` (whose `stat` is `status`) cannot be written, nil when it can: with `modeBits`, no
    /// write permission bit (mode 0444, which `access` does not report for root); else what `access(W_OK)`
    /// answers (permission denied, operation not permitted for an immutable file, read-only file system).
    package static func writeRefusal(_ path: String, _ status: stat, modeBits: Bool = true) -> (reason: String, error: SystemCallError)? {
        if modeBits && (status.st_mode & 0o222) == 0 {
            let mode = String(status.st_mode & 0o7777, radix: 8)
            return ("its mode \(mode) has no write permission", SystemCallError(code: EACCES, function: "stat"))
        }
        guard access(path, W_OK) != 0 else { return nil }
        let code = errno
        return (String(cString: strerror(code)).lowercased(), SystemCallError(code: code, function: "access"))
    }
}
