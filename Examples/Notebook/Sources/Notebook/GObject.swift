import CGtk
import Foundation

// GTK's C API from Swift: what it takes, and why each unsafe construct here is safe.
//
// - Pointer casts. A GObject instance is a C struct whose first member is its parent class's instance struct,
//   so a pointer to a GtkEntry is a pointer to its GtkWidget, and so on up (C code does the same cast, with
//   GTK_WIDGET() and friends, which Swift cannot import). `cast` reinterprets a pointer as one of the object's
//   classes or interfaces; every call site passes an object of that class (a GtkWindow made by
//   gtk_application_window_new to a gtk_window_ function, …), and GTK checks the type again at run time in
//   its own g_return_if_fail guards.
// - Callbacks. GTK calls back through C function pointers with a `user_data` pointer. A Swift closure cannot be a
//   C function pointer, so each connection passes a retained `SignalHandler` object as `user_data` and a fixed
//   `@convention(c)` thunk of the signal's C signature, which turns `user_data` back into the object
//   (Unmanaged, unretained) and calls its closure. The retain is balanced by the destroy notify GLib calls when
//   the handler is disconnected or the object finalized, so the object lives exactly as long as the
//   connection. `g_signal_connect_data` takes a `GCallback` (`void (*)(void)`); the thunk is cast to it with
//   unsafeBitCast, as C code casts with G_CALLBACK(): GLib calls it back through the signal's marshaller with
//   the signal's real arguments, which are those the thunk declares.
// - Threads. GTK is used on the main thread only, and every callback arrives there (GLib's default main
//   context runs on the main thread). The thunks are not isolated to the main actor in Swift's eyes, so they
//   enter it with `MainActor.assumeIsolated`, which checks at run time that they run on the main thread.

/// A pointer to a GObject instance as Swift imports it: `UnsafeMutablePointer<GtkBox>` for a class whose
/// instance struct GTK's headers declare, `OpaquePointer` for one they keep private (GtkLabel, GtkEntry,
/// interfaces such as GtkFileChooser), `gpointer` where the C API takes any object.
protocol GObjectPointer {
    /// The pointer as `gpointer`.
    var raw: UnsafeMutableRawPointer { get }
}
extension UnsafeMutablePointer: GObjectPointer {
    var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
}
extension OpaquePointer: GObjectPointer {
    var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
}
extension UnsafeMutableRawPointer: GObjectPointer {
    var raw: UnsafeMutableRawPointer { self }
}

/// Reinterprets a GObject pointer as a pointer to one of its classes (see the comment at the top of the file).
@inline(__always)
func cast<T, P: GObjectPointer>(_ pointer: P?) -> UnsafeMutablePointer<T>? {
    pointer.map { UnsafeMutablePointer<T>(OpaquePointer($0.raw)) }
}

/// Reinterprets a GObject pointer as a pointer to one of its classes or interfaces that Swift imports as opaque
/// (see the comment at the top of the file).
@inline(__always)
func cast<P: GObjectPointer>(_ pointer: P?) -> OpaquePointer? {
    pointer.map { OpaquePointer($0.raw) }
}

/// The same as `cast`, read as "the opaque pointer GTK's interfaces take".
@inline(__always)
func opaque<P: GObjectPointer>(_ pointer: P?) -> OpaquePointer? {
    pointer.map { OpaquePointer($0.raw) }
}

/// Drops a reference to a GObject (`g_object_unref`).
func unref<P: GObjectPointer>(_ pointer: P?) {
    if let pointer { g_object_unref(pointer.raw) }
}

/// The GTK widget pointer type.
typealias Widget = UnsafeMutablePointer<GtkWidget>

/// A Swift closure connected to a GObject signal, passed to GLib as the connection's `user_data`.
@MainActor
final class SignalHandler {
    let plain: (() -> Void)?
    let withPointer: ((UnsafeMutableRawPointer?) -> Void)?
    let withInt: ((Int32) -> Void)?
    let returningBool: (() -> Bool)?

    init(
        plain: (() -> Void)? = nil, withPointer: ((UnsafeMutableRawPointer?) -> Void)? = nil, withInt: ((Int32) -> Void)? = nil,
        returningBool: (() -> Bool)? = nil
    ) {
        self.plain = plain
        self.withPointer = withPointer
        self.withInt = withInt
        self.returningBool = returningBool
    }

    /// The handler behind a `user_data` pointer, which a connection made by `connect` holds a retain on.
    nonisolated static func from(_ data: UnsafeMutableRawPointer?) -> SignalHandler? {
        data.map { Unmanaged<SignalHandler>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// Releases the retain a connection holds on its handler (GLib calls it when the connection goes away).
private let releaseHandler: GClosureNotify = { data, _ in
    if let data { Unmanaged<SignalHandler>.fromOpaque(data).release() }
}

// The thunks, one per C signature used (see the comment at the top of the file).
private let plainThunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
    guard let handler = SignalHandler.from(data) else { return }
    MainActor.assumeIsolated { handler.plain?() }
}
private let pointerThunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
    _, argument, data in
    guard let handler = SignalHandler.from(data) else { return }
    // A raw pointer is not Sendable; it crosses into the main actor as an address, on the thread it came from
    // (assumeIsolated runs the closure right here, on the main thread), so nothing is shared with another thread.
    let address = UInt(bitPattern: argument)
    MainActor.assumeIsolated { handler.withPointer?(UnsafeMutableRawPointer(bitPattern: address)) }
}
private let intThunk: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Void = { _, argument, data in
    guard let handler = SignalHandler.from(data) else { return }
    MainActor.assumeIsolated { handler.withInt?(argument) }
}
private let boolThunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
    guard let handler = SignalHandler.from(data) else { return 0 }
    return MainActor.assumeIsolated { handler.returningBool?() ?? false } ? 1 : 0
}

/// Connects a handler to a signal of a GObject.
@MainActor
@discardableResult
private func connect<P: GObjectPointer>(_ instance: P?, _ signal: String, _ handler: SignalHandler, thunk: GCallback) -> UInt {
    let data = Unmanaged.passRetained(handler).toOpaque()
    return g_signal_connect_data(instance?.raw, signal, thunk, data, releaseHandler, GConnectFlags(rawValue: 0))
}

/// Connects a closure to a signal whose C handler takes only the instance (`clicked`, `activate`, `changed`).
@MainActor
@discardableResult
func onSignal<P: GObjectPointer>(_ instance: P?, _ signal: String, _ body: @escaping () -> Void) -> UInt {
    connect(instance, signal, SignalHandler(plain: body), thunk: unsafeBitCast(plainThunk, to: GCallback.self))
}

/// Connects a closure to a signal whose C handler takes the instance and one pointer (`row-selected`, an
/// action's `activate` with its parameter).
@MainActor
@discardableResult
func onSignalWithPointer<P: GObjectPointer>(_ instance: P?, _ signal: String, _ body: @escaping (UnsafeMutableRawPointer?) -> Void) -> UInt {
    connect(instance, signal, SignalHandler(withPointer: body), thunk: unsafeBitCast(pointerThunk, to: GCallback.self))
}

/// Connects a closure to a signal whose C handler takes the instance and an int (`response`).
@MainActor
@discardableResult
func onSignalWithInt<P: GObjectPointer>(_ instance: P?, _ signal: String, _ body: @escaping (Int32) -> Void) -> UInt {
    connect(instance, signal, SignalHandler(withInt: body), thunk: unsafeBitCast(intThunk, to: GCallback.self))
}

/// Connects a closure to a signal whose C handler takes the instance and returns a gboolean (`close-request`).
@MainActor
@discardableResult
func onSignalReturningBool<P: GObjectPointer>(_ instance: P?, _ signal: String, _ body: @escaping () -> Bool) -> UInt {
    connect(instance, signal, SignalHandler(returningBool: body), thunk: unsafeBitCast(boolThunk, to: GCallback.self))
}

// MARK: Timers

/// A repeating GLib timer running a closure on the main thread until it returns false or is removed (not
/// Foundation's `Timer`, which needs a running `RunLoop`).
@MainActor
final class GLibTimer {
    let body: () -> Bool
    private(set) var sourceID: UInt32 = 0

    /// Starts a timer firing every `seconds`.
    init(seconds: UInt32, _ body: @escaping () -> Bool) {
        self.body = body
        // The retain passed as user_data is released by the destroy notify when the source is removed (by
        // returning false or `cancel()`), so the timer lives as long as its source.
        let data = Unmanaged.passRetained(self).toOpaque()
        sourceID = g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, seconds, timerThunk, data, releaseTimer)
    }

    /// Removes the timer's source.
    func cancel() {
        if sourceID != 0 { g_source_remove(sourceID) }
        sourceID = 0
    }
}

private let timerThunk: GSourceFunc = { data in
    guard let data else { return 0 }
    let timer = Unmanaged<GLibTimer>.fromOpaque(data).takeUnretainedValue()
    return MainActor.assumeIsolated { timer.body() ? 1 : 0 }
}
private let releaseTimer: GDestroyNotify = { data in
    if let data { Unmanaged<GLibTimer>.fromOpaque(data).release() }
}

// MARK: Values

/// A Swift string of a C string GTK returns (nil for NULL); does not free it.
func string(_ text: UnsafePointer<CChar>?) -> String? {
    text.map { String(cString: $0) }
}

/// A Swift string of a C string GLib allocated, which is freed.
func takeString(_ text: UnsafeMutablePointer<CChar>?) -> String? {
    guard let text else { return nil }
    defer { g_free(text) }
    return String(cString: text)
}

/// Calls `body` with a NULL-terminated array of C strings (`const char * const *`), valid during the call.
func withCStringArray<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    var pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}

/// The string of a GVariant of type `s`, or nil for NULL or another type.
func stringValue(of variant: OpaquePointer?) -> String? {
    guard let variant, let type = g_variant_get_type_string(variant), String(cString: type) == "s" else { return nil }
    return string(g_variant_get_string(variant, nil))
}

/// A GVariant type made from its type string (`"s"`, `"u"`, `"(sss)"`; nil for none), valid during `body`.
///
/// In C, `G_VARIANT_TYPE("s")` casts the string literal, which lives forever. From Swift, a `String` passed as a C
/// string lives only for the call that receives it, so a type cast from it dangles as soon as that call returns
/// (the action then took whatever the freed bytes said: `n`, `i`). GLib's copy lives until `body` returns;
/// `g_simple_action_new` copies the type it is given.
func withVariantType<R>(_ string: String?, _ body: (OpaquePointer?) -> R) -> R {
    guard let string else { return body(nil) }
    let type = g_variant_type_new(string)
    defer { g_variant_type_free(type) }
    return body(type)
}

