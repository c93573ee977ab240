import ArgumentParser
import Foundation
import Quire

/// The `quire` command-line tool: a thin layer over the Quire library.
@main
struct QuireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire",
        abstract: "Inspect and convert Quire documents and Core Data stores.",
        subcommands: [Demo.self])
}
