import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// The `quire` command-line tool: a thin layer over the Quire library.
///
/// Exit statuses: 0 success, 1 differences (`diff`), 2 usage, 3 unreadable or invalid input, 4 output not
/// written. Errors are one line on standard error naming the file and the problem.
@main
struct QuireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire",
        abstract: "Inspect and convert Quire documents and Core Data stores.",
        discussion: "Exit status: 0 success, 1 differences (diff), 2 usage, 3 unreadable or invalid input, 4 output not written.",
        subcommands: [
            Convert.self, Info.self, Metadata.self, Dump.self, Diff.self, Verify.self, Pack.self, Unpack.self,
            Samples.self, Demo.self,
        ])

    /// Parses and runs a command, mapping every failure to the documented exit statuses.
    static func main() {
        let status: Int32
        do {
            var command = try parseAsRoot()
            try command.run()
            status = 0
        } catch let failure as CommandFailure {
            printError("quire: \(failure.message)")
            status = failure.status.rawValue
        } catch let error as QuireError {
            printError("quire: \(error.message)")
            status = ExitStatus.unreadableInput.rawValue
        } catch let exit as ExitCode {
            status = exit.rawValue
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                status = 0
            } else {
                let message = message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "\(error)"
                printError("quire: \(message) (see 'quire help')")
                status = code == .validationFailure ? ExitStatus.usage.rawValue : code.rawValue
            }
        }
        Foundation.exit(status)
    }
}
