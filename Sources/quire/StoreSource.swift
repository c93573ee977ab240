import Foundation
import Quire
import QuirePostgres
import QuireCore
import QuireStores

/// What a command that reads a store was given: a document or store file (a path, or `-` for standard input),
/// or a PostgreSQL store (`postgresql://…?schema=name`).
final class StoreSource {
    /// The argument as messages show it (a PostgreSQL URL without its password; `-` as "standard input").
    let shown: String
    /// The store: a file, or the PostgreSQL URL.
    let storeURL: URL
    /// The store's type.
    let storeType: StoreType
    /// The opened document, nil for a PostgreSQL store.
    let contents: DocumentContents?
    /// A private copy of standard input, removed by ``close()``.
    private let spooled: URL?

    private init(shown: String, storeURL: URL, storeType: StoreType, contents: DocumentContents?, spooled: URL?) {
        self.shown = shown
        self.storeURL = storeURL
        self.storeType = storeType
        self.contents = contents
        self.spooled = spooled
    }

    deinit { close() }

    /// Opens what an argument names.
    ///
    /// - Throws: ``CommandFailure`` with the input status naming the argument.
    static func open(_ argument: String) throws -> StoreSource {
        if isDatabase(argument) {
            guard let url = URL(string: argument), url.host != nil || url.query?.contains("host=") == true || url.path.count > 1 else {
                throw CommandFailure(status: .usage, message: "'\(PostgresURL.redact(argument))' is not a PostgreSQL URL.")
            }
            return StoreSource(
                shown: PostgresURL.redact(argument), storeURL: url, storeType: .postgres, contents: nil, spooled: nil)
        }
        if argument == "-" {
            let spooled = try StandardStreams.spoolInput()
            do {
                let contents = try reading(spooled, shownAs: "standard input") { try DocumentContents(contentsOf: spooled) }
                return StoreSource(
                    shown: "standard input", storeURL: contents.storeURL, storeType: contents.storeType, contents: contents,
                    spooled: spooled)
            } catch {
                try? FileManager.default.removeItem(at: spooled.deletingLastPathComponent())
                throw error
            }
        }
        let contents = try openContents(argument)
        return StoreSource(shown: argument, storeURL: contents.storeURL, storeType: contents.storeType, contents: contents, spooled: nil)
    }

    /// Whether an argument names a PostgreSQL store rather than a file.
    static func isDatabase(_ argument: String) -> Bool {
        argument.hasPrefix("postgresql://") || argument.hasPrefix("postgres://")
    }

    /// The URL errors are reported against (the document, or the redacted database URL).
    var reportedURL: URL {
        if let contents { return contents.url }
        return PostgresURL.redactedURL(storeURL)
    }

    /// Runs `body`, reporting any error as an input failure of this source.
    func whileReading<T>(_ body: () throws -> T) throws -> T {
        try readingAs(reportedURL, shownAs: spooled != nil ? "standard input" : nil) { try naming(contents, body) }
    }

    /// The canonical dump of the store.
    func dump(model: ModelOption, includingValues: Bool = false) throws -> ObjectGraphDump {
        try whileReading {
            try ObjectGraphDump(storeAt: storeURL, type: storeType, modelFile: model.url, includingValues: includingValues)
        }
    }

    /// Closes the document and removes a copy of standard input. Safe to call twice.
    func close() {
        contents?.close()
        if let spooled { try? FileManager.default.removeItem(at: spooled.deletingLastPathComponent()) }
    }
}

/// `reading(_:_:)` under another name, for use inside ``StoreSource`` where `reading` is a method.
private func readingAs<T>(_ url: URL, shownAs: String?, _ body: () throws -> T) throws -> T {
    try reading(url, shownAs: shownAs, body)
}
