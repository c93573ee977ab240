import QuireCore
import Foundation

/// Reads Core Data's XML store format with ``XMLByteScanner``, Quire's own scanner over the file's UTF-8 bytes
/// (Foundation's `XMLParser` alone took 13 times the raw-SQLite baseline to read a 100,000-object store).
///
/// Hardened: no DTD (a `<!DOCTYPE>` is accepted only as Core Data writes it, `<!DOCTYPE database …>` with no
/// internal subset), no entities but XML's five predefined ones and character references, no external anything;
/// nesting is limited to ``maximumDepth`` levels, values to ``maximumValueSize`` bytes and the file to
/// ``maximumFileSize`` (which bounds the number of elements); strings are validated UTF-8. CDATA sections are
/// read as text. Errors name the file, the element and the line.
package struct XMLStoreParser {
    /// The largest XML store Quire reads.
    package static let maximumFileSize = 1 << 30
    /// The deepest element nesting accepted (objects sit at depth 2, metadata property lists deeper).
    package static let maximumDepth = 64
    /// The longest text or attribute value accepted, references unexpanded (a 192 MiB inline blob in base64).
    package static let maximumValueSize = 256 << 20

    /// What a store file holds.
    package struct Result {
        /// The `<UUID>` of `<databaseInfo>`.
        package var uuid: String?
        /// `<nextObjectID>`.
        package var nextKey: Int64 = 1
        /// The metadata property list.
        package var metadata: [String: PropertyListValue]?
        /// The objects, packed (nil when only the head is read).
        package var nodes: AtomicRecordTable?
        /// The embedded model as written (base64 of its canonical form).
        package var modelBase64 = ""
        /// The number of objects of each entity, by entity number (nil when only the head is read).
        package var entityCounts: [Int]?
        /// Whether the objects were read in two parts at once (see ``parse(_:file:model:store:split:)``).
        package var wasSplit = false
    }

    /// Whether and where a parse may read its objects in two parts, one on each of two threads.
    package enum SplitPolicy {
        /// On one thread.
        case never
        /// In two parts when the objects take at least ``minimumSplitSize`` bytes, split near their middle.
        case automatic
        /// In two parts, split at the first `<object` tag found from this byte offset on, whatever the size
        /// (for tests).
        case from(Int)
    }

    /// The fewest bytes of objects read in two parts.
    package static let minimumSplitSize = 1 << 20

    // MARK: Entry points

    /// Parses a whole store file's bytes.
    ///
    /// A large file's objects are read in two parts at once (see ``SplitPolicy``) with the same result, and the
    /// same error for bad input, as reading it on one thread.
    ///
    /// - Throws: `QuireError(.fileReadCorruptFile)` naming the file, the line and the element for any bad input.
    package static func parse(
        _ data: Data, file: URL, model: ManagedObjectModel, store: PersistentStore, split: SplitPolicy = .automatic
    ) throws -> Result {
        guard data.count <= maximumFileSize else {
            throw QuireError(
                .fileReadCorruptFile,
                "The XML store '\(file.path)' is \(data.count) bytes long, more than the \(maximumFileSize) bytes Quire reads.",
                context: .init(file: file))
        }
        return try data.withUnsafeBytes { bytes in
            var reader = Reader(bytes, file: file, model: model, store: store, metadataOnly: false)
            if case .never = split {
                _ = try reader.run()
                return reader.result
            }
            // The head on this thread, up to the first token after </databaseInfo> inside <database>.
            reader.pauseAfterHead = true
            reader.stopOffset = 0
            guard try reader.run() == .paused else { return reader.result }
            reader.pauseAfterHead = false
            reader.stopOffset = .max
            let here = reader.scanner.position
            let searchStart: Int
            switch split {
            case .never, .automatic:
                guard bytes.count - here >= minimumSplitSize else {
                    _ = try reader.run()
                    return reader.result
                }
                // A little past the middle: the second part's thread starts colder (a new allocator arena, a
                // woken thread), and it measured slower than the first by about a tenth.
                searchStart = here + (bytes.count - here) / 100 * 54
            case .from(let offset):
                searchStart = max(here, offset)
            }
            guard let splitOffset = objectTag(in: bytes, from: searchStart) else {
                _ = try reader.run()
                return reader.result
            }
            return try readInTwoParts(&reader, at: splitOffset)
        }
    }

    /// The offset of the first `<object` followed by white space at or after `offset`: a guess at where an
    /// object starts, which the first part's reader confirms (see ``readInTwoParts(_:at:)``).
    private static func objectTag(in bytes: UnsafeRawBufferPointer, from offset: Int) -> Int? {
        let tag: StaticString = "<object"
        let length = tag.utf8CodeUnitCount
        var index = max(offset, 0)
        while index + length < bytes.count {
            if bytes[index] == UInt8(ascii: "<") {
                var matches = true
                for at in 1..<length where bytes[index + at] != tag.utf8Start[at] {
                    matches = false
                    break
                }
                let after = bytes[index + length]
                if matches, after == 0x20 || after == 0x09 || after == 0x0A || after == 0x0D { return index }
            }
            index += 1
        }
        return nil
    }

    /// Reads the objects from the reader's position in two parts at once: the reader up to `splitOffset`, a copy
    /// of it from there to the end.
    ///
    /// The split is only a guess until the first part confirms it: its reader stops only if it reaches
    /// `splitOffset` as the start of a token, with `<database>` the only open element, which is exactly the
    /// state the copy started from; otherwise (the offset fell inside a comment, a CDATA section or deeper
    /// elements) it reads on to the end by itself and the second part is dropped. Once confirmed, the second
    /// part reads what one thread would have read from there, so its error is the file's error unless the first
    /// part has one; it adds objects to a list in file order rather than to the table, so that adding them to
    /// the first part's table in order finds the first duplicate id one thread would have found (within the
    /// second part or across parts); relationships are resolved once both are in. Offsets, and so line
    /// numbers, are into the whole file in both parts.
    private static func readInTwoParts(_ reader: inout Reader, at splitOffset: Int) throws -> Result {
        var first = reader
        first.stopOffset = splitOffset
        var second = reader
        second.isContinuation = true
        second.records = XMLRecordBuilder(keepsOrder: true)
        second.table = nil
        // The second part builds its own tables: nothing it touches for every object is shared with the first.
        second.tables = [:]
        second.lastTable = nil
        second.lastTypeName = []
        second.counts = second.counts.map { _ in 0 }
        let remaining = max(0, reader.scanner.bytes.count - splitOffset)
        second.records.reserve(
            records: Int(min(max(reader.result.nextKey, 0), Int64(remaining / 64))), bytes: remaining / Reader.packedBytesDivisor)
        second.reservedRecords = true
        second.scanner.move(to: splitOffset)
        // Each part reads with its own copy of its reader, on its own thread's stack: the two readers' hot
        // fields side by side on one stack would share cache lines that both threads write for every token.
        let (firstPart, secondPart) = concurrently { () -> (Reader, Swift.Result<Reader.Stop, any Error>) in
            var reader = first
            let outcome = Swift.Result { try reader.run() }
            return (reader, outcome)
        } alongside: { () -> (Reader, Swift.Result<Reader.Stop, any Error>) in
            var reader = second
            let outcome = Swift.Result { try reader.run() }
            return (reader, outcome)
        }
        let firstOutcome: Swift.Result<Reader.Stop, any Error>
        (first, firstOutcome) = try firstPart.get()
        let secondOutcome: Swift.Result<Reader.Stop, any Error>
        (second, secondOutcome) = try secondPart.get()
        guard try firstOutcome.get() == .paused else { return first.result }
        if case .failure(let error) = secondOutcome, error is SplitAbandoned {
            first.stopOffset = .max
            _ = try first.run()
            return first.result
        }
        if let duplicate = first.records.append(part: second.records) {
            let entities = first.model.entitiesByNumber
            let entity = duplicate.entityNumber > 0 && duplicate.entityNumber <= entities.count ? entities[duplicate.entityNumber - 1].name : ""
            throw first.duplicateFailure(duplicate.key, entity: entity, at: duplicate.tokenOffset)
        }
        second.records = XMLRecordBuilder(keepsOrder: true)
        _ = try secondOutcome.get()
        for (index, count) in second.counts.enumerated() where index < first.counts.count { first.counts[index] += count }
        try first.finish()
        first.result.wasSplit = true
        return first.result
    }

    /// Thrown by the second part of a split read when it meets what only one thread can read (a second
    /// `<databaseInfo>`): the first part then reads on by itself.
    private struct SplitAbandoned: Error {}

    /// Reads only `<databaseInfo>`: the file is read until `</databaseInfo>`, whatever its size.
    static func readHead(at url: URL, model: ManagedObjectModel? = nil) throws -> (result: Result, headLength: Int) {
        let handle = try BinaryStoreFormat.openForReading(url)
        defer { try? handle.close() }
        var head = Data()
        let marker = Data("</databaseInfo>".utf8)
        while true {
            guard let chunk = try? handle.read(upToCount: 64 * 1024), !chunk.isEmpty else {
                // The oldest Core Data XML stores have no <databaseInfo>: their head is the <database> tag.
                if let end = headWithoutDatabaseInfo(head) { return try readHeadWithoutDatabaseInfo(head.prefix(end), url: url, model: model) }
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
            if let end = headWithoutDatabaseInfo(head) { return try readHeadWithoutDatabaseInfo(head.prefix(end), url: url, model: model) }
            guard head.count <= PropertyListValue.defaultMaximumSize else {
                throw QuireError(
                    .fileReadCorruptFile, "The XML store '\(url.path)' has a <databaseInfo> element larger than 16 MiB.",
                    context: .init(file: url))
            }
        }
        let result = try head.withUnsafeBytes { bytes in
            var reader = Reader(bytes, file: url, model: model ?? ManagedObjectModel(), store: nil, metadataOnly: true)
            _ = try reader.run()
            return reader.result
        }
        return (result, head.count)
    }

    /// Where the `<database>` start tag ends when the file's first element inside it is an `<object>` (or
    /// `</database>`), not a `<databaseInfo>`: the very old XML stores Core Data wrote have none. Nil while the
    /// bytes read so far do not tell, or when there is a `<databaseInfo>`.
    static func headWithoutDatabaseInfo(_ head: Data) -> Int? {
        guard let database = head.range(of: Data("<database".utf8)),
            let close = head[database.upperBound...].firstIndex(of: UInt8(ascii: ">"))
        else { return nil }
        let afterTag = close + 1
        guard head[database.upperBound..<close].last != UInt8(ascii: "/") else { return nil }
        let rest = head[afterTag...]
        let info = rest.range(of: Data("<databaseInfo".utf8))?.lowerBound
        let object = rest.range(of: Data("<object".utf8))?.lowerBound ?? rest.range(of: Data("</database>".utf8))?.lowerBound
        guard let object, info.map({ object < $0 }) ?? true else { return nil }
        return afterTag
    }

    /// The head of a store without `<databaseInfo>`: no UUID, no metadata, object numbers from 1.
    private static func readHeadWithoutDatabaseInfo(_ head: Data, url: URL, model: ManagedObjectModel?) throws -> (
        result: Result, headLength: Int
    ) {
        var document = head
        document.append(contentsOf: "</database>".utf8)
        let result = try document.withUnsafeBytes { bytes in
            var reader = Reader(bytes, file: url, model: model ?? ManagedObjectModel(), store: nil, metadataOnly: true)
            _ = try reader.run()
            return reader.result
        }
        return (result, head.count)
    }

    static func objectNumber(_ text: Substring) -> Int64? {
        guard text.first == "z" || text.first == "p", let number = Int64(text.dropFirst()), number > 0 else { return nil }
        return number
    }

    static func objectNumber(_ text: String?) -> Int64? { text.flatMap { objectNumber(Substring($0)) } }


    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The text without leading and trailing XML white space (space, tab, line feed, return); no copy when
    /// there is none, which is the common case.
    package static func trimmed(_ text: String) -> String {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        let utf8 = text.utf8
        guard let first = utf8.first, let last = utf8.last, isSpace(first) || isSpace(last) else { return text }
        let start = utf8.firstIndex { !isSpace($0) } ?? utf8.endIndex
        guard start != utf8.endIndex, let end = utf8.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(text[start...end])
    }

    package static func value(_ text: String, _ type: AttributeType, base64: Bool = false) -> AttributeValue? {
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

    // MARK: Values

    /// Parses ASCII digits with an optional sign as `Int64(_: String)` does (nil on overflow or anything else).
    package static func integer(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard let first = bytes.first else { return nil }
        var index = 0
        var negative = false
        if first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            index = 1
        }
        guard index < bytes.count else { return nil }
        var value: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times.subtractingReportingOverflow(Int64(digit)) : times.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// The bytes without leading and trailing XML white space.
    package static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// An object id (`z102`, or `p102` as Quire's URIs write it) from bytes.
    static func objectNumber(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard let first = bytes.first, first == UInt8(ascii: "z") || first == UInt8(ascii: "p"),
            let number = integer(UnsafeRawBufferPointer(rebasing: bytes[1...])), number > 0
        else { return nil }
        return number
    }

    /// An attribute's value from its text's bytes: integers, booleans, strings, data and the doubles and dates
    /// Quire writes without an intermediate string, the rest through ``value(_:_:base64:)``.
    ///
    /// - Returns: nil when the text is not a valid value of the type, or not valid UTF-8.
    package static func value(_ bytes: UnsafeRawBufferPointer, _ type: AttributeType, base64: Bool) -> AttributeValue? {
        switch type {
        case .integer16, .integer32, .integer64:
            guard let value = integer(trimmed(bytes)), type.integerRange?.contains(value) == true else { return nil }
            return .integer(value)
        case .string where !base64:
            return XMLStoreParser.string(bytes).map { .string($0) }
        case .boolean:
            let trimmed = trimmed(bytes)
            if trimmed.count == 1, trimmed[0] == UInt8(ascii: "1") { return .boolean(true) }
            if trimmed.count == 1, trimmed[0] == UInt8(ascii: "0") { return .boolean(false) }
        case .double:
            if let value = XMLDecimalNumber.double(trimmed(bytes)) { return .double(value) }
        case .date:
            if let value = XMLDecimalNumber.double(trimmed(bytes)) { return .date(Date(timeIntervalSinceReferenceDate: value)) }
        case .binaryData, .transformable:
            let trimmed = trimmed(bytes)
            if let data = Base64Bytes.decodeCanonical(trimmed) { return .data(data) }
            return Data(base64Encoded: Data(trimmed), options: .ignoreUnknownCharacters).map { .data($0) }
        default:
            break
        }
        guard let text = XMLStoreParser.string(bytes) else { return nil }
        return value(text, type, base64: base64)
    }

    // MARK: The reader

    /// Up to the first 16 bytes of a name packed in two words, with its length: comparing a name costs two
    /// integer comparisons (longer names are then compared in full).
    struct PackedName: Equatable {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var count = 0

        init(_ bytes: UnsafeRawBufferPointer) {
            count = bytes.count
            var index = 0
            while index < min(bytes.count, 16) {
                if index < 8 {
                    low |= UInt64(bytes[index]) << (8 * UInt64(index))
                } else {
                    high |= UInt64(bytes[index]) << (8 * UInt64(index - 8))
                }
                index += 1
            }
        }
    }

    /// Per-entity lookups of stored properties by name bytes.
    private final class EntityTable {
        let entity: EntityDescription
        let entityNumber: Int
        let attributes: [AttributeDescription]
        let attributeNames: [[UInt8]]
        let packedAttributeNames: [PackedName]
        /// The type of each stored attribute.
        let attributeTypes: [AttributeType]
        let relationshipNames: [[UInt8]]
        let relationships: [RelationshipDescription]
        /// Whether each stored relationship is to-many.
        let relationshipIsToMany: [Bool]
        /// The model's own (exact) attribute names, for stores that wrote them so (Quire until 2026-11).
        let exactAttributeNames: [[UInt8]]
        /// The model's own relationship names.
        let exactRelationshipNames: [[UInt8]]
        /// Attribute indexes by lower-cased name, -1 for a name two attributes share (the last resort, once per
        /// element whose name matched neither way).
        let attributeIndexByFoldedName: [String: Int]
        /// Relationship indexes by lower-cased name, -1 for a shared one.
        let relationshipIndexByFoldedName: [String: Int]

        init(_ entity: EntityDescription) {
            self.entity = entity
            entityNumber = entity.entityNumber
            attributes = entity.allAttributes.filter { !$0.isTransient }
            // First the names Quire writes (Core Data's: lower-cased), then the model's own.
            attributeNames = attributes.map { Array(XMLStoreWriter.storedName(of: $0, in: entity).utf8) }
            packedAttributeNames = attributeNames.map { name in name.withUnsafeBytes { PackedName($0) } }
            exactAttributeNames = attributes.map { Array($0.name.utf8) }
            attributeTypes = attributes.map(\.attributeType)
            relationships = entity.allRelationships.filter { !$0.isTransient }
            relationshipNames = relationships.map { Array(XMLStoreWriter.storedName(of: $0, in: entity).utf8) }
            exactRelationshipNames = relationships.map { Array($0.name.utf8) }
            relationshipIsToMany = relationships.map(\.isToMany)
            func folded(_ names: [String]) -> [String: Int] {
                var byName: [String: Int] = [:]
                for (index, name) in names.enumerated() {
                    let key = name.lowercased()
                    byName[key] = byName[key] == nil ? index : -1
                }
                return byName
            }
            attributeIndexByFoldedName = folded(attributes.map(\.name))
            relationshipIndexByFoldedName = folded(relationships.map(\.name))
        }

        /// The attribute or relationship names of the entity that equal `name` but for case, for messages.
        func namesFolding(to name: String, relationships: Bool) -> [String] {
            let names = relationships ? self.relationships.map(\.name) : attributes.map(\.name)
            return names.filter { $0.lowercased() == name.lowercased() }
        }
    }

    /// A string from bytes that must be valid UTF-8 (nil when they are not); ASCII takes a fast path.
    package static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        bytes.withMemoryRebound(to: UInt8.self) { buffer in
            var index = 0
            while index < buffer.count, buffer[index] < 0x80 { index += 1 }
            if index == buffer.count { return String(decoding: buffer, as: UTF8.self) }
            return String(validating: buffer, as: UTF8.self)
        }
    }

    /// The state of one parse over a buffer that outlives it.
    private struct Reader {
        /// What an open element is, which decides what its children and text may be.
        enum Kind {
            case database, databaseInfo, headValue, metadata, plist, plistContainer, plistValue, plistEmpty
            case object, attribute, relationship, ignored
        }

        struct Frame {
            package var name: XMLByteScanner.Span
            package var kind: Kind
        }

        var scanner: XMLByteScanner
        let file: URL
        let store: PersistentStore?
        let metadataOnly: Bool
        var result = Result()
        /// Entities by name and by upper-cased name (Core Data's `type`).
        let entitiesByTypeName: [String: EntityDescription]
        /// Upper-cased names that two entities of the model share.
        let ambiguousTypeNames: Set<String>
        /// The model read with.
        let model: ManagedObjectModel
        var tables: [ObjectIdentifier: EntityTable] = [:]
        var lastTypeName: [UInt8] = []
        var lastTable: EntityTable?

        var stack: [Frame] = []
        var sawRoot = false

        // The text of the element being read: one plain span, or decoded pieces in a buffer.
        var text = XMLByteScanner.Span(start: 0, end: 0)
        var textInBuffer = false
        var textBuffer: [UInt8] = []

        // The object being read.
        var table: EntityTable?
        var key: Int64 = 0
        /// The records read, packed as they are read.
        var records = XMLRecordBuilder(keepsOrder: false)
        /// Whether ``records`` has reserved room for the objects (on the first one).
        var reservedRecords = false
        /// A record table takes about a third of the XML it was read from (a quarter for the benchmark's
        /// store): room for that much is reserved, so that the buffer seldom grows.
        static let packedBytesDivisor = 3
        /// The index in `table.attributes` of the attribute being read, or -1.
        var attributeIndex = -1
        /// The packed names of the current object's stored attributes.
        var packedNames: [PackedName] = []
        /// The types of the current object's stored attributes.
        var types: [AttributeType] = []
        /// Where the next attribute name lookup starts: attributes usually come in the order they were written.
        var hint = 0
        /// The name of the current object's entity, for messages.
        var entityName: String { table?.entity.name ?? "" }
        /// The attribute being read.
        var attribute: AttributeDescription? {
            guard let table, attributeIndex >= 0, attributeIndex < table.attributes.count else { return nil }
            return table.attributes[attributeIndex]
        }
        var attributeIsBase64 = false
        var attributeExternal: ExternalDataReference?
        /// The number of objects read of each entity, by entity number.
        var counts: [Int]

        // Reading in two parts (see `XMLStoreParser.readInTwoParts`).

        /// Where to stop when it is the start of a token with only `<database>` open (`.max`: nowhere).
        var stopOffset = Int.max
        /// Whether to stop instead at the first token after `</databaseInfo>` with only `<database>` open.
        var pauseAfterHead = false
        /// Whether this reader reads the second part: its records are kept in file order, relationships are
        /// left pending, and a `<databaseInfo>` abandons the split.
        var isContinuation = false

        // The metadata property list being read.
        enum PlistFrame {
            case dictionary([String: PropertyListValue], key: String?)
            case array([PropertyListValue])
        }
        var frames: [PlistFrame] = []
        var plistRoot: PropertyListValue?
        var dataIsString = false

        init(_ bytes: UnsafeRawBufferPointer, file: URL, model: ManagedObjectModel, store: PersistentStore?, metadataOnly: Bool) {
            scanner = XMLByteScanner(bytes, maximumValueSize: XMLStoreParser.maximumValueSize)
            self.file = file
            self.store = store
            self.metadataOnly = metadataOnly
            var byType: [String: EntityDescription] = [:]
            var ambiguous: Set<String> = []
            for entity in model.entities {
                let folded = entity.name.uppercased()
                if byType[folded] != nil { ambiguous.insert(folded) }
                byType[folded] = entity
            }
            for entity in model.entities { byType[entity.name] = entity }
            entitiesByTypeName = byType
            ambiguousTypeNames = ambiguous
            self.model = model
            counts = [Int](repeating: 0, count: model.entitiesByNumber.count + 1)
            stack.reserveCapacity(XMLStoreParser.maximumDepth)
        }

        // MARK: Failures

        func line(_ offset: Int) -> Int { scanner.lineAndColumn(at: offset).line }

        /// An invalid-store error at the current token: "invalid at line N, in <element>: message."
        func failure(_ message: String, element: String? = nil) -> QuireError {
            let line = line(scanner.tokenStart)
            let name = element ?? stack.last.map { scanner.string($0.name) } ?? "document"
            return QuireError(
                .fileReadCorruptFile, "The XML store '\(file.path)' is invalid at line \(line), in <\(name)>: \(message).",
                context: .init(file: file, entity: table?.entity.name, key: attribute?.name, position: line))
        }

        /// The error for a second `<attribute>` or `<relationship>` element of one property in the current object
        /// (Core Data writes each once; which one to keep is not the reader's guess).
        func repeated(_ element: String, _ name: String) -> QuireError {
            failure("object z\(key) has a second <\(element)> element of '\(name)'", element: element)
        }

        /// The error for a second object with the id `z<key>`, found at `offset`.
        func duplicateFailure(_ key: Int64, entity: String, at offset: Int) -> QuireError {
            let line = line(offset)
            return QuireError(
                .fileReadCorruptFile, "The XML store '\(file.path)' is invalid at line \(line), in <object>: two objects have the id z\(key).",
                context: .init(file: file, entity: entity, key: nil, position: line))
        }

        /// A well-formedness error: "not well-formed XML at line N, column C (in <element>): reason."
        func failure(_ syntax: XMLSyntaxError) -> QuireError {
            let (line, column) = scanner.lineAndColumn(at: syntax.offset)
            return QuireError(
                .fileReadCorruptFile,
                "The XML store '\(file.path)' is not well-formed XML at line \(line), column \(column)"
                    + "\(stack.last.map { " (in <\(scanner.string($0.name))>)" } ?? ""): \(syntax.reason).",
                context: .init(file: file, position: line))
        }

        // MARK: Text

        /// The collected text's bytes.
        func withText<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            if textInBuffer { return try textBuffer.withUnsafeBytes(body) }
            return try body(UnsafeRawBufferPointer(rebasing: scanner.bytes[text.start..<text.end]))
        }

        /// The collected text as a string.
        func textString() throws -> String {
            guard let string = withText({ XMLStoreParser.string($0) }) else {
                throw failure("the text is not valid UTF-8")
            }
            return string
        }

        /// The start of the collected text, for messages.
        func textPrefix() -> String {
            withText { String(decoding: UnsafeRawBufferPointer(rebasing: $0.prefix(40)), as: UTF8.self) }
        }

        mutating func resetText() {
            text = XMLByteScanner.Span(start: 0, end: 0)
            textInBuffer = false
        }

        mutating func addText(_ span: XMLByteScanner.Span, _ kind: XMLByteScanner.ValueKind) throws {
            if !textInBuffer {
                if kind == .plain && text.count == 0 {
                    text = span
                    return
                }
                textBuffer.removeAll(keepingCapacity: true)
                try scanner.decode(text, kind: .plain, into: &textBuffer)
                textInBuffer = true
            }
            try scanner.decode(span, kind: kind, into: &textBuffer)
            guard textBuffer.count <= XMLStoreParser.maximumValueSize else {
                throw failure("a value is longer than \(XMLStoreParser.maximumValueSize) bytes")
            }
        }

        /// An attribute of the current start tag, decoded and validated.
        func attributeString(_ name: StaticString) throws -> String? {
            guard let attribute = scanner.attribute(name) else { return nil }
            var bytes: [UInt8] = []
            do { try scanner.decode(attribute.value, kind: attribute.kind, into: &bytes) } catch { throw failure(error) }
            guard let string = bytes.withUnsafeBytes({ XMLStoreParser.string($0) }) else {
                throw failure("the value of '\(name)' is not valid UTF-8")
            }
            return string
        }

        /// An attribute of the current start tag as bytes (decoded only when it needs to be).
        func withAttribute<R>(_ attribute: XMLByteScanner.Attribute, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
            if attribute.kind == .plain {
                return try body(UnsafeRawBufferPointer(rebasing: scanner.bytes[attribute.value.start..<attribute.value.end]))
            }
            var bytes: [UInt8] = []
            do { try scanner.decode(attribute.value, kind: attribute.kind, into: &bytes) } catch { throw failure(error) }
            return try bytes.withUnsafeBytes(body)
        }

        // MARK: The document

        /// How a run ended.
        enum Stop {
            /// At the end of the input, with everything read.
            case finished
            /// At the stop asked for (``stopOffset`` or ``pauseAfterHead``), before reading its token.
            case paused
        }

        /// Reads tokens until the end of the input (everything read into ``result``) or the stop asked for.
        package mutating func run() throws -> Stop {
            while true {
                if scanner.position >= stopOffset {
                    if stack.count == 1, stack[0].kind == .database, pauseAfterHead ? sawHead : scanner.position == stopOffset {
                        return .paused
                    }
                    // Past the offset without meeting it at depth 1: read on, to the end.
                    if !pauseAfterHead { stopOffset = .max }
                }
                if table != nil, let top = stack.last, top.kind == .object, readAttributeElement() { continue }
                let token: XMLByteScanner.Token
                do { token = try scanner.next() } catch { throw failure(error) }
                switch token {
                case .start(let name, let selfClosing):
                    try start(name)
                    if selfClosing { try end(name) }
                    if metadataOnly && sawHead { return .finished }
                case .end(let name):
                    guard let open = stack.last else {
                        throw failure(XMLSyntaxError(offset: scanner.tokenStart, reason: "</\(scanner.string(name))> closes no element"))
                    }
                    guard scanner.span(open.name, equals: name) else {
                        throw failure(
                            XMLSyntaxError(
                                offset: scanner.tokenStart,
                                reason: "</\(scanner.string(name))> does not close <\(scanner.string(open.name))>"))
                    }
                    try end(name)
                    if metadataOnly && sawHead { return .finished }
                case .text(let span, let kind):
                    guard let top = stack.last else {
                        guard scanner.isWhitespace(span) else {
                            throw failure(XMLSyntaxError(offset: span.start, reason: "text \(sawRoot ? "after" : "before") the root element"))
                        }
                        continue
                    }
                    switch top.kind {
                    case .headValue, .attribute, .plistValue: try addText(span, kind)
                    default: break
                    }
                case .endOfInput:
                    if let open = stack.last {
                        throw failure(XMLSyntaxError(offset: scanner.bytes.count, reason: "the file ends before </\(scanner.string(open.name))>"))
                    }
                    guard sawRoot else { throw failure(XMLSyntaxError(offset: scanner.bytes.count, reason: "there is no root element")) }
                    if !metadataOnly && !isContinuation { try finish() }
                    return .finished
                }
            }
        }

        var sawHead = false


        package mutating func start(_ name: XMLByteScanner.Span) throws {
            let parent = stack.last?.kind
            guard stack.count < XMLStoreParser.maximumDepth else {
                stack.append(Frame(name: name, kind: .ignored))
                throw failure("elements nest deeper than \(XMLStoreParser.maximumDepth) levels")
            }
            var kind = Kind.ignored
            switch parent {
            case nil:
                guard !sawRoot else { throw failure(XMLSyntaxError(offset: scanner.tokenStart, reason: "an element after the root element")) }
                sawRoot = true
                guard scanner.span(name, equals: "database") else {
                    stack.append(Frame(name: name, kind: .ignored))
                    throw failure("the root element must be <database>")
                }
                kind = .database
            case .database?:
                if scanner.span(name, equals: "object") {
                    kind = .object
                    stack.append(Frame(name: name, kind: kind))
                    return try startObject()
                } else if scanner.span(name, equals: "databaseInfo") {
                    if isContinuation { throw SplitAbandoned() }
                    kind = .databaseInfo
                } else {
                    stack.append(Frame(name: name, kind: .ignored))
                    throw failure("unexpected element <\(scanner.string(name))>")
                }
            case .object?:
                if scanner.span(name, equals: "attribute") {
                    kind = .attribute
                    stack.append(Frame(name: name, kind: kind))
                    resetText()
                    return try startAttribute()
                } else if scanner.span(name, equals: "relationship") {
                    kind = .relationship
                    stack.append(Frame(name: name, kind: kind))
                    return try startRelationship()
                }
            case .databaseInfo?:
                kind = scanner.span(name, equals: "metadata") ? .metadata : .headValue
            case .metadata?:
                if scanner.span(name, equals: "plist") {
                    kind = .plist
                    frames = []
                    plistRoot = nil
                }
            case .plist?, .plistContainer?:
                stack.append(Frame(name: name, kind: .ignored))
                kind = try startPlistElement(scanner.string(name))
                stack.removeLast()
            case .headValue?, .attribute?, .plistValue?, .plistEmpty?:
                stack.append(Frame(name: name, kind: .ignored))
                throw failure("unexpected element <\(scanner.string(name))> in a value")
            case .relationship?, .ignored?:
                kind = .ignored
            }
            stack.append(Frame(name: name, kind: kind))
            resetText()
        }

        package mutating func end(_ name: XMLByteScanner.Span) throws {
            guard let frame = stack.last else { return }
            switch frame.kind {
            case .headValue:
                if scanner.span(name, equals: "quireModel") {
                    result.modelBase64 = try textString()
                } else if scanner.span(name, equals: "UUID") {
                    result.uuid = XMLStoreParser.trimmed(try textString())
                } else if scanner.span(name, equals: "nextObjectID") {
                    guard let next = withText({ XMLStoreParser.integer(XMLStoreParser.trimmed($0)) }), next > 0 else {
                        throw failure("'\(textPrefix())' is not a positive object number", element: "nextObjectID")
                    }
                    result.nextKey = next
                }
            case .plist:
                guard case .dictionary(let dictionary)? = plistRoot else { throw failure("the metadata property list is not a dictionary") }
                result.metadata = dictionary
            case .plistContainer, .plistValue, .plistEmpty:
                try endPlistElement(scanner.string(name))
            case .databaseInfo:
                sawHead = true
            case .object:
                try endObject()
            case .attribute:
                try endAttribute()
            default:
                break
            }
            stack.removeLast()
            resetText()
        }

        // MARK: Objects

        mutating func entityTable() throws -> EntityTable {
            guard let type = scanner.attribute("type") else {
                throw failure("object type '' is not an entity of the model", element: "object")
            }
            if let lastTable, type.kind == .plain, scanner.span(type.value, equals: lastTypeName) { return lastTable }
            let name = try attributeString("type") ?? ""
            // Core Data writes entity names upper-cased; Quire matches them to the model's without regard to case.
            guard let entity = entitiesByTypeName[name] ?? entitiesByTypeName[name.uppercased()] else {
                throw failure("object type '\(name)' is not an entity of the model", element: "object")
            }
            if entity.name != name, ambiguousTypeNames.contains(name.uppercased()) {
                let names = model.entities.filter { $0.name.uppercased() == name.uppercased() }.map { "'\($0.name)'" }
                throw failure(
                    "object type '\(name)' could be the entities \(names.joined(separator: " and ")), whose names differ only in case",
                    element: "object")
            }
            guard !entity.isAbstract else { throw failure("entity '\(entity.name)' is abstract", element: "object") }
            let table = tables[ObjectIdentifier(entity)] ?? EntityTable(entity)
            tables[ObjectIdentifier(entity)] = table
            lastTypeName = Array(name.utf8)
            lastTable = table
            return table
        }

        mutating func startObject() throws {
            guard !metadataOnly else { return }
            let table = try entityTable()
            guard let id = scanner.attribute("id"), let key = try withAttribute(id, { XMLStoreParser.objectNumber($0) }) else {
                throw failure("object id '\(try attributeString("id") ?? "")' is not of the form z<number>", element: "object")
            }
            self.table = table
            self.key = key
            hint = 0
            packedNames = table.packedAttributeNames
            types = table.attributeTypes
            if !reservedRecords {
                reservedRecords = true
                let remaining = max(0, scanner.bytes.count - scanner.tokenStart)
                records.reserve(
                    records: Int(min(max(result.nextKey, 0), Int64(remaining / 64))), bytes: remaining / Self.packedBytesDivisor)
            }
            records.beginObject(attributeCount: table.attributes.count, relationshipCount: table.relationships.count)
        }

        mutating func endObject() throws {
            guard let table, store != nil else { return }
            let number = table.entityNumber
            if number >= 0 && number < counts.count { counts[number] += 1 }
            let offset = records.finishObject(key: key, entityNumber: number, isToMany: table.relationshipIsToMany)
            self.table = nil
            guard records.insert(key: key, offset: offset, tokenOffset: scanner.tokenStart)
            else { throw duplicateFailure(key, entity: table.entity.name, at: scanner.tokenStart) }
        }

        /// Ends a whole read (or a split read's first part, once the second is appended): checks and writes the
        /// relationships' targets and hands the records to ``result``.
        package mutating func finish() throws {
            try resolveRelationships()
            if let store { result.nodes = records.takeTable(store: store) }
            result.entityCounts = counts
        }

        mutating func startAttribute() throws {
            guard table != nil else { return }
            guard let nameAttribute = scanner.attribute("name") else {
                throw failure("entity '\(entityName)' has no stored attribute ''", element: "attribute")
            }
            var found = storedAttributeIndex(nameAttribute.value)
            if found < 0, let table {
                found = try attributeIndex(nameAttribute, in: table)
            }
            guard found >= 0 else {
                throw failure("entity '\(entityName)' has no stored attribute '\(try attributeString("name") ?? "")'", element: "attribute")
            }
            guard !records.hasValue(at: found) else { throw repeated("attribute", table?.attributes[found].name ?? "") }
            attributeIndex = found
            attributeIsBase64 = false
            attributeExternal = nil
            guard scanner.attributeCount > 2 else { return }
            attributeIsBase64 = try attributeString("encoding") == "base64"
            if let external = try attributeString("external") {
                guard ExternalDataReference.isValidName(external), let attribute,
                    attribute.attributeType == .binaryData || attribute.attributeType == .transformable
                else { throw failure("'\(external.prefix(40))' is not a valid external data reference", element: "attribute") }
                attributeExternal = ExternalDataReference(uuid: external, length: try attributeString("length").flatMap { Int64($0) })
            }
        }

        /// The index of the current object's stored attribute whose name, as Quire and Core Data write it, is
        /// the bytes of `name` (-1 when none is): names are compared packed, starting after the last one found.
        private mutating func storedAttributeIndex(_ name: XMLByteScanner.Span) -> Int {
            let packed = PackedName(UnsafeRawBufferPointer(rebasing: scanner.bytes[name.start..<name.end]))
            let count = packedNames.count
            var index = hint < count ? hint : 0
            var step = 0
            while step < count {
                if packedNames[index] == packed, packed.count <= 16 || scanner.span(name, equals: table?.attributeNames[index] ?? []) {
                    hint = index + 1
                    return index
                }
                index = index + 1 == count ? 0 : index + 1
                step += 1
            }
            return -1
        }

        /// An attribute's index by a name the fast path did not find: the model's own spelling, then the name
        /// matched without regard to case (Core Data writes property names lower-cased); -1 when none matches.
        ///
        /// - Throws: when two attributes of the entity differ only in case and the name matches both.
        private func attributeIndex(_ nameAttribute: XMLByteScanner.Attribute, in table: EntityTable) throws -> Int {
            if nameAttribute.kind == .plain,
                let index = table.exactAttributeNames.firstIndex(where: { scanner.span(nameAttribute.value, equals: $0) })
            {
                return index
            }
            let name = try attributeString("name") ?? ""
            if let index = table.attributes.firstIndex(where: { $0.name == name }) { return index }
            guard let index = table.attributeIndexByFoldedName[name.lowercased()] else { return -1 }
            guard index >= 0 else {
                let names = table.namesFolding(to: name, relationships: false).map { "'\($0)'" }.joined(separator: " and ")
                throw failure(
                    "attribute '\(name)' could be \(names) of entity '\(table.entity.name)', whose names differ only in case",
                    element: "attribute")
            }
            return index
        }

        /// A relationship by a name that is not the one Quire writes (see ``attributeIndex(_:in:)``).
        private func relationship(_ nameAttribute: XMLByteScanner.Attribute, in table: EntityTable) throws -> RelationshipDescription? {
            if nameAttribute.kind == .plain,
                let index = table.exactRelationshipNames.firstIndex(where: { scanner.span(nameAttribute.value, equals: $0) })
            {
                return table.relationships[index]
            }
            let name = try attributeString("name") ?? ""
            if let found = table.relationships.first(where: { $0.name == name }) { return found }
            guard let index = table.relationshipIndexByFoldedName[name.lowercased()] else { return nil }
            guard index >= 0 else {
                let names = table.namesFolding(to: name, relationships: true).map { "'\($0)'" }.joined(separator: " and ")
                throw failure(
                    "relationship '\(name)' could be \(names) of entity '\(table.entity.name)', whose names differ only in case",
                    element: "relationship")
            }
            return table.relationships[index]
        }

        mutating func endAttribute() throws {
            let index = attributeIndex
            guard index >= 0, index < types.count else { return }
            if let attributeExternal {
                records.setValue(at: index, .externalData(attributeExternal))
                attributeIndex = -1
                return
            }
            let type = types[index]
            let base64 = attributeIsBase64
            let valid: Bool
            if textInBuffer {
                valid = textBuffer.withUnsafeBytes { records.setValue(at: index, $0, type, base64: base64) }
            } else {
                valid = records.setValue(
                    at: index, UnsafeRawBufferPointer(rebasing: scanner.bytes[text.start..<text.end]), type, base64: base64)
            }
            guard valid else {
                throw failure(
                    "'\(textPrefix())' is not a valid \(type.rawValue) value for '\(attribute?.name ?? "")'", element: "attribute")
            }
            attributeIndex = -1
        }

        // MARK: Attribute elements in one step

        /// Reads the current object's next element, `<attribute name="…" type="…">text</attribute>` after only
        /// spaces, tabs and line feeds, in one step when it is exactly in the form Quire and Core Data write: those
        /// two attributes and no other, no character or entity reference, control character (but tab and line
        /// feed in the text) or `>` in the text, the name of a stored attribute as written, and a valid value.
        /// Anything else is left to the scanner (false: nothing read), which reads the same bytes token by token,
        /// so that what is bad is refused with the same error. White space alone before another element is
        /// skipped (true), as the scanner's text token there would be ignored.
        private mutating func readAttributeElement() -> Bool {
            let bytes = scanner.bytes
            let count = bytes.count
            let start = scanner.position
            var index = start
            while index < count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 { index += 1 }
            guard Self.has("<attribute name=\"", in: bytes, at: index) else {
                guard index > start, index < count, bytes[index] == UInt8(ascii: "<") else { return false }
                scanner.move(to: index)
                return true
            }
            let nameStart = index + 17
            guard let nameEnd = Self.plainValueEnd(in: bytes, from: nameStart), Self.has("\" type=\"", in: bytes, at: nameEnd),
                let typeEnd = Self.plainValueEnd(in: bytes, from: nameEnd + 8), typeEnd + 1 < count,
                bytes[typeEnd + 1] == UInt8(ascii: ">"),
                let textEnd = Self.plainTextEnd(in: bytes, from: typeEnd + 2),
                Self.has("</attribute>", in: bytes, at: textEnd)
            else { return false }
            let found = storedAttributeIndex(XMLByteScanner.Span(start: nameStart, end: nameEnd))
            // A second element of one attribute is left to the scanner, which refuses it.
            guard found >= 0, found < types.count, !records.hasValue(at: found) else { return false }
            let text = UnsafeRawBufferPointer(rebasing: bytes[(typeEnd + 2)..<textEnd])
            guard records.setValue(at: found, text, types[found], base64: false) else { return false }
            scanner.move(to: textEnd + 12)
            return true
        }

        /// Whether the bytes at `offset` are the ASCII literal.
        @inline(__always) private static func has(_ literal: StaticString, in bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
            let length = literal.utf8CodeUnitCount
            guard offset >= 0, offset + length <= bytes.count else { return false }
            let pointer = UnsafeRawPointer(literal.utf8Start)
            var index = 0
            // Eight bytes at a time, then one by one.
            while index + 8 <= length {
                if bytes.loadUnaligned(fromByteOffset: offset + index, as: UInt64.self)
                    != pointer.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                { return false }
                index += 8
            }
            while index < length {
                if bytes[offset + index] != pointer.load(fromByteOffset: index, as: UInt8.self) { return false }
                index += 1
            }
            return true
        }

        /// The offset of the `"` ending a double-quoted attribute value that starts at `offset` and holds no byte
        /// the scanner would look at (a control character, `&`, `<`), within 256 bytes; nil otherwise.
        private static func plainValueEnd(in bytes: UnsafeRawBufferPointer, from offset: Int) -> Int? {
            var index = offset
            let limit = min(bytes.count, offset + 256)
            while index < limit {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") { return index }
                if byte < 0x20 || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") { return nil }
                index += 1
            }
            return nil
        }

        /// The offset of the `<` ending text that starts at `offset` and holds no byte the scanner would treat
        /// specially (a control character but tab and line feed, `&`, `>`), at most ``maximumValueSize`` bytes
        /// long; nil otherwise.
        private static func plainTextEnd(in bytes: UnsafeRawBufferPointer, from offset: Int) -> Int? {
            let count = bytes.count
            var index = offset
            while index < count {
                // Eight bytes at a time while none is below 0x20, '<', '&' or '>'.
                while index + 8 <= count {
                    let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    if hasByte(below: 0x20, in: word) || hasByte(UInt8(ascii: "<"), in: word) || hasByte(UInt8(ascii: "&"), in: word)
                        || hasByte(UInt8(ascii: ">"), in: word)
                    { break }
                    index += 8
                }
                guard index < count else { return nil }
                let byte = bytes[index]
                if byte == UInt8(ascii: "<") { return index - offset <= XMLStoreParser.maximumValueSize ? index : nil }
                if byte < 0x20 && byte != 0x09 && byte != 0x0A || byte == UInt8(ascii: "&") || byte == UInt8(ascii: ">") { return nil }
                index += 1
            }
            return nil
        }

        /// Whether any byte of a word is below `limit` (at most 128).
        @inline(__always) private static func hasByte(below limit: UInt8, in word: UInt64) -> Bool {
            (word &- 0x0101_0101_0101_0101 &* UInt64(limit)) & ~word & 0x8080_8080_8080_8080 != 0
        }

        /// Whether any byte of a word equals `byte`.
        @inline(__always) private static func hasByte(_ byte: UInt8, in word: UInt64) -> Bool {
            hasByte(below: 1, in: word ^ (0x0101_0101_0101_0101 &* UInt64(byte)))
        }

        mutating func startRelationship() throws {
            guard let table else { return }
            guard let nameAttribute = scanner.attribute("name") else {
                throw failure("entity '\(table.entity.name)' has no stored relationship ''", element: "relationship")
            }
            var found = -1
            for index in table.relationships.indices where scanner.span(nameAttribute.value, equals: table.relationshipNames[index]) {
                found = index
                break
            }
            if found < 0, let relationship = try relationship(nameAttribute, in: table) {
                found = table.relationships.firstIndex { $0 === relationship } ?? -1
            }
            let name = try found >= 0 ? table.relationships[found].name : attributeString("name") ?? ""
            guard found >= 0 else {
                throw failure("entity '\(table.entity.name)' has no stored relationship '\(name)'", element: "relationship")
            }
            guard !records.hasRelationship(at: found) else { throw repeated("relationship", name) }
            // The targets go straight to the builder's list (taken out of it while the attribute is read).
            var targets: [Int64] = []
            swap(&targets, &records.targets)
            let targetsStart = targets.count
            var badToken: String?
            if let idrefs = scanner.attribute("idrefs") {
                try withAttribute(idrefs) { bytes in
                    var index = 0
                    while index < bytes.count {
                        let byte = bytes[index]
                        if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                            index += 1
                            continue
                        }
                        let start = index
                        while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x09, bytes[index] != 0x0A, bytes[index] != 0x0D {
                            index += 1
                        }
                        let token = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                        guard let number = XMLStoreParser.objectNumber(token) else {
                            badToken = String(decoding: UnsafeRawBufferPointer(rebasing: token.prefix(40)), as: UTF8.self)
                            return
                        }
                        targets.append(number)
                    }
                }
            }
            let targetCount = targets.count - targetsStart
            swap(&targets, &records.targets)
            if let badToken {
                throw failure("'\(badToken)' in the idrefs of '\(name)' is not an object id", element: "relationship")
            }
            guard table.relationshipIsToMany[found] || targetCount <= 1 else {
                throw failure("to-one relationship '\(name)' lists \(targetCount) objects", element: "relationship")
            }
            records.addRelationship(
                at: found, isToMany: table.relationshipIsToMany[found], owner: key, ownerEntityNumber: table.entityNumber,
                targetsStart: targetsStart, tokenOffset: scanner.tokenStart)
        }

        /// Checks every relationship's targets and writes their entities into the records (see
        /// ``XMLRecordBuilder/resolve(model:failure:)``).
        mutating func resolveRelationships() throws {
            guard store != nil else { return }
            let file = file
            let scanner = scanner
            try records.resolve(model: model) { entry, relationship, target in
                let line = scanner.lineAndColumn(at: entry.tokenOffset).line
                let entities = model.entitiesByNumber
                let owner = entry.ownerEntityNumber > 0 && entry.ownerEntityNumber <= entities.count ? entities[entry.ownerEntityNumber - 1].name : ""
                return QuireError(
                    .fileReadCorruptFile,
                    "The XML store '\(file.path)' is invalid at line \(line), in <relationship>: '\(relationship.name)' of "
                        + "object z\(entry.owner) refers to z\(target), which is not an object of entity '\(relationship.destinationEntityName)'.",
                    context: .init(file: file, entity: owner, key: relationship.name, position: line))
            }
        }

        // MARK: Property lists

        mutating func startPlistElement(_ name: String) throws -> Kind {
            switch name {
            case "dict":
                frames.append(.dictionary([:], key: nil))
                return .plistContainer
            case "array":
                frames.append(.array([]))
                return .plistContainer
            case "key", "string", "integer", "real", "date", "data":
                dataIsString = try attributeString("quire-string") == "1"
                return .plistValue
            case "true", "false":
                return .plistEmpty
            default:
                throw failure("<\(name)> is not a property list element")
            }
        }

        mutating func endPlistElement(_ name: String) throws {
            let text = try textString()
            let trimmed = XMLStoreParser.trimmed(text)
            var value: PropertyListValue?
            switch name {
            case "key":
                guard case .dictionary(let entries, nil)? = frames.last else { throw failure("<key> outside a dictionary") }
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
                guard let frame = frames.popLast() else { throw failure("unbalanced <\(name)>") }
                switch frame {
                case .dictionary(let entries, let key):
                    guard key == nil else { throw failure("<key> without a value") }
                    value = .dictionary(entries)
                case .array(let elements): value = .array(elements)
                }
            default: return
            }
            guard let value else { throw failure("'\(trimmed.prefix(40))' is not a valid <\(name)> value") }
            switch frames.last {
            case nil:
                plistRoot = value
            case .dictionary(var entries, let key)?:
                guard let key else { throw failure("a value without a <key> in a dictionary") }
                entries[key] = value
                frames[frames.count - 1] = .dictionary(entries, key: nil)
            case .array(var elements)?:
                elements.append(value)
                frames[frames.count - 1] = .array(elements)
            }
        }
    }
}
