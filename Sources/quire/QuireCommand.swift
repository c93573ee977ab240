import ArgumentParser
import Foundation
import Quire
import QuirePostgres
import QuireCore
import QuireStores

/// The `quire` command-line tool: a thin layer over the Quire library.
///
/// Exit statuses: 0 success, 1 differences (`diff`), 2 usage, 3 unreadable or invalid input, 4 output not
/// written. Errors are one line on standard error naming the file and the problem (a JSON object on standard
/// output under `--json`).
@main
struct QuireCommand: ParsableCommand {
    /// The tool's version, printed by `quire --version`.
    static let version = "0.9.0-dev"

    static let configuration = CommandConfiguration(
        commandName: "quire",
        abstract: "Inspect and convert Quire documents and Core Data stores.",
        discussion: "Exit status: 0 success, 1 differences (diff), 2 usage, 3 unreadable or invalid input, 4 output not written.",
        version: version,
        subcommands: [
            Convert.self, Info.self, Metadata.self, Dump.self, Diff.self, ModelCommand.self, Verify.self, Pack.self, Unpack.self,
            Samples.self, Demo.self,
        ])

    /// Parses and runs a command, mapping every failure to the documented exit statuses.
    static func main() {
        let arguments = ModelCommand.rewriteBareGraph(Array(CommandLine.arguments.dropFirst()))
        if arguments == ["--generate-manual"] {
            Foundation.exit(ManualPage.printManual())
        }
        let json = wantsJSON(arguments)
        // The tool links QuirePostgres: naming its store type registers it, so `--type PostgreSQL`, a store's
        // recorded type and `postgresql://` URLs all find it.
        _ = StoreType.postgres
        CleanupOnSignal.install()
        if let failure = unknownSubcommand(in: arguments) {
            Foundation.exit(report(failure, json: json))
        }
        let status: Int32
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            status = 0
        } catch let failure as CommandFailure {
            status = report(failure, json: json)
        } catch let error as QuireError {
            status = report(CommandFailure(status: .unreadableInput, message: error.message, error: error), json: json)
        } catch let exit as ExitCode {
            status = exit.rawValue
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                status = 0
            } else {
                let message = message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "\(error)"
                let usage = code == .validationFailure
                status = report(
                    CommandFailure(
                        status: usage ? .usage : ExitStatus(rawValue: code.rawValue) ?? .usage,
                        message: json ? message : "\(message) (see 'quire help')"),
                    json: json)
            }
        }
        Foundation.exit(status)
    }

    /// Prints a failure (one line on standard error, or a JSON object on standard output) and returns its status.
    static func report(_ failure: CommandFailure, json: Bool) -> Int32 {
        if json, let data = try? failure.jsonData() {
            print(String(decoding: data, as: UTF8.self))
        } else {
            printError("quire: \(failure.message)")
        }
        return failure.status.rawValue
    }

    /// Whether the command line asks for JSON (before `--`, for a command that takes `--json`).
    static func wantsJSON(_ arguments: [String]) -> Bool {
        let options = arguments.prefix { $0 != "--" }
        return options.contains("--json")
    }

    /// The names of the subcommands, `help` included.
    static var subcommandNames: [String] {
        configuration.subcommands.map { $0._commandName } + ["help"]
    }

    /// A helpful usage failure when the first argument is meant as a subcommand but names none
    /// (`quire conver a b` says so, with the nearest command, instead of "3 unexpected arguments").
    static func unknownSubcommand(in arguments: [String]) -> CommandFailure? {
        guard let first = arguments.first, !first.hasPrefix("-"), !subcommandNames.contains(first) else { return nil }
        let names = subcommandNames
        let nearest = names.map { ($0, editDistance(first.lowercased(), $0)) }.min { $0.1 < $1.1 }
        var message = "'\(first)' is not a quire command."
        if let nearest, nearest.1 <= max(2, first.count / 3) { message += " Did you mean '\(nearest.0)'?" }
        message += " Commands: \(configuration.subcommands.map { $0._commandName }.joined(separator: ", ")) (see 'quire help')."
        return CommandFailure(status: .usage, message: message)
    }

    /// The Levenshtein distance between two strings.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
