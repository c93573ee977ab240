import QuireCore
import QuireStores
import Foundation

/// What desktop search indexers learn about a document: the title, keywords, authors and comment the
/// application sets, the values of attributes marked ``PropertyDescription/isIndexedBySpotlight``, and the
/// store's metadata.
///
/// A document writes it at every save into `Metadata/meta.xml` (ODF's meta vocabulary, which GNOME's Tracker
/// reads; the indexed values also in `dc:subject`), `Metadata/summary.txt` (plain text) and the extended
/// attributes `user.xdg.tags` and `user.xdg.comment` (which KDE's Baloo reads: the keywords, and the title above
/// the comment). See <doc:SearchIndexing>. An indexer reads it back without opening the store:
///
/// ```swift
/// let metadata = try SearchMetadata(contentsOf: documentURL)
/// print(metadata.title ?? "untitled", metadata.keywords)
/// ```
public struct SearchMetadata: Sendable, Hashable {
    /// The document's title (`dc:title`).
    public var title: String?
    /// Keywords (`meta:keyword`, and `user.xdg.tags` comma-separated).
    public var keywords: [String] = []
    /// Authors (`dc:creator`, joined with "; ").
    public var authors: [String] = []
    /// A comment or description (`dc:description`, and `user.xdg.comment`).
    public var comment: String?
    /// The values of indexed attributes, keyed `Entity.attribute`, in the store's order, without duplicates.
    public var indexedValues: [String: [String]] = [:]
    /// The store's metadata that has a text form (`NSStoreType`, `NSStoreUUID`, user keys), keyed as stored.
    public var storeMetadata: [String: String] = [:]
    /// The number of objects in the store (`meta:document-statistic meta:object-count`).
    public var objectCount: Int?
    /// When the document was saved (`dc:date`).
    public var modificationDate: Date?

    /// Creates empty metadata.
    public init() {}

    /// Creates metadata with the fields an application sets.
    ///
    /// - Parameters:
    ///   - title: The title.
    ///   - keywords: Keywords.
    ///   - authors: Authors.
    ///   - comment: A comment.
    public init(title: String? = nil, keywords: [String] = [], authors: [String] = [], comment: String? = nil) {
        self.title = title
        self.keywords = keywords
        self.authors = authors
        self.comment = comment
    }

    /// The most bytes of indexed attribute values collected at a save (1 MiB, counted as escaped for
    /// `meta.xml`, see ``escapedSize(_:)``); the rest is left out.
    static let indexedTextLimit = 1 << 20
    /// The most bytes of indexed attribute values repeated in `dc:subject` for Tracker (256 KiB, escaped).
    static let subjectTextLimit = 256 << 10
    /// The largest `meta.xml` read back (4 MiB).
    static let metaXMLLimit: Int64 = 4 << 20

    /// The extended attributes name for keywords (KDE Baloo, comma-separated).
    public static let tagsAttribute = "user.xdg.tags"
    /// The extended attributes name for the title and comment (the title on the first line, then the comment).
    public static let commentAttribute = "user.xdg.comment"

    // MARK: Writing

    /// `Metadata/meta.xml`: an ODF `office:document-meta` document, never larger than ``metaXMLLimit`` (what its
    /// reader accepts): an element that would take it past the limit is left out, whole, in this order of
    /// importance: title, comment, authors, keywords, date, statistics, store metadata, `dc:subject`, then the
    /// indexed values.
    func metaXML() -> Data {
        let head = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" "#
                + #"xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" "#
                + #"xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.3">"#,
            " <office:meta>",
            "  <meta:generator>Quire</meta:generator>",
        ]
        let tail = [" </office:meta>", "</office:document-meta>", ""]
        var lines = head
        var size = (head + tail).reduce(0) { $0 + $1.utf8.count + 1 }
        func append(_ line: String) {
            let lineSize = line.utf8.count + 1
            guard Int64(size + lineSize) <= Self.metaXMLLimit else { return }
            size += lineSize
            lines.append(line)
        }
        func element(_ name: String, _ text: String?) {
            guard let text, !text.isEmpty else { return }
            append("  <\(name)>\(Self.escape(text))</\(name)>")
        }
        element("dc:title", title)
        element("dc:description", comment)
        element("meta:initial-creator", authors.first)
        element("dc:creator", authors.isEmpty ? nil : authors.joined(separator: "; "))
        for keyword in keywords { element("meta:keyword", keyword) }
        if let modificationDate { element("dc:date", modificationDate.formatted(.iso8601)) }
        if let objectCount { append("  <meta:document-statistic meta:object-count=\"\(objectCount)\"/>") }
        for (key, value) in storeMetadata.sorted(by: { $0.key < $1.key }) {
            append("  <meta:user-defined meta:name=\"store:\(Self.escape(key))\">\(Self.escape(value))</meta:user-defined>")
        }
        // Tracker's ODF extractor reads content.xml only for ODF's own four MIME types, never for an application's
        // type; dc:subject it reads for any type, into nie:subject, which it indexes for full-text search.
        element("dc:subject", indexedText())
        for (key, values) in indexedValues.sorted(by: { $0.key < $1.key }) {
            let text = Self.escape(values.joined(separator: "\n"))
            append("  <meta:user-defined meta:name=\"indexed:\(Self.escape(key))\">\(text)</meta:user-defined>")
        }
        lines += tail
        return Data(lines.joined(separator: "\n").utf8)
    }

    /// The values of indexed attributes as one text, one distinct value per line in `Entity.attribute` order, cut
    /// at a line to at most ``subjectTextLimit`` bytes once escaped for XML: what `dc:subject` carries for Tracker.
    func indexedText() -> String? {
        var lines: [String] = []
        var seen: Set<String> = []
        var size = 0
        for (_, values) in indexedValues.sorted(by: { $0.key < $1.key }) {
            for value in values {
                let line = Self.oneLine(value)
                guard !line.isEmpty, seen.insert(line).inserted else { continue }
                let lineSize = Self.escapedSize(line) + 1
                guard size + lineSize <= Self.subjectTextLimit else { return lines.isEmpty ? nil : lines.joined(separator: "\n") }
                size += lineSize
                lines.append(line)
            }
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// `Metadata/summary.txt`: the same text in plain form, one field per line.
    func summaryText() -> Data {
        var lines: [String] = []
        if let title, !title.isEmpty { lines.append("Title: \(Self.oneLine(title))") }
        if !authors.isEmpty { lines.append("Authors: \(authors.map(Self.oneLine).joined(separator: "; "))") }
        if !keywords.isEmpty { lines.append("Keywords: \(keywords.map(Self.oneLine).joined(separator: ", "))") }
        if let comment, !comment.isEmpty { lines.append("Comment: \(Self.oneLine(comment))") }
        if let objectCount { lines.append("Objects: \(objectCount)") }
        for (key, values) in indexedValues.sorted(by: { $0.key < $1.key }) {
            for value in values { lines.append("\(key): \(Self.oneLine(value))") }
        }
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// The extended attributes written on the document; an empty value removes a stale attribute.
    ///
    /// KDE's Baloo (5.103) indexes only three extended attributes: `user.xdg.tags`, `user.baloo.rating` and
    /// `user.xdg.comment`, and has no extractor for an application's own MIME type. So the title goes where Baloo
    /// reads it: the first line of `user.xdg.comment`, above the comment.
    var extendedAttributes: [String: Data] {
        [
            Self.tagsAttribute: Data(keywords.map { $0.replacingOccurrences(of: ",", with: " ") }.joined(separator: ",").utf8),
            Self.commentAttribute: Data(commentAttributeText.utf8),
        ]
    }

    /// The text of `user.xdg.comment`: the title on the first line, then the comment (either may be missing).
    var commentAttributeText: String {
        [title, comment].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// The size in bytes of `text` once ``escape(_:)`` has escaped it, or a little more (characters XML cannot
    /// hold count one byte although they are dropped).
    static func escapedSize(_ text: String) -> Int {
        var size = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): size += 5
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\r"): size += 4
            case UInt8(ascii: "\""): size += 6
            default: size += 1
            }
        }
        return size
    }

    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n", "\t": result.unicodeScalars.append(scalar)
            case "\r": result += "&#13;"
            default:
                // Characters XML 1.0 cannot hold are dropped.
                if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    private static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
    }
}
