import QuireSupport
import Foundation

/// One element of an Xcode model file: its name, attributes, child elements and the line it starts on.
/// Text between elements is not kept: the format carries everything in attributes.
package struct XcodeModelElement: Sendable {
    package var name: String
    package var attributes: [String: String]
    package var children: [XcodeModelElement]
    package var line: Int

    /// The child elements with a name, in document order.
    package func children(named name: String) -> [XcodeModelElement] { children.filter { $0.name == name } }

    /// The element as it reads in messages: `<attribute name="title">`.
    package var label: String {
        if let name = attributes["name"] { return "<\(self.name) name=\"\(name)\">" }
        return "<\(name)>"
    }
}

/// Reads an Xcode model's `contents` XML into a tree of ``XcodeModelElement``s, defensively, with Quire's own
/// ``XMLByteScanner`` (never Foundation's `XMLParser`, which crashes on Linux on some inputs): the input is UTF-8,
/// a document type declaration (and with it every entity declaration) and every processing instruction but the XML
/// declaration are refused, external entities are never
/// resolved, and the size, nesting depth, element count, attribute count and attribute lengths are bounded.
package enum XcodeModelXML {
    /// Bounds on what a `contents` file may hold; real models stay far below them.
    package struct Limits: Sendable {
        /// The largest file, in bytes.
        package var maximumSize = 16 * 1024 * 1024
        /// The deepest nesting of elements (real files nest five levels).
        package var maximumDepth = 32
        /// The most elements in the file.
        var maximumElements = 500_000
        /// The longest attribute value, in UTF-8 bytes.
        var maximumAttributeLength = 256 * 1024

        /// The default limits.
        package init() {}
    }

    /// Parses a `contents` file's bytes.
    ///
    /// - Parameters:
    ///   - data: The bytes.
    ///   - file: The file, for messages.
    ///   - limits: The bounds to enforce.
    /// - Returns: The root element.
    /// - Throws: ``QuireError/Code/invalidModel`` naming the file, the line and what is wrong.
    package static func parse(_ data: Data, file: URL, limits: Limits = Limits()) throws -> XcodeModelElement {
        func failure(_ message: String, line: Int? = nil) -> QuireError {
            let place = line.map { "line \($0) of " } ?? ""
            return QuireError(.invalidModel, "In \(place)'\(file.path)': \(message)", context: .init(file: file))
        }
        guard data.count <= limits.maximumSize else {
            throw failure("the file is \(data.count) bytes long, more than the \(limits.maximumSize) bytes a model file may have.")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw failure("the file is not UTF-8 text.")
        }
        if let range = text.range(of: "<!DOCTYPE") ?? text.range(of: "<!ENTITY") {
            let line = text[..<range.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
            throw failure("document type and entity declarations are not allowed in a model file.", line: line)
        }
        if let declarationEnd = text.range(of: "?>"), text.hasPrefix("<?xml") {
            let declaration = text[..<declarationEnd.upperBound].lowercased()
            if let encoding = declaration.range(of: "encoding=") {
                let value = declaration[encoding.upperBound...].dropFirst().prefix { $0 != "\"" && $0 != "'" }
                guard value == "utf-8" || value == "utf8" else {
                    throw failure("the file declares the encoding '\(value)'; model files are UTF-8.", line: 1)
                }
            }
        }
        do {
            return try data.withUnsafeBytes { buffer in
                var builder = TreeBuilder(buffer: buffer, limits: limits)
                return try builder.run()
            }
        } catch let problem as Problem {
            throw failure(problem.message, line: problem.line)
        }
    }

    /// What is wrong with a file, and on which line.
    private struct Problem: Error {
        var message: String
        var line: Int
    }

    /// Builds the tree from ``XMLByteScanner``'s tokens, checking nesting and enforcing the limits; used by one
    /// parse inside `Data.withUnsafeBytes`.
    private struct TreeBuilder {
        var scanner: XMLByteScanner
        let limits: Limits
        var stack: [(name: XMLByteScanner.Span, element: XcodeModelElement)] = []
        var root: XcodeModelElement?
        var count = 0
        /// The line of ``countedOffset``, counted forward as tokens are read (linear in the file's size).
        var line = 1
        var countedOffset = 0
        var valueBuffer: [UInt8] = []

        init(buffer: UnsafeRawBufferPointer, limits: Limits) {
            scanner = XMLByteScanner(buffer, maximumValueSize: limits.maximumAttributeLength, acceptsDatabaseDoctype: false,
                acceptsProcessingInstructions: false)
            self.limits = limits
        }

        /// The line of a byte offset at or after the last one asked about.
        mutating func line(at offset: Int) -> Int {
            let end = min(max(offset, countedOffset), scanner.bytes.count)
            var index = countedOffset
            while index < end {
                if scanner.bytes[index] == 0x0A { line += 1 }
                index += 1
            }
            countedOffset = end
            return line
        }

        mutating func problem(_ message: String, at offset: Int) -> Problem {
            Problem(message: message, line: line(at: offset))
        }

        mutating func run() throws(Problem) -> XcodeModelElement {
            while true {
                let token: XMLByteScanner.Token
                do { token = try scanner.next() } catch {
                    throw problem("the XML cannot be read (\(error.reason)).", at: error.offset)
                }
                switch token {
                case .start(let name, let selfClosing):
                    try start(name)
                    if selfClosing { try end() }
                case .end(let name):
                    guard let open = stack.last else {
                        throw problem("</\(scanner.string(name))> closes no element.", at: scanner.tokenStart)
                    }
                    guard scanner.span(open.name, equals: name) else {
                        throw problem(
                            "</\(scanner.string(name))> does not close <\(scanner.string(open.name))>.", at: scanner.tokenStart)
                    }
                    try end()
                case .text(let span, _):
                    if stack.isEmpty, !scanner.isWhitespace(span) {
                        throw problem("text \(root == nil ? "before" : "after") the root element.", at: span.start)
                    }
                case .endOfInput:
                    if let open = stack.last {
                        throw problem("the file ends before </\(scanner.string(open.name))>.", at: scanner.bytes.count)
                    }
                    guard let root else { throw problem("there is no root element.", at: scanner.bytes.count) }
                    return root
                }
            }
        }

        mutating func string(_ span: XMLByteScanner.Span, _ kind: XMLByteScanner.ValueKind) throws(Problem) -> String {
            valueBuffer.removeAll(keepingCapacity: true)
            do { try scanner.decode(span, kind: kind, into: &valueBuffer) } catch {
                throw problem("the XML cannot be read (\(error.reason)).", at: error.offset)
            }
            // The whole file was checked to be UTF-8, and references expand to whole characters.
            return String(decoding: valueBuffer, as: UTF8.self)
        }

        mutating func start(_ name: XMLByteScanner.Span) throws(Problem) {
            let elementName = scanner.string(name)
            count += 1
            guard count <= limits.maximumElements else {
                throw problem("the file has more than \(limits.maximumElements) elements.", at: scanner.tokenStart)
            }
            guard stack.count < limits.maximumDepth else {
                throw problem("<\(elementName)> nests deeper than \(limits.maximumDepth) levels.", at: scanner.tokenStart)
            }
            guard root == nil || !stack.isEmpty else {
                throw problem("<\(elementName)> follows the root element.", at: scanner.tokenStart)
            }
            var attributes: [String: String] = [:]
            for index in 0..<scanner.attributeCount {
                let attribute = scanner.attribute(at: index)
                attributes[scanner.string(attribute.name)] = try string(attribute.value, attribute.kind)
            }
            let line = line(at: scanner.tokenStart)
            stack.append((name, XcodeModelElement(name: elementName, attributes: attributes, children: [], line: line)))
        }

        mutating func end() throws(Problem) {
            guard let (_, element) = stack.popLast() else { return }
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].element.children.append(element)
            }
        }
    }
}
