import Foundation

/// A value behind a lock: what Quire uses instead of `Synchronization.Mutex`.
///
/// On Linux, `Mutex` waits on a futex directly, which the thread sanitizer does not see, so it reports every
/// access under it as a race. This lock is a `pthread_mutex_t` (through `NSLock`), which the sanitizer
/// understands, so `make tsan` reports only real races.
package final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A lock guarding `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
