import Foundation

#if !canImport(UIKit) && !canImport(AppKit)
extension IndexPath {
    /// An index path of an item in a section, as UIKit and AppKit make it (`init(item:section:)`), for
    /// ``FetchedResultsController`` on platforms without them.
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    /// The section: the first index.
    public var section: Int { self[0] }
    /// The item in the section: the second index.
    public var item: Int { self[1] }
}
#endif
