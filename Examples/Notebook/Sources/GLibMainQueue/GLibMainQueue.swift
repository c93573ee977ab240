import CGtk
import Quire

/// Runs Dispatch's main queue from GLib's main loop: without it, nothing sent to `DispatchQueue.main` runs in a
/// GTK app (a main-queue context's `perform` blocks and merges, the list changes this app hands to the main
/// queue, `@MainActor` tasks), because GTK runs GLib's loop on the main thread, not Dispatch's.
///
/// `g_unix_fd_add` watches Quire's ``MainQueueEventSource/fileDescriptor`` (readable while the main queue has
/// blocks) in GLib's default main context, at the default priority, like GTK's own event sources; the callback
/// runs the queued blocks on the main thread.
///
/// It is a module of its own (`GLibMainQueue`, depending on Quire and GLib) so that any GLib-based app can take
/// the file as it is; the Notebook and the probe of its test (`main-queue-probe`) both use it.
///
/// Safety: `runMainQueue` is a C function pointer with no captures; GLib calls it only from the thread that
/// runs the default main context, which in a GTK app is the main thread (`g_application_run` runs there), as
/// ``MainQueueEventSource/runPendingWork()`` requires (it checks, and traps otherwise).
public enum GLibMainQueue {
    /// Attaches the source to GLib's default main context; returns its ID. Call once, on the main thread, before
    /// `g_application_run`.
    @discardableResult
    public static func attach() -> UInt32 {
        g_unix_fd_add_full(G_PRIORITY_DEFAULT, MainQueueEventSource.fileDescriptor, G_IO_IN, runMainQueue, nil, nil)
    }
}

/// GLib calls it on the thread running the default main context: the main thread.
private let runMainQueue: GUnixFDSourceFunc = { _, _, _ in
    MainQueueEventSource.runPendingWork()
    return 1  // G_SOURCE_CONTINUE
}
