import QuireCore
import QuireStores
import Foundation

/// The safe-save protocol: a crash at any instant leaves the old version or the new one, never a mix.
///
/// - Packages: the new version is built in a hidden sibling folder (`.<name>.quire-<token>.new`), the
///   document's extended attributes are copied onto it, every file and folder is fsynced, then it is swapped in
///   with `renameat2(RENAME_EXCHANGE)`, the parent folder fsynced, and the old tree (now in the sibling)
///   removed. Where the filesystem cannot exchange (NFS, ZFS), the old version is first renamed to
///   `.<name>.quire-<token>.old`, then the new one into place; ``recover(at:)`` finishes an interrupted swap at
///   the next open.
/// - Flat files: a temporary file in the same folder (`.<name>.quire-<token>.tmp`), fsynced, attributes copied,
///   renamed over the document, the folder fsynced.
enum SafeSave {
    /// How a package is swapped in.
    enum Strategy: Sendable {
        /// `renameat2(RENAME_EXCHANGE)`, or two renames where the filesystem cannot exchange.
        case automatic
        /// Always two renames (what filesystems without exchange get; tests use it to exercise recovery).
        case twoRenames
    }

    /// The outcome of a save: warnings about what could not be carried over (extended attributes on a
    /// filesystem without them).
    struct Outcome {
        var warnings: [String] = []
    }

    static let marker = ".quire-"

    /// The hidden sibling of `url` for one save.
    static func sibling(of url: URL, token: String, suffix: String) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent)\(marker)\(token).\(suffix)")
    }

    /// A token naming this process (`p<pid>-<hex>`), so that siblings a killed process left are collected.
    static func newToken() -> String { WorkingFolders.token() }

    /// Replaces (or creates) the package folder at `destination` with the tree `build` writes into the folder
    /// it is given.
    ///
    /// - Parameters:
    ///   - strategy: Exchange, or always two renames.
    ///   - attributes: Extended attributes to set on the new version, after those of the old one were copied;
    ///     an empty value removes the attribute.
    ///   - build: Writes the new version's tree into the folder it is given.
    static func replacePackage(
        at destination: URL, strategy: Strategy = .automatic, attributes: [String: Data] = [:],
        build: (URL) throws -> Void
    ) throws -> Outcome {
        let parent = destination.deletingLastPathComponent()
        let token = newToken()
        let staging = sibling(of: destination, token: token, suffix: "new")
        var outcome = Outcome()
        do {
            try DocumentFiles.makeDirectory(staging, mode: 0o755)
            try build(staging)
            outcome.warnings += carryAttributes(from: destination, to: staging, setting: attributes)
            try DocumentFiles.fsyncTree(staging)
            try DocumentFiles.fsyncDirectory(parent)
        } catch {
            DocumentFiles.removeTree(staging)
            throw error
        }
        try swapIn(staging, at: destination, token: token, strategy: strategy)
        return outcome
    }

    /// Moves a complete, fsynced `staging` tree to `destination`, keeping the old version until the new one is
    /// in place.
    private static func swapIn(_ staging: URL, at destination: URL, token: String, strategy: Strategy) throws {
        let parent = destination.deletingLastPathComponent()
        if DocumentFiles.kind(of: destination) == .missing {
            do {
                try DocumentFiles.rename(staging, to: destination)
            } catch {
                DocumentFiles.removeTree(staging)
                throw error
            }
            try DocumentFiles.fsyncDirectory(parent)
            return
        }
        if strategy == .automatic, try DocumentFiles.exchange(staging, destination) {
            // The sibling now holds the old version.
            try DocumentFiles.fsyncDirectory(parent)
            DocumentFiles.removeTree(staging)
            return
        }
        let old = sibling(of: destination, token: token, suffix: "old")
        do {
            try DocumentFiles.rename(destination, to: old)
        } catch {
            DocumentFiles.removeTree(staging)
            throw error
        }
        // From here until the next rename, the document's name is missing: recover(at:) rolls forward.
        try DocumentFiles.rename(staging, to: destination)
        try DocumentFiles.fsyncDirectory(parent)
        DocumentFiles.removeTree(old)
    }

    /// Replaces (or creates) the flat file at `destination` with the file `build` writes at the URL it is
    /// given (a new file that `build` creates and fsyncs).
    static func replaceFile(at destination: URL, attributes: [String: Data] = [:], build: (URL) throws -> Void) throws -> Outcome {
        let parent = destination.deletingLastPathComponent()
        let temporary = sibling(of: destination, token: newToken(), suffix: "tmp")
        var outcome = Outcome()
        do {
            try build(temporary)
            outcome.warnings += carryAttributes(from: destination, to: temporary, setting: attributes)
            try DocumentFiles.fsyncFile(temporary)
            try DocumentFiles.rename(temporary, to: destination)
        } catch {
            DocumentFiles.removeTree(temporary)
            throw error
        }
        try DocumentFiles.fsyncDirectory(parent)
        return outcome
    }

    /// Copies the old version's extended attributes onto the new one, then sets `attributes`; returns warnings
    /// (one when the filesystem has no extended attributes at all).
    private static func carryAttributes(from old: URL, to new: URL, setting attributes: [String: Data]) -> [String] {
        var warnings: [String] = []
        if DocumentFiles.kind(of: old) != .missing {
            warnings += ExtendedAttributes.copyAll(from: old, to: new)
        }
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            do {
                if value.isEmpty {
                    try ExtendedAttributes.remove(name, from: new)
                } else {
                    try ExtendedAttributes.set(name, to: value, on: new)
                }
            } catch {
                if ExtendedAttributes.isUnsupported(error) {
                    warnings.append(
                        "The filesystem of '\(new.deletingLastPathComponent().path)' refuses extended attributes; "
                            + "the document was saved without \(attributes.keys.sorted().joined(separator: " and ")).")
                    break
                }
                warnings.append("\(error)")
            }
        }
        return warnings
    }

    /// Finishes or undoes a save interrupted by a crash, before a document is opened or saved: when the
    /// document's name is missing between the two renames of the fallback, the complete new version is moved
    /// into place (or, without one, the old version is put back); leftover siblings of finished saves are
    /// removed.
    ///
    /// - Returns: Whether anything was recovered or cleaned up.
    @discardableResult
    static func recover(at destination: URL) throws -> Bool {
        let parent = destination.deletingLastPathComponent()
        let prefix = "." + destination.lastPathComponent + marker
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return false }
        let siblings = names.filter { $0.hasPrefix(prefix) }.sorted()
        guard !siblings.isEmpty else { return false }
        func token(_ name: String) -> String { String(name.dropFirst(prefix.count).prefix { $0 != "." }) }
        if DocumentFiles.kind(of: destination) == .missing {
            let olds = siblings.filter { $0.hasSuffix(".old") }
            if let old = olds.first {
                let new = prefix + token(old) + ".new"
                let source = siblings.contains(new) ? new : old
                try DocumentFiles.rename(parent.appendingPathComponent(source), to: destination)
                try DocumentFiles.fsyncDirectory(parent)
            }
        }
        guard DocumentFiles.kind(of: destination) != .missing else { return false }
        for name in siblings where DocumentFiles.kind(of: parent.appendingPathComponent(name)) != .missing {
            DocumentFiles.removeTree(parent.appendingPathComponent(name))
        }
        try? DocumentFiles.fsyncDirectory(parent)
        return true
    }
}
