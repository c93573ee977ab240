import QuireCore
import Foundation

/// Runs `other` on a thread of its own while `body` runs on this one, and returns both results once both have
/// finished: two independent passes over the same bytes (decoding a file while checking its checksum, or
/// reading its two halves) take the time of the longer one.
///
/// Neither closure escapes: the call returns only after both are done, so they may capture buffers and
/// local state, as long as they do not share mutable state with each other. A new thread rather than a
/// dispatch queue: the caller may itself be running on a queue's worker thread, and waiting there for work
/// queued behind it could stall until the pool grows.
func concurrently<A, B>(_ body: () throws -> A, alongside other: () throws -> B) -> (Result<A, any Error>, Result<B, any Error>) {
    withoutActuallyEscaping(other) { other in
        let work = UncheckedTransfer<(() throws -> B)?>(other)
        let slot = UncheckedTransfer<Result<B, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            slot.value = work.value.map { work in Result { try work() } }
            // Let go of the closure before signalling: the thread's own block may be released later, and
            // the closure must not outlive this call.
            work.value = nil
            done.signal()
        }
        // Room for a reader's state on its stack, as on the main thread.
        thread.stackSize = 8 << 20
        thread.start()
        let first = Result { try body() }
        done.wait()
        return (first, slot.value ?? .failure(CancellationError()))
    }
}

/// A value handed to one other thread and back, with the hand-over ordered by a semaphore (see
/// ``concurrently(_:alongside:)``), so no two threads use it at once.
private final class UncheckedTransfer<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
