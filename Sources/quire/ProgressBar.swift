import Dispatch
import Foundation
import Synchronization

/// A progress bar on standard error for long conversions: the objects copied so far against their number,
/// the bytes written into the output's staging folder against the input's size, the rate and the time left.
/// Drawn only when standard error is a terminal, and only once a conversion has run for half a second.
///
/// `@unchecked Sendable`: the timer's handler only reads immutable properties and the atomics and mutexes;
/// `timer` itself is read and written only under `lock`.
final class ProgressBar: @unchecked Sendable {
    private let totalBytes: Int64
    private let enabled: Bool
    private let lock = NSLock()
    private var timer: DispatchSourceTimer?
    private let started = Mutex<Date>(Date())
    private let drawn = Atomic<Bool>(false)
    private let objectsCopied = Atomic<Int>(0)
    private let objectsTotal = Atomic<Int>(0)

    /// Records how many objects the conversion has copied (called from the conversion's thread).
    func objects(copied: Int, of total: Int) {
        objectsCopied.store(copied, ordering: .relaxed)
        objectsTotal.store(total, ordering: .relaxed)
    }

    init(totalBytes: Int64, enabled: Bool) {
        self.totalBytes = max(totalBytes, 1)
        self.enabled = enabled
    }

    /// Starts redrawing every 200 ms the size of what appears in `folder`.
    func start(watching folder: URL) {
        guard enabled else { return }
        started.withLock { $0 = Date() }
        let source = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        source.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(200))
        source.setEventHandler { [self] in draw(folder) }
        lock.withLock { timer = source }
        source.resume()
    }

    /// Stops and clears the line.
    func stop() {
        guard enabled else { return }
        lock.withLock {
            timer?.cancel()
            timer = nil
        }
        if drawn.load(ordering: .relaxed) { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }

    private func draw(_ folder: URL) {
        let written = Self.treeSize(folder)
        let copied = objectsCopied.load(ordering: .relaxed)
        let objects = objectsTotal.load(ordering: .relaxed)
        // Objects are copied before the output is written (atomic stores write it whole at the end): the
        // fraction follows whichever is further along.
        let fraction = min(max(Double(written) / Double(totalBytes), objects > 0 ? Double(copied) / Double(objects) : 0), 1)
        let elapsed = Date().timeIntervalSince(started.withLock { $0 })
        let rate = elapsed > 0 ? Double(written) / elapsed : 0
        let left = rate > 0 ? Double(totalBytes - min(written, totalBytes)) / rate : 0
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let line = String(
            format: "\r[%@] %3d%%  %d/%d objects  %@/%@  %@/s  %ds left", bar, Int(fraction * 100), copied, objects,
            byteCount(written), byteCount(totalBytes), byteCount(Int64(rate)), Int(left.rounded()))
        FileHandle.standardError.write(Data(line.utf8))
        drawn.store(true, ordering: .relaxed)
    }

    private static func treeSize(_ url: URL) -> Int64 {
        guard let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey]) else {
            return 0
        }
        var total: Int64 = 0
        for case let file as URL in enumerator {
            total += Int64((try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
        }
        return total
    }
}
