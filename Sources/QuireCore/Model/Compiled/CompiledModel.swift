import QuireSupport
import Foundation

/// A managed object model decoded from a compiled file: a store's `Z_MODELCACHE`, a `.mom`, or an Xcode 3
/// `elements` file. Plain values, independent of the archive they came from.
///
/// ```swift
/// let model = try CompiledModelDecoder.decodeModelCache(blob)
/// for entity in model.entities { print(entity.name, entity.attributes.map(\.name)) }
/// ```
package struct CompiledModel: Sendable, Hashable {
    /// What kind of file the model came from.
    package enum Source: Sendable, Hashable {
        /// A keyed archive of `NSManagedObjectModel` (`Z_MODELCACHE`, `.mom`).
        case managedObjectModelArchive
        /// An Xcode 3 `elements` file (a keyed archive of Xcode's `XDPMModel`).
        case xcodeElements
    }

    /// What kind of file the model came from.
    package var source: Source
    /// Every entity, sub-entities included, sorted by name.
    package var entities: [CompiledEntity] = []
    /// Configurations: names and the names of their entities (sorted).
    package var configurations: [String: [String]] = [:]
    /// The model's version identifiers (sorted).
    package var versionIdentifiers: [String] = []
    /// Fetch request templates by name.
    package var fetchRequestTemplates: [String: CompiledFetchRequest] = [:]
    /// The localization dictionary, when the file carries one.
    package var localizationDictionary: [String: String] = [:]
    /// `CDMCompilerToolVersion`: the version of `momc` that compiled a `.mom` (recent Xcodes write it; `24512`),
    /// kept as metadata of the file.
    package var compilerToolVersion: String?
    /// `CDMCompilerXcodeVersion`: the version of Xcode whose `momc` compiled the file (`260200`).
    package var compilerXcodeVersion: String?
    /// What the decoder skipped or guessed.
    package var warnings: [DecodingWarning] = []

    /// Creates an empty model.
    package init(source: Source) {
        self.source = source
    }

    /// The entity with a name.
    package func entity(named name: String) -> CompiledEntity? {
        entities.first { $0.name == name }
    }

    /// Returns the model with each entity's ``CompiledEntity/versionHash`` set from a dictionary of hashes by
    /// entity name (a `.momd`'s `VersionInfo.plist`, or a store's `NSStoreModelVersionHashes`).
    func applyingVersionHashes(_ hashes: [String: Data]) -> CompiledModel {
        var copy = self
        for index in copy.entities.indices {
            if let hash = hashes[copy.entities[index].name] { copy.entities[index].versionHash = hash }
        }
        return copy
    }
}
