import Foundation

/// The process's resident memory, from Linux's `/proc/self` (zero where it cannot be read).
///
/// Each ``BenchmarkRow`` records the peak since the previous row was made, and starts the next row's peak
/// afresh (`/proc/self/clear_refs`), so every row prints the peak of its own work.
enum PeakMemory {
    /// The resident set now, in bytes (`/proc/self/statm`'s second field, in pages).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The peak resident set since the last reset, in bytes (`VmHWM` of `/proc/self/status`).
    static func peakBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            // "VmHWM:\t   123456 kB": tabs and spaces before the number.
            let number = line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Int($0) } ?? 0
            return number * 1024
        }
        return 0
    }

    /// Starts a new peak from the resident set now (writing 5 to `/proc/self/clear_refs`, Linux 4.0 and later).
    static func resetPeak() {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return }
        handle.write(Data("5".utf8))
        try? handle.close()
    }

    /// The peak since the previous call (or the process's start), in megabytes, and a new peak started.
    static func takePeakMegabytes() -> Double {
        let peak = Double(peakBytes()) / 1_048_576
        resetPeak()
        return peak
    }
}
