import QuireCore
import Foundation

extension SearchMetadata {
    /// The object a desktop search's hit on an external record file stands for: its URI (an
    /// ``ObjectID/uriRepresentation()``), or nil when the file is not laid out as an external record.
    ///
    /// A store added with ``StoreOptions/externalRecordsDirectory`` writes a record file per indexed object,
    /// which GNOME's Tracker indexes through the shipped MIME type and rule (see <doc:SearchIndexing>). Tracker
    /// reports a hit as the file's URL; the application turns it into the object:
    ///
    /// ```swift
    /// // `hit` from `tracker3 search`, or nie:url of a SPARQL query: file:///…/Records/<store UUID>/Note/p12.quirerecord
    /// if let uri = SearchMetadata.objectURI(forIndexedFile: hit),
    ///     let id = coordinator.managedObjectID(forURIRepresentation: uri) {
    ///     let note = context.object(with: id)
    /// }
    /// ```
    ///
    /// Only the path is read (and the store's support files beside the records); the store is not opened. See
    /// ``ExternalRecord`` for the store's file and the values the record holds.
    ///
    /// - Parameter url: The file an indexer reported.
    /// - Returns: `x-coredata://<store UUID>/<Entity>/p<key>`, or nil.
    public static func objectURI(forIndexedFile url: URL) -> URL? {
        try? ExternalRecord(at: url).objectURI
    }
}
