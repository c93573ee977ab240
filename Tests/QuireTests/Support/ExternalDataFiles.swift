import Foundation

/// The files beside a store where its large binary values live, as Core Data lays them out on the Mac and as
/// Quire documents them: `.<store name without extension>_SUPPORT/_EXTERNAL_DATA/<UUID>`. The tests read the
/// layout from the disk, not from the stores' own code, so that they check the format itself.
struct ExternalDataFiles {
    /// The `_EXTERNAL_DATA` folder.
    let url: URL

    init(storeURL: URL) {
        url = Self.supportFolder(forStore: storeURL).appendingPathComponent("_EXTERNAL_DATA")
    }

    /// `.<store name without extension>_SUPPORT` beside the store.
    static func supportFolder(forStore storeURL: URL) -> URL {
        storeURL.deletingLastPathComponent()
            .appendingPathComponent(".\(storeURL.deletingPathExtension().lastPathComponent)_SUPPORT")
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The names of the value files in the folder: UUIDs in their 36-character form (none when there is no
    /// folder).
    func fileNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { name in
            name.utf8.count == 36 && UUID(uuidString: name) != nil
        }
    }
}
