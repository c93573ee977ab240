import QuireCore
import QuireStores
import Foundation


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

    /// Fills the fields from an ODF `office:document-meta` document, read with Quire's own ``XMLByteScanner``
    /// (never Foundation's `XMLParser`, which crashes on Linux on some inputs).
    mutating func parseMetaXML(_ data: Data, source: URL) throws {
        func failure(_ reason: String, line: Int?) -> QuireError {
            QuireError(
                .fileReadCorruptFile,
                "The search metadata in '\(source.path)' is not an ODF meta document (\(reason)).",
                context: .init(file: source, position: line))
        }
        guard String(data: data, encoding: .utf8) != nil else { throw failure("it is not UTF-8 text", line: nil) }
        let outcome: Result<MetaXMLReader.Fields, XMLSyntaxError> = data.withUnsafeBytes { buffer in
            var reader = MetaXMLReader(scanner: XMLByteScanner(buffer, maximumValueSize: Int(Self.metaXMLLimit), acceptsDatabaseDoctype: false))
            do { return .success(try reader.read()) } catch let error as XMLSyntaxError {
                return .failure(error)
            } catch {
                return .failure(XMLSyntaxError(offset: 0, reason: "\(error)"))
            }
        }
        let fields: MetaXMLReader.Fields
        switch outcome {
        case .success(let read): fields = read
        case .failure(let error):
            let line = data.withUnsafeBytes { XMLByteScanner($0, maximumValueSize: 0).lineAndColumn(at: error.offset).line }
            throw failure(error.reason, line: line)
        }
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

/// Collects the fields of `meta.xml` from the scanner's tokens, checking that elements nest.
private struct MetaXMLReader {
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

    var scanner: XMLByteScanner
    var fields = Fields()
    private var stack: [XMLByteScanner.Span] = []
    private var sawRoot = false
    private var text: [UInt8] = []
    private var userDefinedName: String?

    init(scanner: XMLByteScanner) {
        self.scanner = scanner
    }

    /// The value of an attribute of the current start tag, decoded.
    private func attribute(_ name: StaticString) throws(XMLSyntaxError) -> String? {
        guard let attribute = scanner.attribute(name) else { return nil }
        var bytes: [UInt8] = []
        try scanner.decode(attribute.value, kind: attribute.kind, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    mutating func read() throws(XMLSyntaxError) -> Fields {
        while true {
            let token = try scanner.next()
            switch token {
            case .start(let name, let selfClosing):
                guard !sawRoot || !stack.isEmpty else {
                    throw XMLSyntaxError(offset: scanner.tokenStart, reason: "an element after the root element")
                }
                guard stack.count < 64 else { throw XMLSyntaxError(offset: scanner.tokenStart, reason: "elements nest too deeply") }
                if stack.isEmpty {
                    guard scanner.span(name, equals: "office:document-meta") else {
                        throw XMLSyntaxError(offset: scanner.tokenStart, reason: "the root element is not <office:document-meta>")
                    }
                    sawRoot = true
                }
                text = []
                if scanner.span(name, equals: "meta:document-statistic") {
                    fields.objectCount = try attribute("meta:object-count").flatMap { Int($0) }
                } else if scanner.span(name, equals: "meta:user-defined") {
                    userDefinedName = try attribute("meta:name")
                }
                stack.append(name)
                if selfClosing { end(name) }
            case .end(let name):
                guard let open = stack.last, scanner.span(open, equals: name) else {
                    throw XMLSyntaxError(offset: scanner.tokenStart, reason: "</\(scanner.string(name))> closes no open element")
                }
                end(name)
            case .text(let span, let kind):
                if stack.isEmpty {
                    var index = span.start
                    while index < span.end {
                        let byte = scanner.bytes[index]
                        guard byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D else {
                            throw XMLSyntaxError(offset: span.start, reason: "text outside the root element")
                        }
                        index += 1
                    }
                } else {
                    try scanner.decode(span, kind: kind, into: &text)
                }
            case .endOfInput:
                guard sawRoot, stack.isEmpty else {
                    throw XMLSyntaxError(offset: scanner.bytes.count, reason: sawRoot ? "the file ends inside an element" : "there is no root element")
                }
                return fields
            }
        }
    }

    private mutating func end(_ name: XMLByteScanner.Span) {
        stack.removeLast()
        let value = String(decoding: text, as: UTF8.self)
        if scanner.span(name, equals: "dc:title") {
            fields.title = value
        } else if scanner.span(name, equals: "dc:description") {
            fields.comment = value
        } else if scanner.span(name, equals: "dc:creator") {
            fields.creator = value
        } else if scanner.span(name, equals: "meta:initial-creator") {
            fields.initialCreator = value
        } else if scanner.span(name, equals: "meta:keyword") {
            fields.keywords.append(value)
        } else if scanner.span(name, equals: "dc:date") {
            fields.date = value
        } else if scanner.span(name, equals: "meta:user-defined") {
            if let userDefinedName { fields.userDefined.append((userDefinedName, value)) }
            userDefinedName = nil
        }
        text = []
    }
}
