import Foundation
import Testing

/// Every Swift example in the DocC catalog's articles and in the README is compiled: it stands word for word in
/// `ArticleExamples` or `ArticleTestExamples`, which the test build compiles. This test finds the examples that
/// are not there (a new one, or one edited in the article only).
@Suite struct ArticleExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The ```swift blocks of a Markdown file, each as its lines.
    static func swiftBlocks(in url: URL) throws -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if let lines = current, trimmed == "```" {
                blocks.append(lines)
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Lines without their indentation and trailing spaces, blank lines dropped.
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test func everyArticleExampleIsCompiled() throws {
        let catalog = Self.root.appendingPathComponent("Sources/Quire/Quire.docc")
        var documents = [Self.root.appendingPathComponent("README.md")]
        let walker = try #require(FileManager.default.enumerator(at: catalog, includingPropertiesForKeys: nil))
        for case let url as URL in walker where url.pathExtension == "md" { documents.append(url) }
        #expect(documents.count > 10)

        let examples = Self.root.appendingPathComponent("Tests/QuireTests/DocExamples")
        var compiled: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: examples.path).sorted() where name.hasSuffix("Examples.swift") {
            compiled += Self.normalized(try String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8).components(separatedBy: "\n"))
        }
        let text = "\n" + compiled.joined(separator: "\n") + "\n"

        var count = 0
        for document in documents {
            for block in try Self.swiftBlocks(in: document) {
                count += 1
                // Paragraphs (split at blank lines) each stand together; imports go to the top of a file.
                var paragraph: [String] = []
                for line in block + [""] {
                    if line.trimmingCharacters(in: .whitespaces).isEmpty {
                        let lines = Self.normalized(paragraph).filter { !$0.hasPrefix("import ") }
                        paragraph = []
                        guard !lines.isEmpty else { continue }
                        #expect(
                            text.contains("\n" + lines.joined(separator: "\n") + "\n"),
                            "\(document.lastPathComponent): this example is not in Tests/QuireTests/DocExamples:\n\(lines.joined(separator: "\n"))")
                    } else {
                        paragraph.append(line)
                    }
                }
            }
        }
        #expect(count >= 20)
    }
}
