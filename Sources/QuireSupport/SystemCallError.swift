import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A failed system call, as the underlying cause of a ``QuireError``: the `errno` value and the call.
public struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value.
    public var code: Int32
    /// The system call or library function that failed, such as `renameat2`.
    public var function: String

    /// Creates the error of a failed call.
    public init(code: Int32, function: String) {
        self.code = code
        self.function = function
    }

    /// The call, the errno name and its description, such as `rename: error 28 (No space left on device)`.
    public var description: String { "\(function): error \(code) (\(String(cString: strerror(code))))" }
}
