import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Access to the files under `Fixtures/` (see `Fixtures/SOURCES.md`).
enum CompiledModelFixtures {
    /// The stores whose model cache is a fixture (every corpus store that has a `Z_MODELCACHE`).
    static let modelCacheStores = [
        "SampleModel_V1", "SampleModel_V2", "SampleModel2_V1", "SampleModel2_V2", "SampleModel3_V1", "CartStorage_v1",
        "NoteStore-macOS-15-Seqoia", "XCServerCoreData_1.2.0", "XCServerCoreData_2.0.0_empty", "XCServerCoreData_2.0.1",
        "Moody", "Moody 2", "Moody 3",
    ]

    static func url(_ path: String) throws -> URL {
        guard let base = Bundle.module.resourceURL else { throw CompiledModelFixtureError.missing(path) }
        let url = base.appendingPathComponent("Fixtures/CoreData/CompiledModels").appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else { throw CompiledModelFixtureError.missing(path) }
        return url
    }

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: try url(path))
    }

    static func modelCache(_ store: String) throws -> Data {
        try data("ModelCache/\(store).modelcache")
    }

    static func schema(_ store: String) throws -> StoreSchema {
        try JSONDecoder().decode(StoreSchema.self, from: try data("Stores/\(store).schema.json"))
    }

    static func xcodeModel(_ name: String) throws -> XcodeContents {
        try XcodeContents(data: try data("Xcode/\(name).xcdatamodel.contents"))
    }
}

enum CompiledModelFixtureError: Error {
    case missing(String)
    case malformed(String)
}

/// What `Scripts/extract-fixtures.sh` read from a store with sqlite3.
struct StoreSchema: Decodable {
    struct Entity: Decodable {
        var ent: Int
        var name: String
        var `super`: Int
    }
    var entities: [Entity]
    var tables: [String: [String]]
    var versionHashes: [String: String]
    var versionIdentifiers: [String]

    /// Model entities (persistent-history entities are numbered from 16001).
    var modelEntities: [Entity] { entities.filter { $0.ent < 16000 } }
}

/// The parts of an Xcode `contents` file the comparisons need, read with `XMLParser`.
struct XcodeContents {
    struct Attribute: Equatable {
        var name: String
        var type: String
        var optional: Bool
        var transient: Bool
        var derived: Bool
    }
    struct Relationship: Equatable {
        var name: String
        var destination: String
        var inverse: String?
        var toMany: Bool
        var ordered: Bool
        var optional: Bool
        var deletionRule: String
    }
    struct Entity {
        var name: String
        var parent: String?
        var abstract: Bool
        var className: String?
        var elementID: String?
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        var fetchedProperties: [String] = []
        var uniquenessConstraints: [[String]] = []
        var fetchIndexes: [String: [String]] = [:]
    }
    var entities: [Entity] = []
    var versionIdentifier: String?

    init(data: Data) throws {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else { throw CompiledModelFixtureError.malformed("contents") }
        entities = delegate.entities
        versionIdentifier = delegate.versionIdentifier
    }

    func entity(_ name: String) -> Entity? { entities.first { $0.name == name } }

    private final class Delegate: NSObject, XMLParserDelegate {
        var entities: [Entity] = []
        var versionIdentifier: String?
        var constraint: [String]?
        var index: (String, [String])?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes a: [String: String] = [:]) {
            switch name {
            case "model":
                versionIdentifier = a["userDefinedModelVersionIdentifier"]
            case "entity":
                entities.append(Entity(name: a["name"] ?? "", parent: a["parentEntity"], abstract: a["isAbstract"] == "YES", className: a["representedClassName"], elementID: a["elementID"]))
            case "attribute" where !entities.isEmpty:
                entities[entities.count - 1].attributes.append(Attribute(
                    name: a["name"] ?? "", type: a["attributeType"] ?? "", optional: a["optional"] == "YES",
                    transient: a["transient"] == "YES", derived: a["derived"] == "YES"))
            case "relationship" where !entities.isEmpty:
                entities[entities.count - 1].relationships.append(Relationship(
                    name: a["name"] ?? "", destination: a["destinationEntity"] ?? "", inverse: a["inverseName"],
                    toMany: a["toMany"] == "YES", ordered: a["ordered"] == "YES", optional: a["optional"] == "YES",
                    deletionRule: a["deletionRule"] ?? "Nullify"))
            case "fetchedProperty" where !entities.isEmpty:
                entities[entities.count - 1].fetchedProperties.append(a["name"] ?? "")
            case "uniquenessConstraint":
                constraint = []
            case "constraint":
                constraint?.append(a["value"] ?? "")
            case "fetchIndex":
                index = (a["name"] ?? "", [])
            case "fetchIndexElement":
                index?.1.append(a["property"] ?? "")
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch name {
            case "uniquenessConstraint":
                if let constraint, !entities.isEmpty { entities[entities.count - 1].uniquenessConstraints.append(constraint) }
                constraint = nil
            case "fetchIndex":
                if let index, !entities.isEmpty { entities[entities.count - 1].fetchIndexes[index.0] = index.1 }
                index = nil
            default:
                break
            }
        }
    }
}

/// Xcode's attribute type names by Core Data's numbers.
let xcodeTypeNames: [Int: String] = [
    0: "Undefined", 100: "Integer 16", 200: "Integer 32", 300: "Integer 64", 400: "Decimal", 500: "Double", 600: "Float",
    700: "String", 800: "Boolean", 900: "Date", 1000: "Binary", 1100: "UUID", 1200: "URI", 1800: "Transformable",
    2000: "ObjectID",
]
