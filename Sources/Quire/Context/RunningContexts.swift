import QuireCore
import QuireStores
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The contexts whose blocks the current thread is running, innermost last, kept in a thread-local list.
///
/// A `performAndWait` on a context whose block is already running further up this thread's stack runs at
/// once: waiting for the context's queue would wait for this very thread. That happens when a child context,
/// called from inside its parent's block, asks its parent for rows (`DispatchQueue.getSpecific` sees only the
/// innermost queue, the child's).
enum RunningContexts {
    /// One entry of a thread's list.
    private final class Frame {
        let context: ObjectIdentifier
        let previous: Frame?
        init(context: ObjectIdentifier, previous: Frame?) {
            self.context = context
            self.previous = previous
        }
    }

    /// The thread-local slot holding the innermost frame (retained while it is there).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static var innermost: Frame? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<Frame>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Whether this thread is running a block of `context`.
    static func contains(_ context: ManagedObjectContext) -> Bool {
        let id = ObjectIdentifier(context)
        var frame = innermost
        while let current = frame {
            if current.context == id { return true }
            frame = current.previous
        }
        return false
    }

    /// Runs `body` as a block of `context` on this thread.
    static func run<T>(_ context: ManagedObjectContext, _ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(key)
        let frame = Frame(context: ObjectIdentifier(context), previous: innermost)
        pthread_setspecific(key, Unmanaged.passRetained(frame).toOpaque())
        defer {
            pthread_setspecific(key, previous)
            Unmanaged.passUnretained(frame).release()
        }
        return try body()
    }
}
