import Foundation
import Quire

/// The files beside a store where its large binary values live, as Core Data lays them out on the Mac and as
/// Quire documents them: `.<store name without extension>_SUPPORT/_EXTERNAL_DATA/<UUID>` for SQLite stores,
/// `.<whole file name>_SUPPORT/…` for the other kinds (so that `Photos.sqlite` and `Photos.xml` never share one). The tests read the
/// layout from the disk, not from the stores' own code, so that they check the format itself.
struct ExternalDataFiles {
    /// The `_EXTERNAL_DATA` folder.
    let url: URL

    init(storeURL: URL, type: StoreType) {
        url = Self.supportFolder(forStore: storeURL, type: type).appendingPathComponent("_EXTERNAL_DATA")
    }

    /// `.<store name without extension>_SUPPORT` beside an SQLite store, `.<whole file name>_SUPPORT` beside others.
    static func supportFolder(forStore storeURL: URL, type: StoreType) -> URL {
        let name = type == .sqlite ? storeURL.deletingPathExtension().lastPathComponent : storeURL.lastPathComponent
        return storeURL.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT")
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
