import Foundation
import QuireSupport

extension ManagedObjectModel {
    /// Reads a compiled model: a `.momd` folder (its current version, named by `VersionInfo.plist`, or the newest
    /// version when it names none), a `.mom` file, or an Xcode 3 `.xcdatamodel` folder holding a binary
    /// `elements` file. Compiled models are keyed archives of Core Data's classes (Xcode's own classes for
    /// `elements`); Quire reads them without Apple's frameworks.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(compiledModelAt: URL(fileURLWithPath: "Recipes.momd"))
    /// ```
    ///
    /// What the model says that Quire cannot represent yet (uniqueness constraints, compound fetch indexes,
    /// fetched properties, derived attributes) is listed in ``unsupportedFeatures``, never dropped silently.
    ///
    /// The model is an ordinary object, freed once nothing uses it (object IDs of it included); reading a
    /// model per document leaves nothing behind (see ``ManagedObjectModel``, "Lifetime").
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` for a model Quire cannot read, ``QuireError/Code/fileReadCorruptFile``
    ///   for a damaged archive, ``QuireError/Code/archiveLimitExceeded`` past the size limits, each naming the file.
    public convenience init(compiledModelAt url: URL) throws {
        try self.init(compiledModelAt: url, matchingStoreHashes: nil)
    }

    /// Reads a compiled model; of a `.momd` folder, the version whose entity hashes in `VersionInfo.plist` are
    /// `storeHashes` when one is, else the current version, else the newest (a `.momd` whose `VersionInfo.plist`
    /// names no current version, as CartKit's).
    package convenience init(compiledModelAt url: URL, matchingStoreHashes storeHashes: [String: Data]?) throws {
        if url.pathExtension == "mom", !SafeFileReader.isDirectory(url),
            let handle = FileHandle(forReadingAtPath: url.path)
        {
            // A .mom file is a keyed archive (a binary property list); anything else named .mom is not a model,
            // whatever else its bytes could be taken for.
            let head = (try? handle.read(upToCount: 8)) ?? Data()
            try? handle.close()
            guard BinaryPropertyList.hasBinaryHeader(head) else {
                throw QuireError(
                    .invalidModel,
                    "'\(url.path)' is not a compiled model: a .mom file is a binary property list, and this file is not one.",
                    context: .init(file: url))
            }
        }
        let compiled: CompiledModel
        do {
            compiled = try CompiledModelDecoder.decode(contentsOf: url, matchingStoreHashes: storeHashes)
        } catch let error as CompiledModelError {
            throw error.quireError(file: url)
        }
        self.init()
        try ManagedObjectModel.apply(compiled, to: self, file: url)
    }

    /// Reads the model a Core Data SQLite store carries in its `Z_MODELCACHE` table (raw DEFLATE of the
    /// compiled model), so a Mac store opens without the application's model.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(modelCache: blob)   // SELECT Z_CONTENT FROM Z_MODELCACHE
    /// ```
    ///
    /// - Parameters:
    ///   - data: The `Z_CONTENT` blob.
    ///   - file: The store it came from, named in errors.
    /// The model is an ordinary object, freed once nothing uses it (object IDs of it included); reading a
    /// model per document leaves nothing behind (see ``ManagedObjectModel``, "Lifetime").
    ///
    /// - Throws: As ``init(compiledModelAt:)``.
    public convenience init(modelCache data: Data, file: URL? = nil) throws {
        let compiled: CompiledModel
        do {
            compiled = try CompiledModelDecoder.decodeModelCache(data)
        } catch let error as CompiledModelError {
            throw error.quireError(file: file)
        }
        self.init()
        try ManagedObjectModel.apply(compiled, to: self, file: file)
    }

    /// Builds a model from a decoded compiled model through the canonical form, recording what it cannot keep.
    private static func apply(_ compiled: CompiledModel, to model: ManagedObjectModel, file: URL?) throws {
        var unsupported = compiled.warnings.map(\.description)
        let document = try ModelDocument(compiled: compiled, unsupported: &unsupported)
        // `apply` lists `unsupported` (the document's reader notes) and what the document keeps but Quire does not act on.
        do {
            try document.apply(to: model)
        } catch var error as QuireError {
            if let file {
                error.context.file = file
                error.message = "In '\(file.path)': " + error.message
            }
            throw error
        }
    }
}

extension CompiledModelError {
    /// The Quire error for a decoding failure, naming the file.
    func quireError(file: URL?) -> QuireError {
        let code: QuireError.Code
        switch self {
        case .unexpectedClass, .missingKey, .invalidValue, .invalidModelBundle: code = .invalidModel
        case .inflatedSizeLimitExceeded, .inputTooLarge, .limitExceeded: code = .archiveLimitExceeded
        case .fileError: code = .fileReadNoSuchFile
        default: code = .fileReadCorruptFile
        }
        let place = file.map { "The compiled model '\($0.path)'" } ?? "The compiled model"
        let reason = description.hasSuffix(".") ? String(description.dropLast()) : description
        return QuireError(code, "\(place) cannot be read: \(reason).", context: .init(file: file), underlying: self)
    }
}

extension ModelDocument {
    /// The canonical form of a decoded compiled model; what Quire cannot represent is appended to `unsupported`.
    init(compiled: CompiledModel, unsupported: inout [String]) throws {
        var entities: [Entity] = []
        for entity in compiled.entities {
            // Uniqueness constraints, fetch indexes, fetched properties and derivations are kept in the model; what
            // Quire does not act on is listed by `ModelDocument.unsupportedFeatures`, in the words the Xcode reader uses.
            var fetchIndexes = entity.fetchIndexes.map { index in
                FetchIndexDescription(
                    name: index.name,
                    elements: index.elements.map {
                        .init(propertyName: $0.propertyName, collationType: $0.type == 1 ? .rTree : .binary, isAscending: $0.ascending)
                    },
                    partialIndexPredicate: index.partialIndexPredicate)
            }
            // Compound indexes (models of Xcode 8 and before) become fetch indexes, as the Xcode reader makes
            // them and Core Data converts them; the SQLite store names them as the Core Data version of the store.
            // Later caches list each fetch index as a compound index too (CoreDataPlus's `SampleModel_V2`): those
            // are the fetch index already.
            for compound in entity.compoundIndexes where !compound.isEmpty
                && !fetchIndexes.contains(where: { $0.elements.map(\.propertyName) == compound }) {
                fetchIndexes.append(FetchIndexDescription(
                    name: "compoundIndex_" + compound.joined(separator: "_"), elements: compound.map { .init(propertyName: $0) }))
            }
            let fetchedProperties = entity.fetchedProperties.map { fetched in
                FetchedPropertyDescription(
                    name: fetched.name, destinationEntityName: fetched.fetchRequest.entityName,
                    predicateFormat: fetched.fetchRequest.predicate, isOptional: fetched.isOptional,
                    userInfo: fetched.userInfo.compactMapValues(\.userInfoString),
                    sortKeys: fetched.fetchRequest.sortDescriptors.isEmpty
                        ? nil
                        : fetched.fetchRequest.sortDescriptors.map {
                            FetchedPropertyDescription.Sort(keyPath: $0.key, ascending: $0.ascending, selector: $0.selector)
                        })
            }
            let indexed = Set(fetchIndexes.compactMap { $0.isSingleAscendingIndex ? $0.elements.first?.propertyName : nil })
            var attributes: [Attribute] = []
            for attribute in entity.attributes {
                if attribute.kind == .composite {
                    // The elements (`NSCompositeElements`) are not decoded yet: refuse rather than drop the columns.
                    throw QuireError(
                        .invalidModel,
                        "The compiled model's attribute '\(entity.name).\(attribute.name)' is a composite attribute; Quire reads "
                            + "composites from Xcode models and its own, not from compiled models yet.",
                        context: .init(entity: entity.name, key: attribute.name))
                }
                guard let type = AttributeType(compiledType: attribute.attributeType) else {
                    unsupported.append("\(entity.name).\(attribute.name): attribute type \(attribute.kind) is not supported; left out")
                    continue
                }
                var defaultValue: AttributeValue?
                if let value = attribute.defaultValue {
                    defaultValue = value.attributeValue(for: type)
                    if defaultValue == nil {
                        unsupported.append("\(entity.name).\(attribute.name): its default value (\(value.plainDescription)) is not kept")
                    }
                }
                attributes.append(Attribute(
                    name: attribute.name, type: type, optional: attribute.isOptional, transient: attribute.isTransient,
                    indexed: attribute.isIndexed || indexed.contains(attribute.name), defaultValue: defaultValue,
                    allowsExternalStorage: attribute.allowsExternalBinaryDataStorage,
                    indexedBySpotlight: attribute.isIndexedBySpotlight, storedInExternalRecord: attribute.isStoredInExternalRecord,
                    valueTransformerName: attribute.valueTransformerName,
                    minimum: attribute.minimumValue?.limitValue(for: type), maximum: attribute.maximumValue?.limitValue(for: type),
                    regularExpression: attribute.regularExpression, userInfo: attribute.userInfo.compactMapValues(\.userInfoString),
                    renamingIdentifier: attribute.renamingIdentifier == attribute.name ? nil : attribute.renamingIdentifier,
                    versionHashModifier: attribute.versionHashModifier,
                    validationPredicates: attribute.validationPredicates.isEmpty ? nil : attribute.validationPredicates,
                    validationWarnings: attribute.validationPredicates.isEmpty ? nil : attribute.validationWarnings,
                    preservesValueInHistoryOnDeletion: attribute.preservesValueInHistoryOnDeletion ? true : nil,
                    derivationExpression: attribute.isDerived ? (attribute.derivationExpression ?? "") : nil))
            }
            let relationships = entity.relationships.map { relationship in
                Relationship(
                    name: relationship.name, destination: relationship.destinationEntityName, inverse: relationship.inverseName,
                    toMany: relationship.isToMany, ordered: relationship.isOrdered,
                    deleteRule: DeleteRule(compiled: relationship.deleteRuleKind), minCount: relationship.minCount,
                    maxCount: relationship.normalizedMaxCount, optional: relationship.isOptional,
                    transient: relationship.isTransient, indexedBySpotlight: relationship.isIndexedBySpotlight,
                    userInfo: relationship.userInfo.compactMapValues(\.userInfoString),
                    renamingIdentifier: relationship.renamingIdentifier == relationship.name ? nil : relationship.renamingIdentifier,
                    versionHashModifier: relationship.versionHashModifier,
                    validationPredicates: relationship.validationPredicates.isEmpty ? nil : relationship.validationPredicates,
                    validationWarnings: relationship.validationPredicates.isEmpty ? nil : relationship.validationWarnings,
                    storedInExternalRecord: relationship.isStoredInExternalRecord ? true : nil)
            }
            entities.append(Entity(
                name: entity.name, className: entity.managedObjectClassName, abstract: entity.isAbstract,
                parent: entity.superentityName, attributes: attributes, relationships: relationships,
                userInfo: entity.userInfo.compactMapValues(\.userInfoString),
                renamingIdentifier: entity.renamingIdentifier == entity.name ? nil : entity.renamingIdentifier,
                versionHashModifier: entity.versionHashModifier,
                uniquenessConstraints: entity.uniquenessConstraints.isEmpty ? nil : entity.uniquenessConstraints,
                fetchIndexes: fetchIndexes.isEmpty ? nil : fetchIndexes,
                fetchedProperties: fetchedProperties.isEmpty ? nil : fetchedProperties))
        }
        var templates: [String: FetchRequestTemplate] = [:]
        for (name, request) in compiled.fetchRequestTemplates {
            var template = FetchRequestTemplate(entityName: request.entityName)
            if let format = request.predicate {
                do {
                    template.predicate = try QueryPredicate(format: format)
                } catch {
                    unsupported.append("fetch request template \(name): predicate '\(format)' cannot be read; left out")
                    continue
                }
            }
            template.sortDescriptors = request.sortDescriptors.map { descriptor in
                SortKey(
                    descriptor.key, ascending: descriptor.ascending,
                    comparator: descriptor.selector.flatMap(SortKey.Comparator.init(selectorName:)) ?? .compare)
            }
            template.fetchLimit = request.fetchLimit
            template.fetchOffset = request.fetchOffset
            template.fetchBatchSize = request.fetchBatchSize
            switch request.resultType {
            case 1: template.resultType = .managedObjectID
            case 2: template.resultType = .dictionary
            case 4: template.resultType = .count
            default: template.resultType = .managedObject
            }
            templates[name] = template
        }
        self.init(
            format: ModelDocument.currentFormat, entities: entities, configurations: compiled.configurations,
            versionIdentifiers: compiled.versionIdentifiers, localization: compiled.localizationDictionary,
            fetchRequestTemplates: templates.isEmpty ? nil : templates)
        readerNotes = unsupported.isEmpty ? nil : unsupported
    }
}

extension AttributeType {
    /// The type of a Core Data `NSAttributeType` value; nil for those Quire lacks (undefined, object ID, composite).
    init?(compiledType: Int) {
        guard let type = AttributeType.allCases.first(where: { $0.coreDataCode == compiledType }) else { return nil }
        self = type
    }
}

extension DeleteRule {
    /// The rule of a Core Data `NSDeleteRule` value (unknown values nullify, Core Data's default).
    init(compiled: DeleteRuleKind) {
        switch compiled {
        case .noAction: self = .noAction
        case .cascade: self = .cascade
        case .deny: self = .deny
        case .nullify, .unknown: self = .nullify
        }
    }
}

extension ModelValue {
    /// A minimum or maximum as the model keeps it: a length for strings, data and URIs (an integer, as the Xcode
    /// reader keeps `minValueString` of those), else a value of the type.
    func limitValue(for type: AttributeType) -> AttributeValue? {
        switch (self, type) {
        case (.integer(let length), .string), (.integer(let length), .binaryData), (.integer(let length), .transformable),
            (.integer(let length), .uri):
            return .integer(length)
        default:
            return attributeValue(for: type)
        }
    }

    /// The value as an attribute of a type holds it, or nil when it cannot be one (an archived object).
    func attributeValue(for type: AttributeType) -> AttributeValue? {
        switch (self, type) {
        case (.null, _): return nil
        case (.integer(let value), .integer16), (.integer(let value), .integer32), (.integer(let value), .integer64):
            return .integer(value)
        case (.boolean(let value), .integer16), (.boolean(let value), .integer32), (.boolean(let value), .integer64):
            return .integer(value ? 1 : 0)
        case (.real(let value), .integer16), (.real(let value), .integer32), (.real(let value), .integer64):
            return value.isFinite && value.rounded() == value && abs(value) < 9.2e18 ? .integer(Int64(value)) : nil
        case (.integer(let value), .boolean): return .boolean(value != 0)
        case (.real(let value), .boolean): return .boolean(value != 0)
        case (.boolean(let value), .boolean): return .boolean(value)
        case (.integer(let value), .double): return .double(Double(value))
        case (.real(let value), .double): return .double(value)
        case (.integer(let value), .float): return .float(Float(value))
        case (.real(let value), .float): return .float(Float(value))
        case (.decimal(let value), .decimal): return .decimal(value)
        case (.integer(let value), .decimal): return .decimal(Decimal(value))
        case (.real(let value), .decimal): return Decimal(string: "\(value)").map { .decimal($0) }
        case (.string(let value), .string): return .string(value)
        case (.date(let value), .date): return .date(value)
        case (.real(let value), .date): return .date(Date(timeIntervalSinceReferenceDate: value))
        case (.data(let value), .binaryData), (.data(let value), .transformable): return .data(value)
        case (.uuid(let value), .uuid): return .uuid(value)
        case (.string(let value), .uuid): return UUID(uuidString: value).map { .uuid($0) }
        case (.url(let value), .uri), (.string(let value), .uri): return URL(string: value).map { .uri($0) }
        default: return nil
        }
    }
}
