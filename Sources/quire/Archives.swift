import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// `quire pack PACKAGE ARCHIVE`: a package into a zip or tar archive.
struct Pack: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a document package as a zip or tar archive (mimetype first, stored).",
        discussion: """
            The format comes from --format, else the archive's extension (.tar: tar; otherwise zip); a name that says \
            the other format is refused. '-' writes the archive to standard output.

            Examples:
              quire pack Report.quiredoc Report.zip
              quire pack Report.quiredoc - --format tar > Report.tar
            """)

    @Argument(help: "The package folder.", completion: .directory)
    var package: String

    @Argument(help: "The archive to write ('-' for standard output).", completion: .file(extensions: ["zip", "tar"]))
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
        let ext = output.pathExtension.lowercased()
        if let format, let named = ArchiveArgument(rawValue: ext), named != format {
            // `--format tar Doc.zip` would write a tar every tool takes for a zip.
            throw CommandFailure(
                status: .usage,
                message: "'\(output.lastPathComponent)' is named like a \(named.rawValue) archive, but --format is \(format.rawValue): "
                    + "name it '\(output.deletingPathExtension().lastPathComponent).\(format.rawValue)' or drop --format.")
        }
        if archive == "-" {
            // Standard output: built in a private folder, then streamed.
            let chosen = format ?? .zip
            let folder = try StandardStreams.privateFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("archive")
            Messages.show(file, as: "standard output")
            try copying(from: source, to: file) { try DocumentContents.writeArchive(ofPackage: source, to: file, format: chosen.format) }
            try StandardStreams.send(file)
            return
        }
        try checkOutputFree(output, force: force)
        let chosen = format ?? (ext == "tar" ? .tar : .zip)
        let staging = try stagingFolder(beside: output)
        defer { try? FileManager.default.removeItem(at: staging) }
        let file = staging.appendingPathComponent("archive")
        try copying(from: source, to: output) { try DocumentContents.writeArchive(ofPackage: source, to: file, format: chosen.format) }
        try moveIntoPlace(file, to: output, force: force)
        print("Packed \(package) into \(archive) (\(chosen.rawValue)).")
    }
}

/// `quire unpack ARCHIVE PACKAGE`: an archive into a package folder.
struct Unpack: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Extract a zip or tar document archive into a package folder.",
        discussion: """
            Examples:
              quire unpack Report.zip Report.quiredoc
              cat Report.zip | quire unpack - Report.quiredoc
            """)

    @Argument(help: "The archive ('-' for standard input).", completion: .file(extensions: ["zip", "tar"]))
    var archive: String

    @Argument(help: "The package folder to create.", completion: .directory)
    var package: String

    @Flag(help: "Replace the package if it exists.")
    var force = false

    func run() throws {
        var spooled: URL?
        defer { if let spooled { try? FileManager.default.removeItem(at: spooled.deletingLastPathComponent()) } }
        if archive == "-" {
            let file = try StandardStreams.spoolInput()
            spooled = file
            Messages.show(file, as: "standard input")
        }
        let source = spooled ?? fileURL(archive)
        let output = fileURL(package)
        let container = try reading(source) { try DocumentContents.container(at: source) }
        guard container == .zipArchive || container == .tarArchive else {
            throw CommandFailure(status: .unreadableInput, message: "'\(source.path)' is a \(container.rawValue), not a document archive.")
        }
        try checkOutputFree(output, force: force)
        let staging = try stagingFolder(beside: output)
        defer { try? FileManager.default.removeItem(at: staging) }
        let built = staging.appendingPathComponent("package", isDirectory: true)
        try copying(from: source, to: output) { try DocumentContents.extractArchive(source, toPackage: built) }
        try moveIntoPlace(built, to: output, force: force)
        print("Unpacked \(archive) (\(container.rawValue)) into \(package).")
    }
}
