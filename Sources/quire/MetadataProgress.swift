import Dispatch
import Foundation
import Quire
import QuireSupport

/// Progress on standard error for `quire metadata` changing a big archive (rewritten whole): the phase running
/// and, while the archive is written, its bytes with the rate and the time left. Drawn on a terminal only,
/// once the work has run for half a second, and cleared at the end.
final class MetadataProgress: Sendable {
    private struct State {
        var phase = "reading the archive"
        var done: Int64 = 0
        var total: Int64 = 0
        var timer: DispatchSourceTimer?
        var drawn = false
        var rate = RateEstimate()
    }

    private let state = LockedValue(State())

    /// Starts the redraws when `enabled` and standard error is a terminal.
    init(enabled: Bool) {
        guard enabled, isatty(STDERR_FILENO) == 1 else { return }
        let source = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        source.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(200))
        source.setEventHandler { [self] in redraw() }
        state.withLock { $0.timer = source }
        source.resume()
    }

    /// Names the phase now running.
    func phase(_ name: String) {
        state.withLock {
            $0.phase = name
            $0.done = 0
            $0.total = 0
            $0.rate = RateEstimate()
        }
    }

    /// The bytes of the phase done and in all.
    func update(done: Int64, total: Int64) {
        state.withLock {
            $0.done = max($0.done, done)
            $0.total = max(total, $0.done)
        }
    }

    /// Stops the redraws and clears the line (calling it again does nothing).
    func stop() {
        state.withLock { state in
            state.timer?.cancel()
            state.timer = nil
            if state.drawn { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
            state.drawn = false
        }
    }

    private func redraw() {
        state.withLock { state in
            guard state.timer != nil else { return }
            state.drawn = true
            var parts = [state.phase]
            if state.total > 0 {
                let fraction = min(Double(state.done) / Double(state.total), 1)
                state.rate.add(fraction: fraction, at: Date())
                parts.append(String(format: "%3d%%", Int(fraction * 100)))
                parts.append("\(byteCount(state.done))/\(byteCount(state.total))")
                parts.append(state.rate.timeLeft(fraction: fraction).map { "ETA \(ProgressBar.duration($0))" } ?? "ETA --")
            }
            FileHandle.standardError.write(Data(("\r\u{1B}[2K" + parts.joined(separator: "  ")).utf8))
        }
    }
}

/// The time left from the recent rate of progress: the fraction done per second over the last few seconds
/// (not since the start, so that a phase done at once, or a slow one, does not skew it).
struct RateEstimate: Sendable {
    private var samples: [(time: Date, fraction: Double)] = []

    /// Records the fraction done at a moment.
    mutating func add(fraction: Double, at time: Date) {
        samples.append((time, fraction))
        samples.removeAll { time.timeIntervalSince($0.time) > 5 }
    }

    /// The fraction done per second lately, nil until two samples a moment apart show progress.
    var rate: Double? {
        guard let first = samples.first, let last = samples.last else { return nil }
        let seconds = last.time.timeIntervalSince(first.time)
        guard seconds >= 0.3, last.fraction > first.fraction else { return nil }
        return (last.fraction - first.fraction) / seconds
    }

    /// The seconds left at the recent rate; nil when unknown (no progress lately).
    func timeLeft(fraction: Double) -> Double? {
        guard let rate, rate > 0 else { return nil }
        return max(0, (1 - fraction) / rate)
    }
}
