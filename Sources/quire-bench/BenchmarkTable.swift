import Foundation

/// One benchmark's result: Quire's time against the raw-SQLite baseline doing the same work.
///
/// ```swift
/// let row = BenchmarkRow(
///     name: "insert 100k",
///     quireMilliseconds: try measure(bestOf: 3) { try insertWithQuire() },
///     baselineMilliseconds: try measure(bestOf: 3) { try RawSQLite.insert(rows, at: url) },
///     target: 3
/// )
/// ```
struct BenchmarkRow: Sendable, Hashable, Encodable {
    /// What was measured, such as `insert 100k`.
    var name: String
    /// Quire's time, in milliseconds.
    var quireMilliseconds: Double
    /// The raw-SQLite baseline's time, in milliseconds.
    var baselineMilliseconds: Double
    /// The largest acceptable ``ratio``, or `nil` when the benchmark is informative only.
    var target: Double?
    /// A remark printed after the row, such as how many runs were taken.
    var note: String
    /// The process's peak resident memory, in megabytes, since the previous row was made (this row's work).
    var peakMegabytes: Double

    /// Creates a row.
    ///
    /// - Parameters:
    ///   - name: What was measured.
    ///   - quireMilliseconds: Quire's time, in milliseconds.
    ///   - baselineMilliseconds: The baseline's time, in milliseconds.
    ///   - target: The largest acceptable ratio of Quire's time to the baseline's, if any.
    ///   - note: A remark printed after the row.
    ///   - peakMegabytes: The peak resident memory of the row's work; by default the peak since the previous
    ///     row was made (a new peak starts now).
    init(name: String, quireMilliseconds: Double, baselineMilliseconds: Double, target: Double? = nil,
         note: String = "", peakMegabytes: Double = PeakMemory.takePeakMegabytes()) {
        self.peakMegabytes = peakMegabytes
        self.name = name
        self.quireMilliseconds = quireMilliseconds
        self.baselineMilliseconds = baselineMilliseconds
        self.target = target
        self.note = note
    }

    /// Quire's time divided by the baseline's: 1 is as fast as raw SQLite, 2 is twice as slow.
    ///
    /// Infinity when the baseline took no measurable time.
    var ratio: Double {
        baselineMilliseconds > 0 ? quireMilliseconds / baselineMilliseconds : .infinity
    }

    /// Whether the ratio is within the target: `nil` without a target.
    var passed: Bool? {
        target.map { ratio <= $0 }
    }

    private enum CodingKeys: String, CodingKey {
        case name
        case quireMilliseconds = "quire_ms"
        case baselineMilliseconds = "baseline_ms"
        case ratio
        case target
        case passed
        case note
        case peakMegabytes = "peak_rss_mb"
    }

    /// Encodes the row as `name`, `quire_ms`, `baseline_ms`, `ratio`, `target` (null without one), `passed`
    /// (null without a target), `note` and `peak_rss_mb`; an infinite ratio is encoded as null.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(Self.rounded(quireMilliseconds), forKey: .quireMilliseconds)
        try container.encode(Self.rounded(baselineMilliseconds), forKey: .baselineMilliseconds)
        try container.encode(ratio.isFinite ? Self.rounded(ratio) : nil, forKey: .ratio)
        try container.encode(target, forKey: .target)
        try container.encode(passed, forKey: .passed)
        try container.encode(note, forKey: .note)
        try container.encode(Self.rounded(peakMegabytes), forKey: .peakMegabytes)
    }

    /// `value` rounded to three decimals, so the JSON carries no noise digits.
    private static func rounded(_ value: Double) -> Double {
        (value * 1000).rounded() / 1000
    }
}

/// Prints benchmark rows as an aligned text table or as JSON.
///
/// ```swift
/// let table = BenchmarkTable(rows: rows)
/// if CommandLine.arguments.contains("--json") {
///     print(try table.json())
/// } else {
///     print(table.text())
/// }
/// ```
///
/// The text table looks like this:
///
/// ```
/// benchmark        quire ms   sqlite ms   ratio  target  result  note
/// insert 100k        812.40      201.10    4.04    5.00  pass    best of 3
/// ```
struct BenchmarkTable: Sendable {
    /// The rows, in the order printed.
    var rows: [BenchmarkRow]

    /// Creates a table of `rows`.
    init(rows: [BenchmarkRow]) {
        self.rows = rows
    }

    /// Whether every row with a target met it.
    var allPassed: Bool {
        rows.allSatisfy { $0.passed ?? true }
    }

    /// The table as aligned text: a header line, then one line a row; names left-aligned, numbers right-aligned.
    func text() -> String {
        let header = ["benchmark", "quire ms", "sqlite ms", "ratio", "target", "result", "peak MB", "note"]
        var lines: [[String]] = [header]
        for row in rows {
            let result: String
            switch row.passed {
            case .some(true): result = "pass"
            case .some(false): result = "FAIL"
            case .none: result = "-"
            }
            lines.append([
                row.name,
                Self.format(row.quireMilliseconds),
                Self.format(row.baselineMilliseconds),
                row.ratio.isFinite ? Self.format(row.ratio) : "inf",
                row.target.map(Self.format) ?? "-",
                result,
                String(format: "%.0f", row.peakMegabytes),
                row.note,
            ])
        }
        let leftAligned: Set<Int> = [0, 5, 7]
        var widths = [Int](repeating: 0, count: header.count)
        for line in lines {
            for (column, cell) in line.enumerated() {
                widths[column] = max(widths[column], cell.count)
            }
        }
        let rendered = lines.map { line in
            line.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return leftAligned.contains(column) ? cell + padding : padding + cell
            }
            .joined(separator: "  ")
            .trimmingTrailingSpaces()
        }
        return rendered.joined(separator: "\n")
    }

    /// The table as a JSON array of objects with the keys `name`, `quire_ms`, `baseline_ms`, `ratio`, `target`,
    /// `passed`, `note` and `peak_rss_mb`, pretty-printed with sorted keys.
    ///
    /// - Throws: `EncodingError` if a time is not finite.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(rows), as: UTF8.self)
    }

    /// `value` with two decimals.
    private static func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}

extension String {
    /// The string without its trailing spaces.
    fileprivate func trimmingTrailingSpaces() -> String {
        var result = Substring(self)
        while result.last == " " {
            result.removeLast()
        }
        return String(result)
    }
}

/// Runs `body` once and returns how long it took, in milliseconds, on the monotonic clock.
///
/// ```swift
/// let milliseconds = try measure { try RawSQLite.fetchAll(at: url) }
/// ```
///
/// - Parameter body: The work to time.
/// - Returns: The elapsed time in milliseconds.
/// - Throws: What `body` throws.
func measure(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return milliseconds(start.duration(to: clock.now))
}

/// Runs `body` `runs` times and returns the fastest run, in milliseconds, on the monotonic clock.
///
/// ```swift
/// let best = try measure(bestOf: 5) { _ = try RawSQLite.fetchAll(at: url) }
/// ```
///
/// - Parameters:
///   - runs: How many times to run `body`; at least 1.
///   - body: The work to time.
/// - Returns: The shortest elapsed time in milliseconds.
/// - Throws: What `body` throws.
func measure(bestOf runs: Int, _ body: () throws -> Void) rethrows -> Double {
    try measure(bestOf: runs, setUp: {}, body)
}

/// Runs `setUp` then `body`, `runs` times, and returns the fastest run of `body`, in milliseconds, on the
/// monotonic clock.
///
/// `setUp` runs before each run, outside the timing: use it to remove the file a previous run wrote.
///
/// ```swift
/// let best = try measure(bestOf: 3, setUp: { try RawSQLite.removeStore(at: url) }) {
///     try RawSQLite.insert(rows, at: url)
/// }
/// ```
///
/// - Parameters:
///   - runs: How many times to run `body`; at least 1.
///   - setUp: Work to do before each run, not timed.
///   - body: The work to time.
/// - Returns: The shortest elapsed time in milliseconds.
/// - Throws: What `setUp` or `body` throws.
func measure(bestOf runs: Int, setUp: () throws -> Void, _ body: () throws -> Void) rethrows -> Double {
    precondition(runs >= 1, "measure(bestOf:) needs at least one run")
    var best = Double.infinity
    for _ in 0..<runs {
        try setUp()
        best = min(best, try measure(body))
    }
    return best
}

/// A duration in milliseconds.
func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}
