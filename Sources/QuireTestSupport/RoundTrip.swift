import Foundation
import Quire
import QuireCore
import QuireStores

/// One stop of a round trip: a container and a store type.
///
/// ```swift
/// let steps: [RoundTripStep] = [.init(.zipArchive, .xml), .init(.package, .binary), .init(.storeFile, .sqlite)]
/// ```
public struct RoundTripStep: Sendable, Hashable, CustomStringConvertible {
    /// The container the document is converted into.
    public var container: DocumentContents.Container
    /// The store type it is converted into.
    public var storeType: StoreType

    /// Creates a step.
    public init(_ container: DocumentContents.Container, _ storeType: StoreType) {
        self.container = container
        self.storeType = storeType
    }

    /// Every file store type (SQLite, XML, binary) in every container (store file, package, zip, tar).
    public static let all: [RoundTripStep] = [StoreType.sqlite, .xml, .binary].flatMap { type in
        DocumentContents.Container.allCases.map { RoundTripStep($0, type) }
    }

    /// The file name extension a converted document gets.
    var fileExtension: String {
        switch container {
        case .storeFile: return (try? StoreKinds.kind(for: storeType))?.fileExtensions.first ?? storeType.rawValue.lowercased()
        case .package: return "quiredoc"
        case .zipArchive: return "zip"
        case .tarArchive: return "tar"
        }
    }

    /// The container and store type, such as `zip archive (XML)`.
    public var description: String { "\(container.rawValue) (\(storeType))" }
}

/// A round trip that changed the graph: the steps taken so far and the differences from the original.
public struct RoundTripFailure: Error, CustomStringConvertible {
    /// The steps taken, the last one being where the graph changed.
    public var steps: [RoundTripStep]
    /// The differences between the original graph ("here") and the converted one ("there").
    public var differences: [String]

    /// Creates a failure.
    public init(steps: [RoundTripStep], differences: [String]) {
        self.steps = steps
        self.differences = differences
    }

    /// A readable account of where the graph changed and how.
    public var description: String {
        "The object graph changed after " + steps.map(\.description).joined(separator: " → ") + ":\n"
            + differences.map { "  " + $0 }.joined(separator: "\n")
    }
}

/// Takes a document or store through a list of store types and containers (each step converting the previous
/// result, as `quire convert` does) and compares the canonical dump after every step with the original's.
///
/// Use it in your own test suite, with Swift Testing or XCTest:
///
/// ```swift
/// import QuireTestSupport
/// import Testing
///
/// @Test func libraryRoundTrips() throws {
///     try assertRoundTrip(libraryURL, through: RoundTripStep.all)
/// }
/// ```
///
/// - Parameters:
///   - url: A store file, package or archive.
///   - steps: The conversions, in order.
///   - folder: Where the intermediate documents go (a new temporary folder, removed afterwards, by default).
/// - Throws: ``RoundTripFailure`` naming the step where the graph changed and the differences; ``QuireError``
///   when a document cannot be read or written.
public func assertRoundTrip(_ url: URL, through steps: [RoundTripStep] = RoundTripStep.all, in folder: URL? = nil) throws {
    let temporary = folder == nil ? try TemporaryFolder(prefix: "quire-round-trip") : nil
    defer { withExtendedLifetime(temporary) {} }
    guard let base = folder ?? temporary?.url else { return }
    let original = try canonicalDump(of: url)
    var current = url
    var taken: [RoundTripStep] = []
    for (index, step) in steps.enumerated() {
        taken.append(step)
        let next = base.appendingPathComponent("step\(index + 1).\(step.fileExtension)")
        let source = try DocumentContents(contentsOf: current)
        defer { source.close() }
        try source.convert(to: next, container: step.container, storeType: step.storeType)
        let differences = original.differences(from: try canonicalDump(of: next))
        if !differences.isEmpty { throw RoundTripFailure(steps: taken, differences: differences) }
        current = next
    }
}

/// The canonical dump of a document or store, whatever its container (what `quire dump` prints).
///
/// - Throws: ``QuireError`` when the document cannot be read.
public func canonicalDump(of url: URL) throws -> ObjectGraphDump {
    let contents = try DocumentContents(contentsOf: url)
    defer { contents.close() }
    return try ObjectGraphDump(storeAt: contents.storeURL, type: contents.storeType)
}

/// The differences between two documents' object graphs, one readable line each ("here" is `first`,
/// "there" `second`); empty when they hold the same graph (what `quire diff` reports).
///
/// - Throws: ``QuireError`` when a document cannot be read.
public func graphDifferences(between first: URL, and second: URL) throws -> [String] {
    try canonicalDump(of: first).differences(from: try canonicalDump(of: second))
}
