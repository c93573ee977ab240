import QuireSupport
import Foundation

extension ManagedObjectModel {
    /// The model's canonical serialized form: JSON with sorted keys, the same bytes for the same model on
    /// every machine. Every store embeds it, so any tool can open a store without the application's code.
    public func serializedRepresentation() throws -> Data {
        let document = ModelDocument(model: self)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try encoder.encode(document)
    }

    /// Reads a model from its canonical serialized form.
    ///
    /// The model is an ordinary object, freed once nothing uses it (object IDs of it included); reading a
    /// model per document leaves nothing behind (see ``ManagedObjectModel``, "Lifetime").
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` naming what is malformed.
    public convenience init(serializedRepresentation data: Data) throws {
        let document: ModelDocument
        do {
            document = try JSONDecoder().decode(ModelDocument.self, from: data)
        } catch {
            throw QuireError(.invalidModel, "The model data is malformed: \(ModelDocument.describe(error))")
        }
        guard document.format == ModelDocument.currentFormat else {
            throw QuireError(.invalidModel, "The model data has format \(document.format); this version reads \(ModelDocument.currentFormat).")
        }
        self.init()
        try document.apply(to: self)
    }

    /// Reads a model file: one written by ``write(to:)``, an Xcode `.xcdatamodel` folder (Xcode 3's binary
    /// `elements` ones too), a compiled `.mom` or `.momd` (see ``init(compiledModelAt:)``), or the current version
    /// of an Xcode `.xcdatamodeld` bundle (see ``ModelBundle`` for every version), with the localization of the
    /// strings files beside it (`<name>Model.strings`, then `<name>.strings`; see ``loadLocalization(contentsOf:)``).
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Journal.xcdatamodeld"))
    /// ```
    ///
    /// The model is an ordinary object, freed once nothing uses it (object IDs of it included); reading a
    /// model per document leaves nothing behind (see ``ManagedObjectModel``, "Lifetime").
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` or ``QuireError/Code/invalidModel`` naming the file (and
    ///   for Xcode models the element and line) that is malformed; a malformed strings file beside it,
    ///   ``QuireError/Code/fileReadCorruptFile``.
    public convenience init(contentsOf url: URL) throws {
        if ["mom", "momd"].contains(url.pathExtension) {
            try self.init(compiledModelAt: url)
            return
        }
        if let document = try XcodeModelReader.documentIfXcodeModel(at: url) {
            self.init()
            try ManagedObjectModel.apply(document, to: self, file: url)
            if case .bundle = XcodeModelReader.kind(of: url) { versionBundleURL = url }
            try loadLocalizations(besideModelAt: url)
            return
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw QuireError(.fileReadNoSuchFile, "The model file '\(url.path)' cannot be read.", context: .init(file: url))
        }
        // Quire's model files are JSON objects; anything else is not a model of any kind Quire reads, and saying
        // so beats a JSON parser's complaint.
        guard data.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") else {
            throw QuireError(
                .invalidModel,
                "'\(url.path)' is not a model file: Quire reads Xcode models (.xcdatamodeld, .xcdatamodel), compiled "
                    + "models (.mom, .momd) and the JSON model files it writes.",
                context: .init(file: url))
        }
        // JSON of something else (no model's `format` and `entities` at the top) is not a model either.
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["format"] == nil || object["entities"] == nil
        {
            throw QuireError(
                .invalidModel,
                "'\(url.path)' is not a model file: it is JSON, but not a model Quire wrote (it has no "
                    + "\(object["format"] == nil ? "'format'" : "'entities'")).",
                context: .init(file: url))
        }
        do {
            try self.init(serializedRepresentation: data)
        } catch var error as QuireError {
            error.context.file = url
            error.message = "In '\(url.path)': " + error.message
            throw error
        }
        try loadLocalizations(besideModelAt: url)
    }

    /// Writes the canonical form to a file.
    public func write(to url: URL) throws {
        try serializedRepresentation().write(to: url, options: .atomic)
    }
}

/// The Codable shape of a model file.
package struct ModelDocument: Codable {
    static let currentFormat = 1

    package struct Attribute: Codable {
        package var name: String
        package var type: AttributeType
        package var optional: Bool
        package var transient: Bool
        package var indexed: Bool
        package var defaultValue: AttributeValue?
        var allowsExternalStorage: Bool
        var indexedBySpotlight: Bool
        var storedInExternalRecord: Bool
        package var valueTransformerName: String?
        package var minimum: AttributeValue?
        package var maximum: AttributeValue?
        package var regularExpression: String?
        package var userInfo: [String: String]
        package var renamingIdentifier: String?
        package var versionHashModifier: String?
        /// Validation predicates as format strings, and their warnings; absent when there are none.
        package var validationPredicates: [String]?
        package var validationWarnings: [String]?
        /// `preservesValueInHistoryOnDeletion`; absent when false.
        package var preservesValueInHistoryOnDeletion: Bool? = nil
        /// The derivation expression of a derived attribute; absent for ordinary ones.
        package var derivationExpression: String? = nil
    }

    package struct Relationship: Codable {
        package var name: String
        package var destination: String
        package var inverse: String?
        package var toMany: Bool
        package var ordered: Bool
        package var deleteRule: DeleteRule
        package var minCount: Int
        package var maxCount: Int
        package var optional: Bool
        package var transient: Bool
        var indexedBySpotlight: Bool
        package var userInfo: [String: String]
        package var renamingIdentifier: String?
        package var versionHashModifier: String?
        package var validationPredicates: [String]?
        package var validationWarnings: [String]?
        /// `isStoredInExternalRecord` ("Store in External Record File"); absent when false.
        var storedInExternalRecord: Bool? = nil
    }

    package struct Entity: Codable {
        package var name: String
        package var className: String?
        package var abstract: Bool
        package var parent: String?
        package var attributes: [Attribute]
        package var relationships: [Relationship]
        package var userInfo: [String: String]
        package var renamingIdentifier: String?
        package var versionHashModifier: String?
        /// The uniqueness constraints; absent when there are none.
        package var uniquenessConstraints: [[String]]? = nil
        /// The fetch indexes; absent when there are none.
        package var fetchIndexes: [FetchIndexDescription]? = nil
        /// The fetched properties; absent when there are none.
        package var fetchedProperties: [FetchedPropertyDescription]? = nil
        /// The entity's composite attributes (absent from documents written before 2026-11).
        package var composites: [Composite]? = nil
    }

    package var format: Int
    package var entities: [Entity]
    package var configurations: [String: [String]]
    package var versionIdentifiers: [String]
    package var localization: [String: String]
    /// The fetch request templates by name; absent when there are none.
    package var fetchRequestTemplates: [String: FetchRequestTemplate]?
    /// What the reader of another format (a compiled model) could not keep, one sentence each; listed in
    /// ``ManagedObjectModel/unsupportedFeatures`` before what the document keeps but Quire does not act on.
    /// Never written by ``init(model:)``.
    var readerNotes: [String]? = nil

    package init(model: ManagedObjectModel) {
        format = Self.currentFormat
        fetchRequestTemplates = model.fetchRequestTemplatesByName.isEmpty ? nil : model.fetchRequestTemplatesByName
        configurations = model.configurations
        versionIdentifiers = model.versionIdentifiers.sorted()
        localization = model.localizationDictionary
        entities = model.entities.sorted { $0.name < $1.name }.map { entity in
            Entity(
                name: entity.name,
                className: entity.managedObjectClassName,
                abstract: entity.isAbstract,
                parent: entity.superentity?.name,
                attributes: entity.properties.compactMap { $0 as? AttributeDescription }.map(Attribute.init(_:)),
                relationships: entity.properties.compactMap { $0 as? RelationshipDescription }.map { r in
                    Relationship(
                        name: r.name, destination: r.destinationEntityName, inverse: r.inverseRelationshipName,
                        toMany: r.isToMany, ordered: r.isOrdered, deleteRule: r.deleteRule, minCount: r.minCount,
                        maxCount: r.maxCount, optional: r.isOptional, transient: r.isTransient,
                        indexedBySpotlight: r.isIndexedBySpotlight, userInfo: r.userInfo,
                        renamingIdentifier: r.renamingIdentifier, versionHashModifier: r.versionHashModifier,
                        validationPredicates: Self.formats(r.validationPredicates),
                        validationWarnings: r.validationPredicates.isEmpty ? nil : r.validationWarnings,
                        storedInExternalRecord: r.isStoredInExternalRecord ? true : nil)
                },
                userInfo: entity.userInfo,
                renamingIdentifier: entity.renamingIdentifier,
                versionHashModifier: entity.versionHashModifier,
                uniquenessConstraints: entity.uniquenessConstraints.isEmpty ? nil : entity.uniquenessConstraints,
                fetchIndexes: entity.fetchIndexes.isEmpty ? nil : entity.fetchIndexes,
                fetchedProperties: entity.fetchedProperties.isEmpty ? nil : entity.fetchedProperties,
                composites: Composite.list(entity.properties))
        }
    }

    package func apply(to model: ManagedObjectModel) throws {
        var built: [String: EntityDescription] = [:]
        for e in entities {
            guard built[e.name] == nil else {
                throw QuireError(.invalidModel, "The model data lists entity '\(e.name)' twice.", context: .init(entity: e.name))
            }
            let entity = EntityDescription(name: e.name)
            entity.managedObjectClassName = e.className
            entity.isAbstract = e.abstract
            entity.userInfo = e.userInfo
            entity.renamingIdentifier = e.renamingIdentifier
            entity.versionHashModifier = e.versionHashModifier
            entity.uniquenessConstraints = e.uniquenessConstraints ?? []
            entity.fetchIndexes = e.fetchIndexes ?? []
            entity.fetchedProperties = e.fetchedProperties ?? []
            var properties: [PropertyDescription] = []
            for a in e.attributes { properties.append(try a.makeDescription(entity: e.name)) }
            for r in e.relationships {
                let relationship = RelationshipDescription(
                    name: r.name, destination: r.destination, toMany: r.toMany, isOrdered: r.ordered, inverse: r.inverse,
                    deleteRule: r.deleteRule)
                relationship.minCount = r.minCount
                relationship.maxCount = r.maxCount
                relationship.isOptional = r.optional
                relationship.isTransient = r.transient
                relationship.isIndexedBySpotlight = r.indexedBySpotlight
                relationship.isStoredInExternalRecord = r.storedInExternalRecord ?? false
                relationship.userInfo = r.userInfo
                relationship.renamingIdentifier = r.renamingIdentifier
                relationship.versionHashModifier = r.versionHashModifier
                try Self.applyValidation(r.validationPredicates, r.validationWarnings, to: relationship, entity: e.name)
                properties.append(relationship)
            }
            for composite in e.composites ?? [] { properties.append(try composite.makeDescription(entity: e.name)) }
            entity.properties = properties
            built[e.name] = entity
        }
        for e in entities {
            guard let parentName = e.parent else { continue }
            guard let parent = built[parentName], let child = built[e.name] else {
                throw QuireError(
                    .invalidModel, "Entity '\(e.name)' names the parent '\(parentName)', which the model does not have.",
                    context: .init(entity: e.name))
            }
            parent.subentities.append(child)
        }
        // A parent chain longer than the number of entities loops back on itself.
        for entity in built.values {
            var current = entity.superentity
            var steps = 0
            while let next = current {
                steps += 1
                guard steps <= built.count else {
                    throw QuireError(
                        .invalidModel, "Entity '\(entity.name)' is its own ancestor (its parents form a loop).",
                        context: .init(entity: entity.name))
                }
                current = next.superentity
            }
        }
        model.entities = entities.compactMap { built[$0.name] }
        for (name, members) in configurations {
            model.setEntities(members.compactMap { built[$0] }, forConfigurationName: name)
        }
        model.versionIdentifiers = Set(versionIdentifiers)
        model.localizationDictionary = localization
        for (name, template) in fetchRequestTemplates ?? [:] {
            model.setFetchRequestTemplate(template, forName: name)
        }
        model.unsupportedFeatures = (readerNotes ?? []) + unsupportedFeatures
    }

    private static func formats(_ predicates: [QueryPredicate]) -> [String]? {
        predicates.isEmpty ? nil : predicates.map(\.predicateFormat)
    }

    /// Parses a property's validation predicates and pairs them with their warnings.
    static func applyValidation(
        _ formats: [String]?, _ warnings: [String]?, to property: PropertyDescription, entity: String
    ) throws {
        guard let formats, !formats.isEmpty else { return }
        let warnings = warnings ?? []
        guard warnings.count == formats.count else {
            throw QuireError(
                .invalidModel,
                "'\(entity).\(property.name)' has \(formats.count) validation predicates but \(warnings.count) warnings.",
                context: .init(entity: entity, key: property.name))
        }
        var predicates: [QueryPredicate] = []
        for format in formats {
            do {
                predicates.append(try QueryPredicate(format: format))
            } catch let error as QuireError {
                throw QuireError(
                    .invalidModel,
                    "The validation predicate \"\(format)\" of '\(entity).\(property.name)' does not parse: \(error.message)",
                    context: .init(entity: entity, key: property.name), underlying: error)
            }
        }
        property.setValidationPredicates(predicates, withValidationWarnings: warnings)
    }

    package static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing '\(key.stringValue)' at \(path(context.codingPath))."
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(context.debugDescription) at \(path(context.codingPath))."
        case DecodingError.dataCorrupted(let context):
            return "\(context.debugDescription) at \(path(context.codingPath))."
        default:
            return "\(error)"
        }
    }

    private static func path(_ codingPath: [CodingKey]) -> String {
        codingPath.isEmpty ? "the top level" : codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

extension AttributeValue: Codable {
    private enum CodingKeys: String, CodingKey { case type, value }

    /// Decodes `{"type": "integer", "value": 42}` and the like.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "null": self = .null
        case "integer": self = .integer(try container.decode(Int64.self, forKey: .value))
        case "double": self = .double(try container.decode(Double.self, forKey: .value))
        case "float": self = .float(try container.decode(Float.self, forKey: .value))
        case "decimal":
            let text = try container.decode(String.self, forKey: .value)
            guard let decimal = Decimal(string: text) else {
                throw DecodingError.dataCorruptedError(forKey: .value, in: container, debugDescription: "'\(text)' is not a decimal")
            }
            self = .decimal(decimal)
        case "string": self = .string(try container.decode(String.self, forKey: .value))
        case "boolean": self = .boolean(try container.decode(Bool.self, forKey: .value))
        case "date": self = .date(Date(timeIntervalSinceReferenceDate: try container.decode(Double.self, forKey: .value)))
        case "data":
            let text = try container.decode(String.self, forKey: .value)
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorruptedError(forKey: .value, in: container, debugDescription: "invalid base64")
            }
            self = .data(data)
        case "uuid":
            let text = try container.decode(String.self, forKey: .value)
            guard let uuid = UUID(uuidString: text) else {
                throw DecodingError.dataCorruptedError(forKey: .value, in: container, debugDescription: "'\(text)' is not a UUID")
            }
            self = .uuid(uuid)
        case "externalData":
            let text = try container.decode(String.self, forKey: .value)
            guard ExternalDataReference.isValidName(text) else {
                throw DecodingError.dataCorruptedError(forKey: .value, in: container, debugDescription: "'\(text)' is not a UUID")
            }
            self = .externalData(ExternalDataReference(uuid: text, length: nil))
        case "uri":
            let text = try container.decode(String.self, forKey: .value)
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorruptedError(forKey: .value, in: container, debugDescription: "'\(text)' is not a URI")
            }
            self = .uri(url)
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown value type '\(type)'")
        }
    }

    /// Encodes as `{"type": …, "value": …}`.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .null: try container.encode("null", forKey: .type)
        case .integer(let v): try container.encode("integer", forKey: .type); try container.encode(v, forKey: .value)
        case .double(let v): try container.encode("double", forKey: .type); try container.encode(v, forKey: .value)
        case .float(let v): try container.encode("float", forKey: .type); try container.encode(v, forKey: .value)
        case .decimal(let v): try container.encode("decimal", forKey: .type); try container.encode("\(v)", forKey: .value)
        case .string(let v): try container.encode("string", forKey: .type); try container.encode(v, forKey: .value)
        case .boolean(let v): try container.encode("boolean", forKey: .type); try container.encode(v, forKey: .value)
        case .date(let v):
            try container.encode("date", forKey: .type)
            try container.encode(v.timeIntervalSinceReferenceDate, forKey: .value)
        case .data(let v): try container.encode("data", forKey: .type); try container.encode(v.base64EncodedString(), forKey: .value)
        case .uuid(let v): try container.encode("uuid", forKey: .type); try container.encode(v.uuidString, forKey: .value)
        case .uri(let v): try container.encode("uri", forKey: .type); try container.encode(v.absoluteString, forKey: .value)
        case .externalData(let v):
            try container.encode("externalData", forKey: .type)
            try container.encode(v.uuid, forKey: .value)
        }
    }
}
