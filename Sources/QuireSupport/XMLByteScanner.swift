import Foundation

/// Why a file's XML bytes (the XML store's, a model file's) are not well-formed, and where: a byte offset the reader turns into a line and
/// a column.
package struct XMLSyntaxError: Error {
    /// The byte offset at which the problem was found.
    package var offset: Int
    /// What is wrong, as a sentence fragment ("a '<' in an attribute value").
    package var reason: String

    /// An error at `offset` for `reason`.
    package init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }
}

/// A pull scanner over the raw UTF-8 bytes of Core Data's XML store format and of Xcode model files: start tags
/// with their attributes, end tags and text, never a `String` per character or per element. It is Quire's one
/// XML reader; Foundation's `XMLParser` is never handed a file (on Linux it crashes on some inputs, a processing
/// instruction without data among them).
///
/// It reads the subset of XML 1.0 the format needs: an optional byte order mark, `<?xml …?>` and other
/// processing instructions, comments, Core Data's own `<!DOCTYPE database SYSTEM "…">` before the root (no
/// internal subset: any `[`, any other document type, any `<!ENTITY` or other markup declaration is refused),
/// elements with single- or double-quoted attributes, self-closing elements, `<![CDATA[…]]>` sections, and in
/// text and attribute values the five predefined entities and numeric character references (`&#N;`, `&#xN;`)
/// of XML characters. Everything else throws an ``XMLSyntaxError``: unknown entities, a `<` in an attribute
/// value, control characters, mismatched or unclosed tags (the reader checks nesting), truncation, more than
/// ``maximumAttributes`` attributes on one element, and an attribute given twice (found through a hash table, so
/// an element's attributes cost linear time).
///
/// Values are not copied: a token holds byte offsets (``Span``) into the buffer, and ``decode(_:kind:into:)``
/// expands references and normalizes line ends (XML's `\r\n` → `\n`; in attribute values tab, line feed and
/// return become spaces) only for the values that need it. Entity and character references are validated while
/// scanning, so a reference the reader never decodes is refused all the same. UTF-8 is validated where a value
/// becomes a string (see ``XMLStoreParser``).
///
/// The buffer must outlive the scanner: it is used inside `Data.withUnsafeBytes`.
package struct XMLByteScanner {
    /// A range of byte offsets into the scanned buffer.
    package struct Span {
        /// The offset of the first byte.
        package var start: Int
        /// The offset just past the last byte.
        package var end: Int
        /// The number of bytes.
        package var count: Int { end - start }

        /// The bytes from `start` up to `end`.
        package init(start: Int, end: Int) {
            self.start = start
            self.end = end
        }
    }

    /// How a text or attribute value's bytes become its value.
    package enum ValueKind {
        /// The bytes are the value.
        case plain
        /// Text with references or carriage returns to expand.
        case text
        /// An attribute value with references or white space to normalize.
        case attribute
        /// The content of a CDATA section with carriage returns to normalize.
        case cdata
    }

    /// One attribute of the current start tag.
    package struct Attribute {
        /// The attribute's name.
        package var name: Span
        /// The value between the quotes, undecoded.
        package var value: Span
        /// `.plain` or `.attribute`.
        package var kind: ValueKind
    }

    /// What the scanner found next.
    package enum Token {
        /// A start tag; its attributes are read with ``XMLByteScanner/attribute(_:)`` until the next call.
        case start(name: Span, selfClosing: Bool)
        /// An end tag.
        case end(name: Span)
        /// Character data between tags (possibly white space only), or a CDATA section's content.
        case text(Span, ValueKind)
        /// The end of the bytes.
        case endOfInput
    }

    /// The bytes scanned.
    package let bytes: UnsafeRawBufferPointer
    /// The offset of the next byte to read.
    package private(set) var position = 0
    /// The offset at which the last token began (for error positions).
    package private(set) var tokenStart = 0
    /// The attributes of the last start tag are `attributeStorage[0..<attributeCount]` (the storage is reused).
    private var attributeStorage: [Attribute] = []
    /// The number of attributes of the last start tag.
    package private(set) var attributeCount = 0
    /// Whether a `<!DOCTYPE>` was already seen, or the root element began (no declaration may follow).
    private var prologClosed = false
    /// The longest value (text run or attribute value) accepted.
    package let maximumValueSize: Int
    /// Whether Core Data's `<!DOCTYPE database …>` is accepted (the XML store); when false every document type
    /// declaration is refused (model files).
    package let acceptsDatabaseDoctype: Bool
    /// Whether processing instructions other than the XML declaration are skipped (the XML store) or refused
    /// (model files, which Xcode writes without any).
    package let acceptsProcessingInstructions: Bool
    /// The offset of the first byte after a byte order mark, where an XML declaration may stand.
    private var documentStart = 0
    /// The most attributes one element may have; real files use a dozen.
    package static let maximumAttributes = 1024
    /// Up to this many attributes, duplicates are found by comparing names; past it through ``attributeTable``.
    private static let linearAttributeCheck = 8
    /// An open-addressing hash table of attribute indexes plus one (0 is empty), used for tags with more than
    /// ``linearAttributeCheck`` attributes and cleared after each such tag.
    private var attributeTable: [Int32] = []
    /// Whether ``attributeTable`` holds entries of the current tag.
    private var attributeTableInUse = false

    /// A scanner at the start of `bytes`, skipping a UTF-8 byte order mark.
    ///
    /// - Parameters:
    ///   - bytes: The bytes to scan; they must outlive the scanner.
    ///   - maximumValueSize: The longest text run or attribute value accepted.
    ///   - acceptsDatabaseDoctype: Whether Core Data's XML store document type declaration is accepted.
    ///   - acceptsProcessingInstructions: Whether processing instructions other than the XML declaration at the
    ///     start are skipped (true) or refused.
    package init(
        _ bytes: UnsafeRawBufferPointer, maximumValueSize: Int, acceptsDatabaseDoctype: Bool = true,
        acceptsProcessingInstructions: Bool = true
    ) {
        self.bytes = bytes
        self.maximumValueSize = maximumValueSize
        self.acceptsDatabaseDoctype = acceptsDatabaseDoctype
        self.acceptsProcessingInstructions = acceptsProcessingInstructions
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        documentStart = position
        attributeStorage.reserveCapacity(8)
    }

    // MARK: Positions

    /// Goes on scanning from `offset` (clamped to the buffer), which must be where a token starts after the root
    /// element began: for reading a file's objects in two parts (see ``XMLStoreParser``).
    package mutating func move(to offset: Int) {
        position = min(max(offset, 0), bytes.count)
        tokenStart = position
        prologClosed = true
    }

    /// The 1-based line and column of a byte offset.
    ///
    /// - Complexity: O(offset): only errors ask.
    package func lineAndColumn(at offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        let end = min(max(offset, 0), bytes.count)
        var index = 0
        while index < end {
            if bytes[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        return (line, end - lineStart + 1)
    }

    /// The bytes of a span as a string, invalid UTF-8 repaired (for error messages only).
    package func string(_ span: Span) -> String {
        guard span.start >= 0, span.start <= span.end, span.end <= bytes.count else { return "" }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[span.start..<span.end]), as: UTF8.self)
    }

    /// Whether a span's bytes are exactly an ASCII name.
    @inline(__always) package func span(_ span: Span, equals name: StaticString) -> Bool {
        guard span.count == name.utf8CodeUnitCount else { return false }
        let pointer = name.utf8Start
        var index = 0
        while index < span.count {
            if bytes[span.start + index] != pointer[index] { return false }
            index += 1
        }
        return true
    }

    /// Whether two spans hold the same bytes.
    @inline(__always) package func span(_ a: Span, equals b: Span) -> Bool {
        guard a.count == b.count else { return false }
        var index = 0
        while index < a.count {
            if bytes[a.start + index] != bytes[b.start + index] { return false }
            index += 1
        }
        return true
    }

    /// Whether a span's bytes equal a byte array.
    @inline(__always) package func span(_ span: Span, equals name: [UInt8]) -> Bool {
        guard span.count == name.count else { return false }
        var index = 0
        while index < name.count {
            if bytes[span.start + index] != name[index] { return false }
            index += 1
        }
        return true
    }

    /// The last start tag's attribute at `index`, which must be below ``attributeCount``.
    package func attribute(at index: Int) -> Attribute { attributeStorage[index] }

    /// The value of the last start tag's attribute `name`, if it has one.
    @inline(__always) package func attribute(_ name: StaticString) -> Attribute? {
        var index = 0
        while index < attributeCount && index < attributeStorage.count {
            if span(attributeStorage[index].name, equals: name) { return attributeStorage[index] }
            index += 1
        }
        return nil
    }

    // MARK: Scanning

    /// Whether a span holds only XML white space (space, tab, line feed, carriage return), as text between
    /// elements that carries nothing.
    package func isWhitespace(_ span: Span) -> Bool {
        var index = span.start
        while index < span.end {
            guard Self.isSpace(bytes[index]) else { return false }
            index += 1
        }
        return true
    }

    @inline(__always) private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// Bit `b` set for the ASCII bytes `b` below 64 that may continue a name (`-`, `.`, digits, `:`).
    private static let nameMaskLow: UInt64 = (1 << 0x2D) | (1 << 0x2E) | (0x3FF << 0x30) | (1 << 0x3A)
    /// Bit `b - 64` set for the ASCII bytes from 64 that may continue a name (letters and `_`).
    private static let nameMaskHigh: UInt64 = (0x3FF_FFFF << 1) | (1 << 31) | (0x3FF_FFFF << 33)
    /// Bit `b` set for the bytes below 64 that text scanning must look at: C0 controls but tab and line feed,
    /// `&`, `<` and `>`.
    private static let textSpecials: UInt64 = 0xFFFF_F9FF | (1 << 0x26) | (1 << 0x3C) | (1 << 0x3E)
    /// Bit `b` set for the bytes below 64 that attribute value scanning must look at: C0 controls, quotes,
    /// `&` and `<`.
    private static let attributeSpecials: UInt64 = 0xFFFF_FFFF | (1 << 0x22) | (1 << 0x26) | (1 << 0x27) | (1 << 0x3C)

    /// Every byte of a word set to `byte`.
    @inline(__always) private static func splat(_ byte: UInt8) -> UInt64 { 0x0101_0101_0101_0101 &* UInt64(byte) }

    /// Whether any byte of a word is below `limit` (at most 128): eight bytes checked at once.
    @inline(__always) private static func hasByte(below limit: UInt8, in word: UInt64) -> Bool {
        (word &- splat(limit)) & ~word & 0x8080_8080_8080_8080 != 0
    }

    /// Whether any byte of a word equals `byte`.
    @inline(__always) private static func hasByte(_ byte: UInt8, in word: UInt64) -> Bool {
        hasByte(below: 1, in: word ^ splat(byte))
    }

    @inline(__always) private static func isNameByte(_ byte: UInt8) -> Bool {
        if byte >= 0x80 { return true }
        if byte >= 0x40 { return (nameMaskHigh >> UInt64(byte - 0x40)) & 1 != 0 }
        return (nameMaskLow >> UInt64(byte)) & 1 != 0
    }

    @inline(__always) private static func isNameStart(_ byte: UInt8) -> Bool {
        isNameByte(byte) && !(byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) && byte != UInt8(ascii: "-")
            && byte != UInt8(ascii: ".")
    }

    @inline(__always) private func byte(_ offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    /// Whether the bytes at `offset` start with an ASCII literal.
    private func hasPrefix(_ literal: StaticString, at offset: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard offset >= 0, offset + count <= bytes.count else { return false }
        let pointer = literal.utf8Start
        for index in 0..<count where bytes[offset + index] != pointer[index] { return false }
        return true
    }

    /// The offset just past the first occurrence of `terminator` at or after `offset`.
    private func skip(past terminator: StaticString, from offset: Int, what: String) throws(XMLSyntaxError) -> Int {
        let count = terminator.utf8CodeUnitCount
        let first = terminator.utf8Start[0]
        var index = offset
        while index + count <= bytes.count {
            if bytes[index] == first, hasPrefix(terminator, at: index) { return index + count }
            index += 1
        }
        throw XMLSyntaxError(offset: tokenStart, reason: "the file ends inside \(what)")
    }

    private func fail(_ reason: String, at offset: Int? = nil) -> XMLSyntaxError {
        XMLSyntaxError(offset: offset ?? tokenStart, reason: reason)
    }

    /// The next token.
    ///
    /// - Throws: ``XMLSyntaxError`` for anything outside the format's XML subset.
    package mutating func next() throws(XMLSyntaxError) -> Token {
        while true {
            tokenStart = position
            guard position < bytes.count else { return .endOfInput }
            guard bytes[position] == UInt8(ascii: "<") else { return try scanText() }
            guard let second = byte(position + 1) else { throw fail("the file ends inside a tag") }
            switch second {
            case UInt8(ascii: "/"):
                return try scanEndTag()
            case UInt8(ascii: "?"):
                let isDeclaration = position == documentStart && hasPrefix("<?xml", at: position)
                    && byte(position + 5).map(Self.isSpace) == true
                guard acceptsProcessingInstructions || isDeclaration else {
                    throw fail("processing instructions other than the XML declaration at the start are refused")
                }
                position = try skip(past: "?>", from: position + 2, what: "a processing instruction")
            case UInt8(ascii: "!"):
                if hasPrefix("<!--", at: position) {
                    position = try skip(past: "-->", from: position + 4, what: "a comment")
                } else if hasPrefix("<![CDATA[", at: position) {
                    let start = position + 9
                    position = try skip(past: "]]>", from: start, what: "a CDATA section")
                    let span = Span(start: start, end: position - 3)
                    guard span.count <= maximumValueSize else { throw fail("a value is longer than \(maximumValueSize) bytes") }
                    var kind = ValueKind.plain
                    for index in span.start..<span.end {
                        let byte = bytes[index]
                        if byte < 0x20 {
                            if byte == 0x0D { kind = .cdata } else if byte != 0x09 && byte != 0x0A {
                                throw fail("control character \(byte) in a CDATA section", at: index)
                            }
                        }
                    }
                    return .text(span, kind)
                } else if hasPrefix("<!DOCTYPE", at: position) {
                    try scanDoctype()
                } else {
                    throw fail("document type and entity declarations other than Core Data's are refused")
                }
            default:
                return try scanStartTag()
            }
        }
    }

    /// Core Data's document type declaration: `<!DOCTYPE database` with an optional external identifier and no
    /// internal subset, once, before the root element.
    private mutating func scanDoctype() throws(XMLSyntaxError) {
        let refusal = "a document type other than Core Data's is declared; DTDs and entity declarations are refused"
        guard acceptsDatabaseDoctype, !prologClosed, hasPrefix("<!DOCTYPE database", at: position),
            let after = byte(position + 18), Self.isSpace(after) || after == UInt8(ascii: ">")
        else { throw fail(refusal) }
        var index = position + 18
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                position = index + 1
                prologClosed = true
                return
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "<") {
                throw fail(refusal)
            }
            index += 1
        }
        throw fail("the file ends inside the document type declaration")
    }

    /// A name at `position`, which must start one.
    @inline(__always) private mutating func scanName() throws(XMLSyntaxError) -> Span {
        let start = position
        guard let first = byte(position) else { throw fail("the file ends inside a tag") }
        guard Self.isNameStart(first) else { throw fail("'\(Character(Unicode.Scalar(first)))' cannot start a name", at: position) }
        let bytes = bytes
        var index = position + 1
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        position = index
        return Span(start: start, end: index)
    }

    @inline(__always) private mutating func skipSpace() {
        let bytes = bytes
        var index = position
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        position = index
    }

    private mutating func scanEndTag() throws(XMLSyntaxError) -> Token {
        position += 2
        let name = try scanName()
        skipSpace()
        guard let close = byte(position) else { throw fail("the file ends inside the end tag </\(string(name))>") }
        guard close == UInt8(ascii: ">") else { throw fail("the end tag </\(string(name))> is not closed by '>'", at: position) }
        position += 1
        return .end(name: name)
    }

    private mutating func scanStartTag() throws(XMLSyntaxError) -> Token {
        prologClosed = true
        position += 1
        let name = try scanName()
        attributeCount = 0
        while true {
            let hadSpace = position < bytes.count && Self.isSpace(bytes[position])
            skipSpace()
            guard let byte = byte(position) else { throw fail("the file ends inside the tag <\(string(name))>") }
            if byte == UInt8(ascii: ">") {
                clearAttributeTable()
                position += 1
                return .start(name: name, selfClosing: false)
            }
            if byte == UInt8(ascii: "/") {
                clearAttributeTable()
                guard self.byte(position + 1) == UInt8(ascii: ">") else { throw fail("'/' not followed by '>' in <\(string(name))>", at: position) }
                position += 2
                return .start(name: name, selfClosing: true)
            }
            guard hadSpace else { throw fail("attributes of <\(string(name))> must be separated by white space", at: position) }
            let attributeName = try scanName()
            skipSpace()
            guard self.byte(position) == UInt8(ascii: "=") else {
                throw fail("the attribute '\(string(attributeName))' of <\(string(name))> has no value", at: position)
            }
            position += 1
            skipSpace()
            guard let quote = self.byte(position), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw fail("the value of '\(string(attributeName))' in <\(string(name))> is not quoted", at: position)
            }
            position += 1
            let start = position
            var kind = ValueKind.plain
            let bytes = bytes
            var index = position
            while true {
                // Eight plain bytes at a time: no control character, quote, '&' or '<'.
                while index + 8 <= bytes.count {
                    let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    if Self.hasByte(below: 0x20, in: word) || Self.hasByte(quote, in: word) || Self.hasByte(UInt8(ascii: "&"), in: word)
                        || Self.hasByte(UInt8(ascii: "<"), in: word)
                    { break }
                    index += 8
                }
                guard index < bytes.count else { throw fail("the file ends inside an attribute value of <\(string(name))>") }
                let byte = bytes[index]
                if byte < 0x40 && (Self.attributeSpecials >> UInt64(byte)) & 1 != 0 {
                    if byte == quote { break }
                    switch byte {
                    case UInt8(ascii: "<"): throw fail("a '<' in the value of '\(string(attributeName))'", at: index)
                    case UInt8(ascii: "&"):
                        index = try Self.reference(in: bytes, at: index).end - 1
                        kind = .attribute
                    case 0x09, 0x0A, 0x0D: kind = .attribute
                    case 0..<0x20: throw fail("control character \(byte) in the value of '\(string(attributeName))'", at: index)
                    default: break
                    }
                }
                index += 1
            }
            position = index
            let value = Span(start: start, end: position)
            position += 1
            guard value.count <= maximumValueSize else { throw fail("a value is longer than \(maximumValueSize) bytes", at: start) }
            guard attributeCount < Self.maximumAttributes else {
                clearAttributeTable()
                throw fail("<\(string(name))> has more than \(Self.maximumAttributes) attributes", at: attributeName.start)
            }
            if attributeCount < Self.linearAttributeCheck {
                var other = 0
                while other < attributeCount && other < attributeStorage.count {
                    if span(attributeStorage[other].name, equals: attributeName) {
                        throw fail("<\(string(name))> has two '\(string(attributeName))' attributes", at: attributeName.start)
                    }
                    other += 1
                }
            } else {
                if attributeCount == Self.linearAttributeCheck {
                    // From here on through the table: enter the names compared so far.
                    if attributeTable.isEmpty { attributeTable = Array(repeating: 0, count: 2 * Self.maximumAttributes) }
                    attributeTableInUse = true
                    for index in 0..<attributeCount { _ = enterAttribute(index, name: attributeStorage[index].name) }
                }
                if !enterAttribute(attributeCount, name: attributeName) {
                    clearAttributeTable()
                    throw fail("<\(string(name))> has two '\(string(attributeName))' attributes", at: attributeName.start)
                }
            }
            let attribute = Attribute(name: attributeName, value: value, kind: kind)
            if attributeCount < attributeStorage.count {
                attributeStorage[attributeCount] = attribute
            } else {
                attributeStorage.append(attribute)
            }
            attributeCount += 1
        }
    }

    /// Enters attribute `index` with `name` in ``attributeTable``; false when an attribute of that name is there.
    private mutating func enterAttribute(_ index: Int, name: Span) -> Bool {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var offset = name.start
        while offset < name.end {
            hash = (hash ^ UInt64(bytes[offset])) &* 0x100_0000_01B3
            offset += 1
        }
        let mask = attributeTable.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while attributeTable[slot] != 0 {
            let other = Int(attributeTable[slot]) - 1
            if other < attributeStorage.count, span(attributeStorage[other].name, equals: name) { return false }
            slot = (slot + 1) & mask
        }
        attributeTable[slot] = Int32(index + 1)
        return true
    }

    /// Empties ``attributeTable`` after a tag that used it.
    private mutating func clearAttributeTable() {
        guard attributeTableInUse else { return }
        for index in attributeTable.indices { attributeTable[index] = 0 }
        attributeTableInUse = false
    }

    private mutating func scanText() throws(XMLSyntaxError) -> Token {
        let bytes = bytes
        let start = position
        var index = position
        var kind = ValueKind.plain
        while index < bytes.count {
            // Eight plain bytes at a time: no control character, '&', '<' or '>'.
            while index + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if Self.hasByte(below: 0x20, in: word) || Self.hasByte(UInt8(ascii: "<"), in: word) || Self.hasByte(UInt8(ascii: "&"), in: word)
                    || Self.hasByte(UInt8(ascii: ">"), in: word)
                { break }
                index += 8
            }
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte < 0x40 && (Self.textSpecials >> UInt64(byte)) & 1 != 0 {
                switch byte {
                case UInt8(ascii: "<"):
                    position = index
                    return try finishText(start, kind)
                case UInt8(ascii: "&"):
                    index = try Self.reference(in: bytes, at: index).end - 1
                    kind = .text
                case UInt8(ascii: ">"):
                    // "]]>" may not appear in text.
                    if index >= start + 2, bytes[index - 1] == UInt8(ascii: "]"), bytes[index - 2] == UInt8(ascii: "]") {
                        throw fail("']]>' in text", at: index - 2)
                    }
                case 0x0D: kind = .text
                default: throw fail("control character \(byte) in text", at: index)
                }
            }
            index += 1
        }
        position = index
        return try finishText(start, kind)
    }

    @inline(__always) private func finishText(_ start: Int, _ kind: ValueKind) throws(XMLSyntaxError) -> Token {
        guard position - start <= maximumValueSize else { throw fail("a value is longer than \(maximumValueSize) bytes", at: start) }
        return .text(Span(start: start, end: position), kind)
    }

    // MARK: References

    /// The reference starting with `&` at `offset`: the Unicode scalar it stands for, and the offset past its `;`.
    ///
    /// - Throws: ``XMLSyntaxError`` for unknown entities, malformed references and references to non-characters.
    package static func reference(in bytes: UnsafeRawBufferPointer, at offset: Int) throws(XMLSyntaxError) -> (scalar: Unicode.Scalar, end: Int) {
        var index = offset + 1
        let limit = min(bytes.count, offset + 12)
        var semicolon = -1
        while index < limit {
            if bytes[index] == UInt8(ascii: ";") { semicolon = index; break }
            index += 1
        }
        guard semicolon > offset + 1 else {
            throw XMLSyntaxError(offset: offset, reason: "a '&' that does not start an entity or character reference")
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 1)..<semicolon])
        func named(_ name: StaticString) -> Bool {
            guard body.count == name.utf8CodeUnitCount else { return false }
            for index in 0..<body.count where body[index] != name.utf8Start[index] { return false }
            return true
        }
        let end = semicolon + 1
        if named("amp") { return ("&", end) }
        if named("lt") { return ("<", end) }
        if named("gt") { return (">", end) }
        if named("quot") { return ("\"", end) }
        if named("apos") { return ("'", end) }
        guard body[0] == UInt8(ascii: "#"), body.count >= 2 else {
            let name = String(decoding: body, as: UTF8.self)
            throw XMLSyntaxError(offset: offset, reason: "unknown entity '&\(name);' (only the five predefined entities are read)")
        }
        let hex = body[1] == UInt8(ascii: "x")
        let digits = UnsafeRawBufferPointer(rebasing: body[(hex ? 2 : 1)...])
        var value: UInt32 = 0
        for digit in digits {
            let v: UInt32
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: v = UInt32(digit - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: v = UInt32(digit - UInt8(ascii: "A") + 10)
            default: throw XMLSyntaxError(offset: offset, reason: "a malformed character reference")
            }
            value = value * (hex ? 16 : 10) + v
            guard value <= 0x10FFFF else { throw XMLSyntaxError(offset: offset, reason: "a character reference beyond Unicode") }
        }
        guard !digits.isEmpty, value == 0x09 || value == 0x0A || value == 0x0D || (value >= 0x20 && value != 0xFFFE && value != 0xFFFF),
            let scalar = Unicode.Scalar(value)
        else { throw XMLSyntaxError(offset: offset, reason: "a character reference to a character XML cannot hold") }
        return (scalar, end)
    }

    /// Appends the value of a span, references expanded and line ends normalized, to `output`.
    ///
    /// - Throws: ``XMLSyntaxError`` for a malformed reference (the scanner has already refused them).
    package func decode(_ span: Span, kind: ValueKind, into output: inout [UInt8]) throws(XMLSyntaxError) {
        guard span.start >= 0, span.start <= span.end, span.end <= bytes.count else { return }
        let source = UnsafeRawBufferPointer(rebasing: bytes[span.start..<span.end])
        guard kind != .plain else {
            output.append(contentsOf: source)
            return
        }
        output.reserveCapacity(output.count + source.count)
        let lineEnd = kind == .attribute ? UInt8(ascii: " ") : 0x0A
        var index = 0
        while index < source.count {
            let byte = source[index]
            switch byte {
            case UInt8(ascii: "&") where kind != .cdata:
                let (scalar, end) = try Self.reference(in: source, at: index)
                output.append(contentsOf: String(Character(scalar)).utf8)
                index = end
                continue
            case 0x0D:
                output.append(lineEnd)
                if index + 1 < source.count, source[index + 1] == 0x0A { index += 1 }
            case 0x09 where kind == .attribute, 0x0A where kind == .attribute:
                output.append(UInt8(ascii: " "))
            default:
                output.append(byte)
            }
            index += 1
        }
    }
}
