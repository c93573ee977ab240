import CQuireSupport
import Foundation

/// Runs Dispatch's main queue from an event loop that is not Dispatch's: GLib's (GTK), Qt's, libuv's, a plain
/// `poll` loop.
///
/// A main-queue context (a ``PersistentContainer/viewContext``, any context made with
/// ``ManagedObjectContext/ConcurrencyType/mainQueue``) runs its ``ManagedObjectContext/perform(_:)->()`` blocks,
/// the merges of other contexts' saves (``ManagedObjectContext/automaticallyMergesChangesFromParent``) and so its
/// ``FetchedResultsController`` callbacks on `DispatchQueue.main`, and `@MainActor` code runs there too. Something
/// must run that queue: `dispatch_main()`, Foundation's `RunLoop.main`, or an async `main`. A desktop application
/// runs its toolkit's loop on the main thread instead (`g_application_run`, `QApplication::exec`), and blocks sent
/// to the main queue then wait forever. Watch ``fileDescriptor`` in that loop and call ``runPendingWork()`` when it
/// is readable, as Foundation's own run loop does on Linux.
///
/// With GLib, `g_unix_fd_add` watches the descriptor and calls back on the thread that runs the default main
/// context, the main thread (GLib's C API called from Swift through the application's module map of
/// `glib-unix.h`):
///
/// ```swift
/// let runMainQueue: GUnixFDSourceFunc = { _, _, _ in
///     MainQueueEventSource.runPendingWork()
///     return 1                                        // G_SOURCE_CONTINUE: keep watching
/// }
/// g_unix_fd_add(MainQueueEventSource.fileDescriptor, G_IO_IN, runMainQueue, nil)
/// ```
///
/// The Notebook example (`Examples/Notebook`, `GLibMainQueue.swift`) does this before GTK starts, and its test
/// shows that without it a view context's blocks, merges and fetched-results callbacks never run under GTK.
///
/// It rests on the two hooks libdispatch exports for CoreFoundation's run loop (`_dispatch_get_main_queue_handle_4CF`
/// and `_dispatch_main_queue_callback_4CF`), which its installed headers leave out; Quire declares them in
/// `CQuireSupport`. It exists on Linux only: elsewhere ``fileDescriptor`` is -1 and ``runPendingWork()`` does
/// nothing (on macOS, GLib's loop and Dispatch's main queue meet through CFRunLoop in other ways).
public enum MainQueueEventSource {
    /// A file descriptor that is readable while Dispatch's main queue has blocks to run (an eventfd that
    /// libdispatch writes to when a block is queued on an empty main queue); -1 where there is none (not
    /// Linux). Watch it for input (`POLLIN`, `G_IO_IN`); never read or close it yourself.
    public static var fileDescriptor: Int32 { quire_main_queue_file_descriptor() }

    /// Runs the blocks queued on the main queue (those queued while they run, too, up to libdispatch's batch
    /// limit; the descriptor stays readable for the rest), after resetting ``fileDescriptor``.
    ///
    /// Call it from the main thread, in a process whose main thread never called `dispatch_main()` and has no
    /// async `main` (those run the main queue themselves, and libdispatch traps when it is also run this way).
    /// Calling it from another thread is a programmer error and traps.
    public static func runPendingWork() {
        precondition(Thread.isMainThread, "MainQueueEventSource.runPendingWork() runs the main queue: call it on the main thread.")
        quire_main_queue_run_pending()
    }
}
