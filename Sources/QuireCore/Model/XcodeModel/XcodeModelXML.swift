import QuireSupport
import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

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

/// Reads an Xcode model's `contents` XML into a tree of ``XcodeModelElement``s, defensively: the input is
/// UTF-8, a document type declaration (and with it every entity declaration) is refused, external entities are
/// never resolved, and the size, nesting depth, element count and attribute lengths are bounded.
package enum XcodeModelXML {
    /// Bounds on what a `contents` file may hold; real models stay far below them.
    package struct Limits: Sendable {
        /// The largest file, in bytes.
        package var maximumSize = 16 * 1024 * 1024
        /// The deepest nesting of elements (real files nest five levels).
        package var maximumDepth = 32
        /// The most elements in the file.
        package var maximumElements = 500_000
        /// The longest attribute value, in UTF-8 bytes.
        package var maximumAttributeLength = 256 * 1024

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
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        let builder = TreeBuilder(limits: limits)
        parser.delegate = builder
        let parsed = parser.parse()
        if let problem = builder.problem {
            throw failure(problem.message, line: problem.line)
        }
        guard parsed, let root = builder.root else {
            let detail = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "it is not well-formed XML"
            throw failure("the XML cannot be read (\(detail)).", line: parser.lineNumber > 0 ? parser.lineNumber : nil)
        }
        return root
    }

    /// The SAX delegate that builds the tree and enforces the limits; used by one parse on one thread.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        struct Problem {
            package var message: String
            package var line: Int
        }

        let limits: Limits
        var stack: [XcodeModelElement] = []
        var root: XcodeModelElement?
        var count = 0
        var problem: Problem?

        init(limits: Limits) {
            self.limits = limits
        }

        private func stop(_ parser: XMLParser, _ message: String) {
            if problem == nil { problem = Problem(message: message, line: parser.lineNumber) }
            parser.abortParsing()
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes attributeDict: [String: String] = [:]
        ) {
            guard problem == nil else { return }
            count += 1
            guard count <= limits.maximumElements else {
                return stop(parser, "the file has more than \(limits.maximumElements) elements.")
            }
            guard stack.count < limits.maximumDepth else {
                return stop(parser, "<\(elementName)> nests deeper than \(limits.maximumDepth) levels.")
            }
            guard root == nil || !stack.isEmpty else {
                return stop(parser, "<\(elementName)> follows the root element.")
            }
            for (name, value) in attributeDict where value.utf8.count > limits.maximumAttributeLength {
                return stop(
                    parser,
                    "the attribute \(name) of <\(elementName)> is longer than \(limits.maximumAttributeLength) bytes.")
            }
            stack.append(
                XcodeModelElement(name: elementName, attributes: attributeDict, children: [], line: parser.lineNumber))
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard problem == nil, let element = stack.popLast() else { return }
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }

        func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
            stop(parser, "entity declarations are not allowed in a model file.")
        }

        func parser(
            _ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?
        ) {
            stop(parser, "entity declarations are not allowed in a model file.")
        }

        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
            stop(parser, "external entities are not allowed in a model file.")
            return nil
        }
    }
}
