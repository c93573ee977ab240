import CFuzzer
import Foundation

// libFuzzer's entry points. The reader is chosen once, from QUIRE_FUZZ_TARGET; with QUIRE_FUZZ_SEEDS set to a
// folder, the process writes that target's seed corpus there (from the repository's sample documents and
// fixtures, QUIRE_FUZZ_ROOT) and exits instead of fuzzing.

/// The reader this process fuzzes, chosen by ``LLVMFuzzerInitialize``.
nonisolated(unsafe) private var selected: FuzzTarget?

/// Chooses the target, or writes its seeds and exits.
@_cdecl("LLVMFuzzerInitialize")
public func LLVMFuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    let environment = ProcessInfo.processInfo.environment
    guard let name = environment["QUIRE_FUZZ_TARGET"], let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")
        FileHandle.standardError.write(Data("Set QUIRE_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    if let seeds = environment["QUIRE_FUZZ_SEEDS"] {
        let root = URL(fileURLWithPath: environment["QUIRE_FUZZ_ROOT"] ?? FileManager.default.currentDirectoryPath)
        do {
            let count = try FuzzSeeds.write(for: target, from: root, to: URL(fileURLWithPath: seeds))
            print("\(target.rawValue): \(count) seeds in \(seeds)")
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("\(target.rawValue): seeds not written: \(error)\n".utf8))
            exit(1)
        }
    }
    selected = target
    return 0
}

/// Runs one input through the chosen reader. Thrown errors are the expected answer to bad input; only a
/// crash, a hang or a sanitizer report is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let target = selected else { return 0 }
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    target.run(data)
    return 0
}

/// The executable's entry: libFuzzer's driver, calling ``LLVMFuzzerInitialize`` and then
/// ``LLVMFuzzerTestOneInput`` for each input. (SwiftPM links an executable's main under a name of its own,
/// so libFuzzer's `main` cannot be the entry.)
@main
enum QuireFuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in LLVMFuzzerTestOneInput(bytes, count) })
    }
}
