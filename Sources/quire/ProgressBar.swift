import Dispatch
import Foundation
import Quire
import QuireSupport

/// Progress on standard error for conversions, over every phase (verifying the source, copying the store and
/// its external data, writing the archive, finishing), in bytes and objects with the rate and the time left.
///
/// On a terminal the line is redrawn every 200 ms once the work has run for half a second (and cleared at the
/// end); otherwise (pipes, CI logs) nothing is redrawn and, for a run over several files, one line is written
/// per file as it ends. `.off` for `--quiet` and `--json`.
final class ProgressBar: Sendable {
    /// How progress is shown.
    enum Mode: Sendable {
        /// A line redrawn in place (standard error is a terminal).
        case terminal
        /// One line per finished file (standard error is a pipe or a file).
        case lines
        /// Nothing.
        case off
    }

    private struct State {
        var finishedFiles = 0
        var failedFiles = 0
        var started: Date?
        var timer: DispatchSourceTimer?
        var drawn = false
        /// The fraction last shown (the bar never goes back) and the recent rate of progress.
        var shownFraction: Double = 0
        var estimate = RateEstimate()
    }

    private let mode: Mode
    private let jobs: [ConversionTracker]
    private var fileCount: Int { jobs.count }
    private let state = LockedValue(State())

    /// A progress display for the conversions `jobs` (all of them, started or not: their sizes make the total).
    init(mode: Mode, jobs: [ConversionTracker]) {
        self.mode = mode
        self.jobs = jobs
    }

    /// The mode standard error calls for, given `--quiet` and `--json`.
    static func mode(quiet: Bool, json: Bool) -> Mode {
        if quiet || json { return .off }
        return isatty(STDERR_FILENO) == 1 ? .terminal : .lines
    }

    /// Marks a conversion started; the first one starts the redraws.
    func begin(_ tracker: ConversionTracker) {
        tracker.begin()
        let startTimer = state.withLock { state -> Bool in
            guard state.started == nil else { return false }
            state.started = Date()
            return mode == .terminal
        }
        guard startTimer else { return }
        let source = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        source.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(200))
        source.setEventHandler { [self] in redraw() }
        state.withLock { $0.timer = source }
        source.resume()
    }

    /// Records that a conversion ended; in line mode, writes its line when several files are converted.
    func end(_ tracker: ConversionTracker, line: String, succeeded: Bool) {
        tracker.finish()
        state.withLock { state in
            state.finishedFiles += 1
            if !succeeded { state.failedFiles += 1 }
            // Written under the lock, so that two conversions ending at once print their numbers in order.
            if mode == .lines && fileCount > 1 {
                printError("[\(state.finishedFiles)/\(fileCount)] \(line)")
            }
        }
    }

    /// Prints a line of output (`toStandardError` for errors) above the bar: the bar's line is cleared first
    /// and drawn again at the next redraw, so that the two never share a line.
    func printAbove(_ line: String, toStandardError: Bool) {
        state.withLock { state in
            if state.drawn { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
            state.drawn = false
            if toStandardError {
                printError(line)
            } else {
                // Unbuffered, so that it comes before the summary line that `print` writes at the end.
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            }
        }
    }

    /// Stops the redraws and clears the line (once; calling it again does nothing).
    func stop() {
        // Written under the lock, so that a redraw running now cannot draw after the line is cleared.
        state.withLock { state in
            state.timer?.cancel()
            state.timer = nil
            if state.drawn { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
            state.drawn = false
        }
    }

    private func redraw() {
        state.withLock { state in
            guard state.timer != nil, state.started != nil else { return }
            state.drawn = true
            let now = Date()
            // The bar never goes back: the archive's size is known only once it is being written, which can
            // make the total grow; the fraction shown stays where it was until the work catches up.
            let fraction = max(Self.fraction(jobs: jobs), state.shownFraction)
            state.shownFraction = fraction
            state.estimate.add(fraction: fraction, at: now)
            let line = Self.render(
                jobs: jobs, finished: state.finishedFiles, fileCount: fileCount, fraction: fraction,
                timeLeft: state.estimate.timeLeft(fraction: fraction), width: Self.terminalWidth())
            FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
        }
    }

    /// The fraction of the work done over every conversion.
    static func fraction(jobs: [ConversionTracker]) -> Double {
        var done: Int64 = 0
        var total: Int64 = 0
        for job in jobs {
            let snapshot = job.snapshot()
            done += snapshot.done
            total += snapshot.total
        }
        return min(Double(done) / Double(max(total, done, 1)), 1)
    }

    /// The progress line for the conversions so far, `fraction` done with `timeLeft` seconds left (nil when
    /// the recent rate does not tell), cut to `width` columns. The phases named are those running now.
    static func render(
        jobs: [ConversionTracker], finished: Int, fileCount: Int, fraction: Double, timeLeft: Double?, width: Int
    ) -> String {
        var done: Int64 = 0
        var total: Int64 = 0
        var copied = 0
        var objects = 0
        var phases: [String] = []
        for job in jobs {
            let snapshot = job.snapshot()
            done += snapshot.done
            total += snapshot.total
            copied += snapshot.objectsCopied
            objects += snapshot.objectCount
            if snapshot.begun && !snapshot.finished && !phases.contains(snapshot.phase.description) {
                phases.append(snapshot.phase.description)
            }
        }
        total = max(total, done, 1)
        let barWidth = 20
        let filled = Int(fraction * Double(barWidth))
        var parts = [
            "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]",
            String(format: "%3d%%", Int(fraction * 100)),
        ]
        if fileCount > 1 { parts.append("\(finished)/\(fileCount) files") }
        if !phases.isEmpty { parts.append(phases.joined(separator: ", ")) }
        if objects > 0 { parts.append("\(copied)/\(objects) objects") }
        parts.append("\(byteCount(done))/\(byteCount(total))")
        parts.append(timeLeft.map { "ETA \($0 < 1 && fraction < 1 ? "<1s" : duration($0))" } ?? "ETA --")
        let line = parts.joined(separator: "  ")
        return width > 0 && line.count > width - 1 ? String(line.prefix(width - 1)) : line
    }

    /// A short duration: `42s`, `3m05s`, `1h02m`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return String(format: "%dm%02ds", whole / 60, whole % 60) }
        return String(format: "%dh%02dm", whole / 3600, (whole % 3600) / 60)
    }

    private static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 else { return 0 }
        return Int(size.ws_col)
    }
}

/// One conversion's progress, fed by `DocumentContents.convert`'s callbacks on the conversion's thread and read
/// by the progress bar's timer.
final class ConversionTracker: Sendable {
    /// What the bar needs of a conversion at one moment.
    struct Snapshot {
        var phase: DocumentContents.ConversionProgress.Phase
        var objectsCopied: Int
        var objectCount: Int
        var done: Int64
        var total: Int64
        var begun: Bool
        var finished: Bool
    }

    private struct State {
        var progress = DocumentContents.ConversionProgress(phase: .verifying)
        var staging: URL?
        var archiveTotal: Int64 = 0
        var copyBytes: Int64
        var phaseStarts: [(phase: DocumentContents.ConversionProgress.Phase, at: Date)] = []
        var begun = false
        var finished = false
    }

    /// Whether the output is an archive (which is written after the copy, a second pass over the bytes).
    let writesArchive: Bool
    private let state: LockedValue<State>

    /// A tracker for a conversion of a store of `storeBytes` with `externalDataBytes` of external data.
    init(storeBytes: Int64, externalDataBytes: Int64, writesArchive: Bool) {
        state = LockedValue(State(copyBytes: max(storeBytes + externalDataBytes, 1)))
        self.writesArchive = writesArchive
    }

    /// Sets the bytes the store copy handles (the source store and its external data) once the input is open.
    func setCopyBytes(_ bytes: Int64) { state.withLock { $0.copyBytes = max(bytes, 1) } }

    /// How long each phase took, in order, the last one until `end`.
    func phaseTimes(until end: Date) -> [(phase: String, seconds: Double)] {
        let starts = state.withLock { $0.phaseStarts }
        return starts.enumerated().map { index, start in
            let next = index + 1 < starts.count ? starts[index + 1].at : end
            return (start.phase.description, next.timeIntervalSince(start.at))
        }
    }

    /// The conversion's staging folder, whose size shows how far the store copy has got.
    func watch(_ folder: URL) { state.withLock { $0.staging = folder } }

    /// A report from the conversion.
    func update(_ progress: DocumentContents.ConversionProgress) {
        state.withLock { state in
            if state.phaseStarts.last?.phase != progress.phase { state.phaseStarts.append((progress.phase, Date())) }
            state.progress = progress
            if progress.phase == .writingArchive { state.archiveTotal = progress.bytesTotal }
        }
    }

    /// Marks the conversion started.
    func begin() { state.withLock { $0.begun = true } }

    /// Marks the conversion ended.
    func finish() { state.withLock { $0.finished = true } }

    /// The bytes done and in all, over the phases: the copy weighs the source's bytes, the archive the
    /// package's (estimated as the source's until the writer knows).
    func snapshot() -> Snapshot {
        let (progress, staging, archiveTotal, copyBytes, begun, finished) = state.withLock {
            ($0.progress, $0.staging, $0.archiveTotal, $0.copyBytes, $0.begun, $0.finished)
        }
        let archiveBytes = writesArchive ? (archiveTotal > 0 ? archiveTotal : copyBytes) : 0
        let total = copyBytes + archiveBytes
        let done: Int64
        if finished {
            done = total
        } else if !begun {
            done = 0
        } else {
            switch progress.phase {
            case .verifying:
                done = 0
            case .copyingStore:
                let objects = progress.objectCount > 0 ? Double(progress.objectsCopied) / Double(progress.objectCount) : 0
                let written = staging.map(ConversionJob.treeSize) ?? 0
                done = min(max(Int64(objects * Double(copyBytes)), written), copyBytes)
            case .copyingExternalData:
                done = copyBytes
            case .writingArchive:
                done = copyBytes + min(progress.bytesDone, archiveBytes)
            case .finishing:
                done = total
            }
        }
        return Snapshot(
            phase: progress.phase, objectsCopied: progress.objectsCopied, objectCount: progress.objectCount, done: done,
            total: total, begun: begun, finished: finished)
    }
}
