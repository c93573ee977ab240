import Foundation

extension SearchMetadata {
    /// The document an indexer's hit belongs to: the package folder for a hit on a package's
    /// `Metadata/summary.txt` or `Metadata/meta.xml`, or the hit itself otherwise.
    ///
    /// Desktop indexers have no notion of a package: Tracker 3 indexes a folder only as a folder (no extractor runs
    /// for `inode/directory`), so the text of a package document is found in its `Metadata/summary.txt`. A search
    /// front end maps such a hit back to the document before opening it:
    ///
    /// ```swift
    /// let hit = URL(fileURLWithPath: "/home/ann/Errands.quiredoc/Metadata/summary.txt")
    /// let document = SearchMetadata.documentURL(forIndexedFile: hit)   // /home/ann/Errands.quiredoc
    /// ```
    ///
    /// - Parameter url: The file an indexer reported.
    /// - Returns: The package that holds `url` as its search metadata when it is one (a folder with a `mimetype`
    ///   file), otherwise `url`.
    public static func documentURL(forIndexedFile url: URL) -> URL {
        let name = url.lastPathComponent
        let folder = url.deletingLastPathComponent()
        guard name == "summary.txt" || name == "meta.xml", folder.lastPathComponent == DocumentPackageLayout.metadata else {
            return url
        }
        let package = folder.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        let marker = package.appendingPathComponent(DocumentPackageLayout.mimetype).path
        guard FileManager.default.fileExists(atPath: marker, isDirectory: &isDirectory), !isDirectory.boolValue else { return url }
        return package
    }
}
