import QuireCore
import QuireStores
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

extension SearchMetadata {
    /// Reads a document's search metadata without opening its store (what an indexer calls): `Metadata/meta.xml`
    /// of a package, or the same member of a zip or tar document, found by streaming the archive's entries;
    /// `user.xdg.tags` and `user.xdg.comment` fill in keywords and comment when the document has no meta file.
    ///
    /// ```swift
    /// let metadata = try SearchMetadata(contentsOf: URL(fileURLWithPath: "Report.notebook"))
    /// ```
    ///
    /// - Parameter url: A document package or flat archive.
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when there is no document, ``QuireError/Code/invalidArchive``
    ///   for a broken archive, ``QuireError/Code/fileReadCorruptFile`` for a malformed `meta.xml`,
    ///   ``QuireError/Code/archiveLimitExceeded`` for one above 4 MiB.
    public init(contentsOf url: URL) throws {
        self.init()
        let xml: Data?
        switch DocumentFiles.kind(of: url) {
        case .directory:
            let member = url.appendingPathComponent(DocumentPackageLayout.metaXML)
            switch DocumentFiles.kind(of: member) {
            case .file(let size):
                guard size <= Self.metaXMLLimit else {
                    throw QuireError(
                        .archiveLimitExceeded, "The search metadata '\(member.path)' is larger than \(Self.metaXMLLimit) bytes.",
                        context: .init(file: member))
                }
                xml = FileManager.default.contents(atPath: member.path)
            case .missing:
                xml = nil
            default:
                throw QuireError(
                    .invalidPackage, "The search metadata '\(member.path)' is not a regular file.", context: .init(file: member))
            }
        case .file:
            xml = try FlatArchive.entryData(of: url, at: DocumentPackageLayout.metaXML, maximumSize: Self.metaXMLLimit)
        case .symbolicLink:
            try self.init(contentsOf: url.resolvingSymlinksInPath())
            return
        case .missing:
            throw QuireError(.fileReadNoSuchFile, "There is no document at '\(url.path)'.", context: .init(file: url))
        case .other:
            throw QuireError(.documentTypeMismatch, "'\(url.path)' is not a document.", context: .init(file: url))
        }
        if let xml {
            let source = DocumentFiles.kind(of: url) == .directory ? url.appendingPathComponent(DocumentPackageLayout.metaXML) : url
            try parseMetaXML(xml, source: source)
        }
        if keywords.isEmpty, let tags = try? ExtendedAttributes.value(Self.tagsAttribute, of: url),
            let text = String(data: tags, encoding: .utf8)
        {
            keywords = text.split(separator: ",").map { String($0) }.filter { !$0.isEmpty }
        }
        if comment == nil, let data = try? ExtendedAttributes.value(Self.commentAttribute, of: url),
            let text = String(data: data, encoding: .utf8), !text.isEmpty
        {
            comment = text
        }
    }

    /// Fills the fields from an ODF `office:document-meta` document.
    mutating func parseMetaXML(_ data: Data, source: URL) throws {
        let delegate = MetaXMLReader()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.delegate = delegate
        guard parser.parse(), delegate.sawRoot, delegate.closedRoot else {
            throw QuireError(
                .fileReadCorruptFile,
                "The search metadata in '\(source.path)' is not an ODF meta document"
                    + (parser.parserError.map { " (\($0.localizedDescription))" } ?? "") + ".",
                context: .init(file: source, position: parser.lineNumber))
        }
        let fields = delegate.fields
        title = fields.title
        comment = fields.comment
        keywords = fields.keywords
        authors = fields.creator.map { $0.components(separatedBy: "; ").filter { !$0.isEmpty } } ?? []
        if authors.isEmpty, let initial = fields.initialCreator { authors = [initial] }
        objectCount = fields.objectCount
        modificationDate = fields.date.flatMap { try? Date($0, strategy: .iso8601) }
        for (name, value) in fields.userDefined {
            if name.hasPrefix("store:") {
                storeMetadata[String(name.dropFirst(6))] = value
            } else if name.hasPrefix("indexed:") {
                indexedValues[String(name.dropFirst(8))] = value.components(separatedBy: "\n")
            }
        }
    }
}

/// Collects the fields of `meta.xml` as the parser reports them.
private final class MetaXMLReader: NSObject, XMLParserDelegate {
    struct Fields {
        var title: String?
        var comment: String?
        var creator: String?
        var initialCreator: String?
        var keywords: [String] = []
        var date: String?
        var objectCount: Int?
        var userDefined: [(String, String)] = []
    }

    var fields = Fields()
    var sawRoot = false
    var closedRoot = false
    private var text = ""
    private var userDefinedName: String?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        text = ""
        switch elementName {
        case "office:document-meta": sawRoot = true
        case "meta:document-statistic": fields.objectCount = attributes["meta:object-count"].flatMap { Int($0) }
        case "meta:user-defined": userDefinedName = attributes["meta:name"]
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if text.utf8.count < 4 << 20 { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        switch elementName {
        case "office:document-meta": closedRoot = true
        case "dc:title": fields.title = text
        case "dc:description": fields.comment = text
        case "dc:creator": fields.creator = text
        case "meta:initial-creator": fields.initialCreator = text
        case "meta:keyword": fields.keywords.append(text)
        case "dc:date": fields.date = text
        case "meta:user-defined":
            if let name = userDefinedName { fields.userDefined.append((name, text)) }
            userDefinedName = nil
        default: break
        }
        text = ""
    }
}
