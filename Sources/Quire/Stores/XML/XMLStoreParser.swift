import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads Core Data's XML store format with Foundation's `XMLParser`, hardened: no external entities, no DTD
/// (a `<!DOCTYPE>` is accepted only as Core Data writes it, with no internal subset, and is blanked before
/// parsing), bounded nesting and size. Errors name the file, the element and the line.
final class XMLStoreParser: NSObject, XMLParserDelegate {
    /// The largest XML store Quire reads.
    static let maximumFileSize = 1 << 30
    /// The deepest element nesting accepted (objects sit at depth 2, metadata property lists deeper).
    static let maximumDepth = 64

    struct Result {
        var uuid: String?
        var nextKey: Int64 = 1
        var metadata: [String: PropertyListValue]?
        var nodes: [Int64: RowSnapshot] = [:]
        /// The embedded model as written (base64 of its canonical form).
        var modelBase64 = ""
    }

    private let file: URL
    private let model: ManagedObjectModel
    private unowned(unsafe) let store: PersistentStore?
    private let metadataOnly: Bool
    private var result = Result()
    private var failure: QuireError?
    private weak var parser: XMLParser?

    private var path: [String] = []
    private var text = ""
    private var collectsText = false
    private let entitiesByTypeName: [String: EntityDescription]

    // The object being read.
    private var entity: EntityDescription?
    private var key: Int64 = 0
    private var attributes: [AttributeValue] = []
    private var relationships: [RelationshipStorage] = []
    private var attribute: AttributeDescription?
    private var attributeIsBase64 = false
    private var attributeExternal: ExternalDataReference?
    /// Relationships whose targets are resolved once every object is read: owner key, slot, target keys, line.
    private var pending: [(owner: Int64, slot: Int, targets: [Int64], line: Int)] = []

    // The metadata property list being read.
    private enum Frame {
        case dictionary([String: PropertyListValue], key: String?)
        case array([PropertyListValue])
    }
    private var frames: [Frame] = []
    private var plistRoot: PropertyListValue?
    private var dataIsString = false
    private var finishedHead = false

    private init(file: URL, model: ManagedObjectModel, store: PersistentStore?, metadataOnly: Bool) {
        self.file = file
        self.model = model
        self.store = store
        self.metadataOnly = metadataOnly
        var byType: [String: EntityDescription] = [:]
        for entity in model.entities { byType[entity.name.uppercased()] = entity }
        for entity in model.entities { byType[entity.name] = entity }
        entitiesByTypeName = byType
    }

    // MARK: Entry points

    /// Parses a whole store file's bytes.
    static func parse(_ data: Data, file: URL, model: ManagedObjectModel, store: PersistentStore) throws -> Result {
        guard data.count <= maximumFileSize else {
            throw QuireError(
                .fileReadCorruptFile,
                "The XML store '\(file.path)' is \(data.count) bytes long, more than the \(maximumFileSize) bytes Quire reads.",
                context: .init(file: file))
        }
        let delegate = XMLStoreParser(file: file, model: model, store: store, metadataOnly: false)
        return try delegate.run(try sanitized(data, file: file))
    }

    /// Reads only `<databaseInfo>`: the file is read until `</databaseInfo>`, whatever its size.
    static func readHead(at url: URL, model: ManagedObjectModel? = nil) throws -> (result: Result, headLength: Int) {
        let handle = try BinaryStoreFormat.openForReading(url)
        defer { try? handle.close() }
        var head = Data()
        let marker = Data("</databaseInfo>".utf8)
        while true {
            guard let chunk = try? handle.read(upToCount: 64 * 1024), !chunk.isEmpty else {
                throw QuireError(
                    .fileReadCorruptFile, "The XML store '\(url.path)' has no complete <databaseInfo> element.",
                    context: .init(file: url))
            }
            let searchStart = max(0, head.count - marker.count)
            head.append(chunk)
            if let found = head.range(of: marker, in: searchStart..<head.count) {
                head = head.prefix(upTo: found.upperBound)
                break
            }
            guard head.count <= PropertyListValue.defaultMaximumSize else {
                throw QuireError(
                    .fileReadCorruptFile, "The XML store '\(url.path)' has a <databaseInfo> element larger than 16 MiB.",
                    context: .init(file: url))
            }
        }
        let length = head.count
        head.append(Data("</database>".utf8))
        let delegate = XMLStoreParser(file: url, model: model ?? ManagedObjectModel(), store: nil, metadataOnly: true)
        return (try delegate.run(try sanitized(head, file: url)), length)
    }

    /// The bytes with Core Data's `<!DOCTYPE>` blanked out (line numbers kept); any other document type
    /// declaration, and any internal subset, is refused.
    static func sanitized(_ data: Data, file: URL) throws -> Data {
        // Everything before the root element, however long (comments may come first).
        let prologEnd = data.range(of: Data("<database".utf8))?.lowerBound ?? data.count
        if data.range(of: Data("<!ENTITY".utf8), in: 0..<prologEnd) != nil { throw doctypeError(file) }
        guard let doctype = data.range(of: Data("<!DOCTYPE".utf8), in: 0..<prologEnd) else { return data }
        guard let close = data.range(of: Data(">".utf8), in: doctype.upperBound..<prologEnd) else { throw doctypeError(file) }
        let declaration = data[doctype.lowerBound..<close.upperBound]
        guard declaration == Data(XMLStoreWriter.doctype.utf8) || !declaration.contains(UInt8(ascii: "[")) && declaration.starts(with: Data("<!DOCTYPE database".utf8))
        else { throw doctypeError(file) }
        var copy = data
        copy.replaceSubrange(doctype.lowerBound..<close.upperBound, with: Data(repeating: UInt8(ascii: " "), count: declaration.count))
        return copy
    }

    private static func doctypeError(_ file: URL) -> QuireError {
        QuireError(
            .fileReadCorruptFile,
            "The XML store '\(file.path)' declares a document type other than Core Data's; DTDs and entity declarations are refused.",
            context: .init(file: file))
    }

    private func run(_ data: Data) throws -> Result {
        // A stream, so the parser is fed in chunks: libxml2's push parser refuses one chunk larger than its
        // 10 MB lookup limit ("huge input lookup"), which large stores exceed.
        let parser = XMLParser(stream: InputStream(data: data))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.delegate = self
        self.parser = parser
        let success = parser.parse()
        if let failure { throw failure }
        guard (success && path.isEmpty) || (metadataOnly && finishedHead) else {
            let line = parser.lineNumber
            let reason = parser.parserError.map { String(describing: $0) } ?? "unknown error"
            throw QuireError(
                .fileReadCorruptFile,
                "The XML store '\(file.path)' is not well-formed XML at line \(line), column \(parser.columnNumber)"
                    + "\(path.last.map { " (in <\($0)>)" } ?? ""): \(reason).",
                context: .init(file: file, position: line))
        }
        if !metadataOnly { try resolveRelationships() }
        return result
    }

    // MARK: Failures

    private func fail(_ message: String, element: String? = nil) {
        guard failure == nil else { return }
        let line = parser?.lineNumber ?? 0
        let name = element ?? path.last ?? "document"
        failure = QuireError(
            .fileReadCorruptFile, "The XML store '\(file.path)' is invalid at line \(line), in <\(name)>: \(message).",
            context: .init(file: file, entity: entity?.name, key: attribute?.name, position: line))
        parser?.abortParsing()
    }

    // MARK: Delegate

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        guard failure == nil else { return }
        let parent = path.last
        path.append(name)
        guard path.count <= Self.maximumDepth else { return fail("elements nest deeper than \(Self.maximumDepth) levels") }
        text = ""
        collectsText = false
        switch (parent, name) {
        case (nil, "database"), ("database", "databaseInfo"), ("databaseInfo", "metadata"):
            break
        case (nil, _):
            fail("the root element must be <database>")
        case ("databaseInfo", _):
            collectsText = true
        case ("metadata", "plist"):
            frames = []
        case ("database", "object"):
            startObject(attributeDict)
        case ("object", "attribute"):
            startAttribute(attributeDict)
        case ("object", "relationship"):
            startRelationship(attributeDict)
        default:
            if path.contains("plist") {
                startPlistElement(name, attributeDict)
            } else if parent == "database" {
                fail("unexpected element <\(name)>")
            }
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if collectsText { text += string }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        if collectsText { text += String(decoding: CDATABlock, as: UTF8.self) }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard failure == nil else { return }
        path.removeLast()
        let parent = path.last
        switch (parent, name) {
        case ("databaseInfo", "version"):
            break
        case ("databaseInfo", "quireModel"):
            result.modelBase64 = text
        case ("databaseInfo", "UUID"):
            result.uuid = Self.trimmed(text)
        case ("databaseInfo", "nextObjectID"):
            guard let next = Int64(Self.trimmed(text)), next > 0 else {
                return fail("'\(text.prefix(40))' is not a positive object number", element: name)
            }
            result.nextKey = next
        case ("metadata", "plist"):
            guard case .dictionary(let dictionary)? = plistRoot else { return fail("the metadata property list is not a dictionary") }
            result.metadata = dictionary
        case ("database", "databaseInfo"):
            finishedHead = true
            if metadataOnly { parser.abortParsing() }
        case ("database", "object"):
            endObject()
        case ("object", "attribute"):
            endAttribute()
        default:
            if path.contains("plist") || parent == "plist" { endPlistElement(name) }
        }
        collectsText = false
        text = ""
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard failure == nil else { return }
        let line = parser.lineNumber
        failure = QuireError(
            .fileReadCorruptFile,
            "The XML store '\(file.path)' is not well-formed XML at line \(line), column \(parser.columnNumber)"
                + "\(path.last.map { " (in <\($0)>)" } ?? ""): \(parseError).",
            context: .init(file: file, position: line))
    }

    func parser(_ parser: XMLParser, foundInternalSubsetDeclaration: String) {
        fail("document type declarations are refused")
    }

    func parser(_ parser: XMLParser, foundElementDeclarationWithName elementName: String, model: String) {
        fail("document type declarations are refused")
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        fail("entity declarations are refused")
    }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
        fail("entity declarations are refused")
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        fail("external entities are refused")
        return nil
    }

    // MARK: Objects

    private func startObject(_ attributeDict: [String: String]) {
        guard !metadataOnly else { return }
        guard let typeName = attributeDict["type"], let entity = entitiesByTypeName[typeName] else {
            return fail("object type '\(attributeDict["type"] ?? "")' is not an entity of the model", element: "object")
        }
        guard !entity.isAbstract else { return fail("entity '\(entity.name)' is abstract", element: "object") }
        guard let key = Self.objectNumber(attributeDict["id"]) else {
            return fail("object id '\(attributeDict["id"] ?? "")' is not of the form z<number>", element: "object")
        }
        self.entity = entity
        self.key = key
        attributes = [AttributeValue](repeating: .null, count: entity.allAttributes.count)
        relationships = entity.allRelationships.map { $0.isTransient ? .fault : .empty(for: $0) }
    }

    private func endObject() {
        guard let entity, let store else { return }
        let id = ObjectID(entity: entity, store: store, primaryKey: key)
        guard result.nodes.updateValue(RowSnapshot(objectID: id, version: 1, attributes: attributes, relationships: relationships), forKey: key) == nil
        else { return fail("two objects have the id z\(key)", element: "object") }
        self.entity = nil
    }

    static func objectNumber(_ text: Substring) -> Int64? {
        guard text.first == "z" || text.first == "p", let number = Int64(text.dropFirst()), number > 0 else { return nil }
        return number
    }

    static func objectNumber(_ text: String?) -> Int64? { text.flatMap { objectNumber(Substring($0)) } }

    private func startAttribute(_ attributeDict: [String: String]) {
        guard let entity else { return }
        guard let name = attributeDict["name"], let attribute = entity.property(named: name) as? AttributeDescription,
            !attribute.isTransient
        else { return fail("entity '\(entity.name)' has no stored attribute '\(attributeDict["name"] ?? "")'", element: "attribute") }
        self.attribute = attribute
        attributeIsBase64 = attributeDict["encoding"] == "base64"
        attributeExternal = nil
        if let external = attributeDict["external"] {
            guard ExternalDataReference.isValidName(external),
                attribute.attributeType == .binaryData || attribute.attributeType == .transformable
            else { return fail("'\(external.prefix(40))' is not a valid external data reference", element: "attribute") }
            attributeExternal = ExternalDataReference(uuid: external, length: attributeDict["length"].flatMap { Int64($0) })
        }
        collectsText = true
    }

    private func endAttribute() {
        guard let attribute else { return }
        defer { self.attribute = nil }
        if let attributeExternal {
            attributes[attribute.slot] = .externalData(attributeExternal)
            return
        }
        guard let value = Self.value(text, attribute.attributeType, base64: attributeIsBase64) else {
            return fail("'\(text.prefix(40))' is not a valid \(attribute.attributeType.rawValue) value for '\(attribute.name)'", element: "attribute")
        }
        attributes[attribute.slot] = value
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The text without leading and trailing XML white space (space, tab, line feed, return); no copy when
    /// there is none, which is the common case.
    static func trimmed(_ text: String) -> String {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        let utf8 = text.utf8
        guard let first = utf8.first, let last = utf8.last, isSpace(first) || isSpace(last) else { return text }
        let start = utf8.firstIndex { !isSpace($0) } ?? utf8.endIndex
        guard start != utf8.endIndex, let end = utf8.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(text[start...end])
    }

    static func value(_ text: String, _ type: AttributeType, base64: Bool = false) -> AttributeValue? {
        let trimmed = trimmed(text)
        switch type {
        case .integer16, .integer32, .integer64:
            guard let value = Int64(trimmed), type.integerRange?.contains(value) == true else { return nil }
            return .integer(value)
        case .decimal: return Decimal(string: trimmed, locale: posix).map { .decimal($0) }
        case .double: return Double(trimmed).map { .double($0) }
        case .float: return Float(trimmed).map { .float($0) }
        case .string:
            guard base64 else { return .string(text) }
            return Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters).map { .string(String(decoding: $0, as: UTF8.self)) }
        case .boolean:
            switch trimmed.lowercased() {
            case "1", "true", "yes": return .boolean(true)
            case "0", "false", "no": return .boolean(false)
            default: return nil
            }
        case .date: return Double(trimmed).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .binaryData, .transformable:
            return Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters).map { .data($0) }
        case .uuid: return UUID(uuidString: trimmed).map { .uuid($0) }
        case .uri: return URL(string: trimmed).map { .uri($0) }
        }
    }

    private func startRelationship(_ attributeDict: [String: String]) {
        guard let entity else { return }
        guard let name = attributeDict["name"], let relationship = entity.property(named: name) as? RelationshipDescription,
            !relationship.isTransient
        else { return fail("entity '\(entity.name)' has no stored relationship '\(attributeDict["name"] ?? "")'", element: "relationship") }
        var targets: [Int64] = []
        for token in (attributeDict["idrefs"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
            guard let number = Self.objectNumber(token) else {
                return fail("'\(token.prefix(40))' in the idrefs of '\(name)' is not an object id", element: "relationship")
            }
            targets.append(number)
        }
        guard relationship.isToMany || targets.count <= 1 else {
            return fail("to-one relationship '\(name)' lists \(targets.count) objects", element: "relationship")
        }
        pending.append((key, relationship.slot, targets, parser?.lineNumber ?? 0))
    }

    private func resolveRelationships() throws {
        guard let store else { return }
        for (owner, slot, targets, line) in pending {
            guard var node = result.nodes[owner] else { continue }
            let relationship = node.objectID.entity.allRelationships[slot]
            var ids: [ObjectID] = []
            ids.reserveCapacity(targets.count)
            for target in targets {
                guard let destination = result.nodes[target]?.objectID.entity,
                    relationship.resolvedDestination.map(destination.isKind(of:)) ?? false
                else {
                    throw QuireError(
                        .fileReadCorruptFile,
                        "The XML store '\(file.path)' is invalid at line \(line), in <relationship>: '\(relationship.name)' of "
                            + "object z\(owner) refers to z\(target), which is not an object of entity '\(relationship.destinationEntityName)'.",
                        context: .init(file: file, entity: node.objectID.entity.name, key: relationship.name, position: line))
                }
                ids.append(ObjectID(entity: destination, store: store, primaryKey: target))
            }
            if !relationship.isToMany {
                node.relationships[slot] = .toOne(ids.first)
            } else {
                node.relationships[slot] = relationship.isOrdered ? .ordered(.init(ids)) : .toMany(Set(ids))
            }
            result.nodes[owner] = node
        }
    }

    // MARK: Property lists

    private func startPlistElement(_ name: String, _ attributeDict: [String: String]) {
        switch name {
        case "dict": frames.append(.dictionary([:], key: nil))
        case "array": frames.append(.array([]))
        case "key", "string", "integer", "real", "date", "data":
            collectsText = true
            dataIsString = attributeDict["quire-string"] == "1"
        case "true", "false": break
        default: fail("<\(name)> is not a property list element")
        }
    }

    private func endPlistElement(_ name: String) {
        let trimmed = Self.trimmed(text)
        var value: PropertyListValue?
        switch name {
        case "key":
            guard case .dictionary(let entries, nil)? = frames.last else { return fail("<key> outside a dictionary") }
            frames[frames.count - 1] = .dictionary(entries, key: text)
            return
        case "string": value = .string(text)
        case "integer": value = Int64(trimmed).map { .integer($0) }
        case "real": value = Double(trimmed).map { .real($0) }
        case "true": value = .boolean(true)
        case "false": value = .boolean(false)
        case "date": value = ISO8601DateFormatter().date(from: trimmed).map { .date($0) }
        case "data":
            let bytes = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters)
            value = dataIsString ? bytes.map { .string(String(decoding: $0, as: UTF8.self)) } : bytes.map { .data($0) }
        case "dict", "array":
            guard let frame = frames.popLast() else { return fail("unbalanced <\(name)>") }
            switch frame {
            case .dictionary(let entries, let key):
                guard key == nil else { return fail("<key> without a value") }
                value = .dictionary(entries)
            case .array(let elements): value = .array(elements)
            }
        case "plist": return
        default: return
        }
        guard let value else { return fail("'\(trimmed.prefix(40))' is not a valid <\(name)> value") }
        switch frames.last {
        case nil:
            plistRoot = value
        case .dictionary(var entries, let key)?:
            guard let key else { return fail("a value without a <key> in a dictionary") }
            entries[key] = value
            frames[frames.count - 1] = .dictionary(entries, key: nil)
        case .array(var elements)?:
            elements.append(value)
            frames[frames.count - 1] = .array(elements)
        }
    }
}
