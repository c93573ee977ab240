import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// `quire pack PACKAGE ARCHIVE`: a package into a zip or tar archive.
struct Pack: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a document package as a zip or tar archive (mimetype first, stored).",
        discussion: "The format comes from --format, else the archive's extension (.tar: tar; otherwise zip).")

    @Argument(help: "The package folder.")
    var package: String

    @Argument(help: "The archive to write.")
    var archive: String

    @Option(help: "zip or tar.")
    var format: ArchiveArgument?

    @Flag(help: "Replace the archive if it exists.")
    var force = false

    func run() throws {
        let source = fileURL(package)
        let output = fileURL(archive)
        let container = try reading(source) { try DocumentContents.container(at: source) }
        guard container == .package else {
            throw CommandFailure(status: .unreadableInput, message: "'\(source.path)' is a \(container.rawValue), not a document package.")
        }
        try checkOutputFree(output, force: force)
        let chosen = format ?? (output.pathExtension.lowercased() == "tar" ? .tar : .zip)
        let staging = try stagingFolder(beside: output)
        defer { try? FileManager.default.removeItem(at: staging) }
        let file = staging.appendingPathComponent("archive")
        try reading(source) { try DocumentContents.writeArchive(ofPackage: source, to: file, format: chosen.format) }
        try moveIntoPlace(file, to: output, force: force)
        print("Packed \(package) into \(archive) (\(chosen.rawValue)).")
    }
}

/// `quire unpack ARCHIVE PACKAGE`: an archive into a package folder.
struct Unpack: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Extract a zip or tar document archive into a package folder.")

    @Argument(help: "The archive.")
    var archive: String

    @Argument(help: "The package folder to create.")
    var package: String

    @Flag(help: "Replace the package if it exists.")
    var force = false

    func run() throws {
        let source = fileURL(archive)
        let output = fileURL(package)
        let container = try reading(source) { try DocumentContents.container(at: source) }
        guard container == .zipArchive || container == .tarArchive else {
            throw CommandFailure(status: .unreadableInput, message: "'\(source.path)' is a \(container.rawValue), not a document archive.")
        }
        try checkOutputFree(output, force: force)
        let staging = try stagingFolder(beside: output)
        defer { try? FileManager.default.removeItem(at: staging) }
        let built = staging.appendingPathComponent("package", isDirectory: true)
        try reading(source) { try DocumentContents.extractArchive(source, toPackage: built) }
        try moveIntoPlace(built, to: output, force: force)
        print("Unpacked \(archive) (\(container.rawValue)) into \(package).")
    }
}
