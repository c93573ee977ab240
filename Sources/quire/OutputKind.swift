import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// What `quire convert` writes (a container and a store type), from `--package`, `--archive`, `--to` and the
/// output's file name extension. Unknown extensions are refused with the list of known ones, and a name that
/// says one kind is never given to another (`out.zip --package` would be a folder named like an archive).
enum OutputKind {
    /// Store types by file name extension: the built-in kinds' ``StoreKind/fileExtensions``.
    static let storeExtensions: [String: StoreType] = Dictionary(
        StoreKinds.builtIn.flatMap { kind in kind.fileExtensions.map { ($0, kind.type) } }, uniquingKeysWith: { first, _ in first })

    /// Archive containers by file name extension.
    static let archiveExtensions: [String: DocumentContents.Container] = ["zip": .zipArchive, "tar": .tarArchive]

    /// The extension of a new package when the input's gives none.
    static let packageExtension = "quiredoc"

    /// The extension a store file of a type gets in a run over several files.
    static func storeExtension(_ type: StoreType) -> String {
        StoreKinds.builtIn.first { $0.type == type }?.fileExtensions.first ?? "sqlite"
    }

    /// The container a known extension names: store file, archive, `.quiredoc` package, a registered
    /// document type's extension, or the input's own extension (its container); nil for an unknown one.
    static func container(forExtension ext: String, input: URL?, inputContainer: DocumentContents.Container?)
        -> DocumentContents.Container?
    {
        if storeExtensions[ext] != nil { return .storeFile }
        if let archive = archiveExtensions[ext] { return archive }
        if ext == packageExtension { return .package }
        let registered = DocumentTypeRegistry.shared.allTypes + [DocumentType.sampleNotebook]
        if let type = registered.first(where: { $0.extensions.contains { $0.lowercased() == ext } }) {
            return DocumentContents.Container(type.format)
        }
        if let input, let inputContainer, !ext.isEmpty, input.pathExtension.lowercased() == ext { return inputContainer }
        return nil
    }

    /// The known extensions, as the refusal lists them.
    static var knownExtensionsList: String {
        let stores = StoreKinds.builtIn.filter { !$0.fileExtensions.isEmpty }
            .map { kind in kind.fileExtensions.map { "." + $0 }.joined(separator: ", ") + " (\(kind.type))" }
        return "store files " + stores.joined(separator: ", ") + "; archives .zip, .tar; "
            + "packages .\(packageExtension); zip documents .\(DocumentType.sampleNotebook.extensions.joined(separator: ", ."))"
    }

    /// Chooses the output's container for the single-file form, refusing names that say another kind.
    ///
    /// - Throws: A usage failure for an unknown extension without `--package` or `--archive`, or a name
    ///   whose extension says another kind than the flag asks for.
    static func container(
        for output: URL, package: Bool, archive: ArchiveArgument?, input: URL, inputContainer: DocumentContents.Container
    ) throws -> DocumentContents.Container {
        let ext = output.pathExtension.lowercased()
        let named = container(forExtension: ext, input: input, inputContainer: inputContainer)
        if package {
            if let named, named != .package {
                throw CommandFailure(
                    status: .usage,
                    message: "'\(output.lastPathComponent)' is named like a \(named.rawValue), but --package writes a "
                        + "folder: name it '\(output.deletingPathExtension().lastPathComponent).\(packageExtension)' "
                        + "or drop --package.")
            }
            return .package
        }
        if let archive {
            let asked = DocumentContents.Container(archive.format)
            if let named, named != asked {
                throw CommandFailure(
                    status: .usage,
                    message: "'\(output.lastPathComponent)' is named like a \(named.rawValue), but --archive "
                        + "\(archive.rawValue) writes a \(asked.rawValue): name it "
                        + "'\(output.deletingPathExtension().lastPathComponent).\(archive.rawValue)' or drop --archive.")
            }
            return asked
        }
        if ext.isEmpty { return inputContainer }
        guard let named else {
            let compressed = ext == "gz" || ext == "bz2" || ext == "xz" || ext == "zst" || ext == "tgz"
            throw CommandFailure(
                status: .usage,
                message: "Cannot tell what to write to '\(output.lastPathComponent)': "
                    + (compressed ? "compressed archives are not supported; " : "the extension '.\(ext)' is unknown; ")
                    + "known: \(knownExtensionsList). Or pass --package or --archive zip|tar.")
        }
        return named
    }
}
