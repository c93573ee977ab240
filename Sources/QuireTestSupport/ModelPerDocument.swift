import Foundation
import Quire
import QuireCore
import QuireStores

/// Documents opened the way a tool that has no application model opens them: the model read from each document
/// (or from the model file beside it), through one of the public ways to get a model, then a coordinator, the
/// store added read-only, every object and value read, the store removed (issue 33, item 1). What that leaves
/// behind per document is what `quire-bench`'s `documents-10k-own-models` and `quire-crash-worker model-memory`
/// (for `ModelLifetimeTests`) measure.
///
/// ```swift
/// let documents = try ModelPerDocument(folder: folder, entryPoint: .modelCache, compiledModel: cacheBlobURL)
/// for index in 0..<10_000 { _ = try documents.open(index) }
/// ```
public struct ModelPerDocument: Sendable {
    /// A public way to get a model.
    public enum EntryPoint: String, CaseIterable, Sendable {
        /// `ManagedObjectModel.embedded(inStoreAt:type:)` of an SQLite store.
        case embeddedSQLite = "embedded-sqlite"
        /// `ManagedObjectModel.embedded(inStoreAt:type:)` of an XML store.
        case embeddedXML = "embedded-xml"
        /// `ManagedObjectModel.embedded(inStoreAt:type:)` of a binary store.
        case embeddedBinary = "embedded-binary"
        /// `ManagedObjectModel.forStore(at:type:modelFile:)`.
        case forStore = "for-store"
        /// `ManagedObjectModel(contentsOf:)` of the canonical JSON form beside the store.
        case canonicalFile = "contents-of-json"
        /// `ManagedObjectModel(contentsOf:)` of an Xcode `.xcdatamodel` beside the store.
        case xcodeModel = "contents-of-xcdatamodel"
        /// `ManagedObjectModel(serializedRepresentation:)` of the canonical form beside the store.
        case serializedRepresentation = "serialized-representation"
        /// `ManagedObjectModel(compiledModelAt:)` of a `.mom` beside the store.
        case compiledModel = "compiled-model-at"
        /// `ManagedObjectModel(modelCache:)` of a `Z_MODELCACHE` blob beside the store.
        case modelCache = "model-cache"
        /// A `PersistentDocument` package opened with the model its store embeds.
        case persistentDocument = "persistent-document"

        /// Whether the documents read a compiled model (a `.mom`, or a model cache blob).
        public var needsCompiledModel: Bool { self == .compiledModel || self == .modelCache }
    }

    /// The entry point the documents are read through.
    public let entryPoint: EntryPoint
    /// The documents (stores, or packages for ``EntryPoint/persistentDocument``), each with its model file beside
    /// it where the entry point reads one.
    public let documents: [URL]
    /// The objects each document holds.
    public let objectsPerDocument: Int

    /// The document type of ``EntryPoint/persistentDocument``.
    static let documentType = DocumentType(
        name: "ModelPerDocument", mimeType: "application/x-quire-model-per-document", extensions: ["modeldoc"],
        format: .package, storeType: .sqlite)

    /// Writes `count` documents into `folder` for an entry point.
    ///
    /// - Parameters:
    ///   - folder: An empty folder.
    ///   - entryPoint: How each document's model is read.
    ///   - count: How many distinct documents (opening cycles through them).
    ///   - compiledModel: For ``EntryPoint/compiledModel`` a `.mom` file, for ``EntryPoint/modelCache`` a file
    ///     holding a `Z_MODELCACHE` blob, whose model the documents' stores are written with; when nil, the
    ///     documents' own model compiled by Quire (``ModelCacheEncoder``).
    public init(folder: URL, entryPoint: EntryPoint, count: Int = 10, compiledModel: URL? = nil) throws {
        self.entryPoint = entryPoint
        var model = Self.model()
        var modelBytes: Data?
        if entryPoint.needsCompiledModel {
            if let compiledModel {
                modelBytes = try Data(contentsOf: compiledModel)
                model = entryPoint == .modelCache
                    ? try ManagedObjectModel(modelCache: modelBytes ?? Data()) : try ManagedObjectModel(compiledModelAt: compiledModel)
            } else {
                // The documents' own model, compiled as Core Data compiles it (Quire writes it in every SQLite store).
                let archive = try ModelCacheEncoder.archive(model)
                modelBytes = entryPoint == .modelCache ? try RawDeflate.deflate(archive) : archive
            }
        }
        if entryPoint == .xcodeModel {
            // The stores are written with the model as the Xcode reader makes it.
            let modelFolder = folder.appendingPathComponent("Model.xcdatamodel")
            try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: true)
            try Data(Self.xcodeContents.utf8).write(to: modelFolder.appendingPathComponent("contents"))
            model = try ManagedObjectModel(contentsOf: modelFolder)
        }
        if entryPoint == .persistentDocument { DocumentTypeRegistry.shared.register(Self.documentType) }
        var documents: [URL] = []
        var objects = 0
        for index in 0..<count {
            let base = folder.appendingPathComponent("document-\(index)")
            switch entryPoint {
            case .persistentDocument:
                let url = base.appendingPathExtension("modeldoc")
                let document = try PersistentDocument(type: Self.documentType.name, model: Self.model())
                objects = try Self.fill(document.managedObjectContext, model: document.managedObjectModel)
                try document.save(to: url, ofType: Self.documentType.name, for: .saveAs)
                document.close()
                documents.append(url)
            default:
                let type: StoreType = entryPoint == .embeddedXML ? .xml : entryPoint == .embeddedBinary ? .binary : .sqlite
                let url = base.appendingPathExtension(try StoreKinds.kind(for: type).fileExtensions.first ?? type.rawValue.lowercased())
                // A model used by a coordinator is frozen: each document gets a fresh copy to write with.
                let writer = try ManagedObjectModel(serializedRepresentation: try model.serializedRepresentation())
                let coordinator = try PersistentStoreCoordinator(managedObjectModel: writer)
                let store = try coordinator.addPersistentStore(type: type, at: url)
                let context = ManagedObjectContext()
                context.persistentStoreCoordinator = coordinator
                objects = try Self.fill(context, model: writer)
                try coordinator.remove(store)
                switch entryPoint {
                case .canonicalFile, .serializedRepresentation:
                    try model.write(to: base.appendingPathExtension("json"))
                case .xcodeModel:
                    let folder = base.appendingPathExtension("xcdatamodel")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try Data(Self.xcodeContents.utf8).write(to: folder.appendingPathComponent("contents"))
                case .compiledModel:
                    try modelBytes?.write(to: base.appendingPathExtension("mom"))
                case .modelCache:
                    try modelBytes?.write(to: base.appendingPathExtension("modelcache"))
                default:
                    break
                }
                documents.append(url)
            }
        }
        self.documents = documents
        self.objectsPerDocument = objects
    }

    /// Opens document `index` (modulo the count) through the entry point, reads every object and value, and
    /// lets it go; returns the number of objects read.
    public func open(_ index: Int) throws -> Int {
        let url = documents[index % documents.count]
        let base = url.deletingPathExtension()
        let model: ManagedObjectModel
        switch entryPoint {
        case .embeddedSQLite: model = try .embedded(inStoreAt: url, type: .sqlite)
        case .embeddedXML: model = try .embedded(inStoreAt: url, type: .xml)
        case .embeddedBinary: model = try .embedded(inStoreAt: url, type: .binary)
        case .forStore: model = try ManagedObjectModel.forStore(at: url, type: .sqlite).model
        case .canonicalFile: model = try ManagedObjectModel(contentsOf: base.appendingPathExtension("json"))
        case .xcodeModel: model = try ManagedObjectModel(contentsOf: base.appendingPathExtension("xcdatamodel"))
        case .serializedRepresentation:
            model = try ManagedObjectModel(serializedRepresentation: Data(contentsOf: base.appendingPathExtension("json")))
        case .compiledModel: model = try ManagedObjectModel(compiledModelAt: base.appendingPathExtension("mom"))
        case .modelCache: model = try ManagedObjectModel(modelCache: Data(contentsOf: base.appendingPathExtension("modelcache")))
        case .persistentDocument:
            let contents = try DocumentContents(contentsOf: url)
            let embedded = try ManagedObjectModel.embedded(inStoreAt: contents.storeURL, type: contents.storeType)
            contents.close()
            let document = try PersistentDocument(contentsOf: url, ofType: Self.documentType.name, model: embedded)
            defer { document.close() }
            return try Self.readEverything(document.managedObjectContext, model: embedded)
        }
        let type: StoreType = entryPoint == .embeddedXML ? .xml : entryPoint == .embeddedBinary ? .binary : .sqlite
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var options = StoreOptions()
        options.isReadOnly = true
        let store = try coordinator.addPersistentStore(type: type, at: url, options: options)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return try Self.readEverything(context, model: model)
    }

    /// Fetches every object of every entity and reads every value, to-one destinations included.
    static func readEverything(_ context: ManagedObjectContext, model: ManagedObjectModel) throws -> Int {
        try context.performAndWait {
            var count = 0
            for entity in model.entities where entity.superentity == nil {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name)) {
                    for name in object.entity.propertiesByName.keys {
                        _ = object.value(forKey: name)
                    }
                    count += 1
                }
            }
            return count
        }
    }

    /// Inserts two objects of every concrete entity, every attribute set (a required one to a value of its
    /// type), every to-one linked to an object of its destination when there is one, and saves.
    static func fill(_ context: ManagedObjectContext, model: ManagedObjectModel) throws -> Int {
        try context.performAndWait {
            var made: [(EntityDescription, ManagedObject)] = []
            for entity in model.entities.sorted(by: { $0.name < $1.name }) where !entity.isAbstract {
                for copy in 0..<2 {
                    let object = ManagedObject(entity: entity, insertInto: context)
                    for attribute in entity.attributesByName.values.sorted(by: { $0.name < $1.name })
                    where !attribute.isTransient && attribute.derivationExpression == nil {
                        if let value = sample(attribute.attributeType, "\(entity.name)-\(attribute.name)-\(copy)") {
                            object.setValue(value, forKey: attribute.name)
                        }
                    }
                    made.append((entity, object))
                }
            }
            for (entity, object) in made {
                for relationship in entity.relationshipsByName.values where !relationship.isToMany {
                    if let destination = relationship.destinationEntity,
                        let target = made.first(where: { $0.0.isKind(of: destination) })?.1
                    {
                        object.setValue(target, forKey: relationship.name)
                    }
                }
            }
            try context.save()
            return made.count
        }
    }

    /// A value of an attribute type, distinct for each `seed`; nil for types left at their default.
    static func sample(_ type: AttributeType, _ seed: String) -> Any? {
        let number = Int64(truncatingIfNeeded: seed.utf8.reduce(5381) { ($0 &* 33) &+ Int($1) } & 0x7FFF)
        switch type {
        case .integer16: return Int16(number)
        case .integer32: return Int32(number)
        case .integer64: return number
        case .decimal: return Decimal(number)
        case .double: return Double(number) / 4
        case .float: return Float(number) / 4
        case .string: return seed
        case .boolean: return number % 2 == 0
        case .date: return Date(timeIntervalSinceReferenceDate: Double(number))
        case .binaryData: return Data(seed.utf8)
        case .uuid: return UUID()
        case .uri: return URL(string: "https://example.org/\(number)")
        case .transformable: return nil
        }
    }

    /// The documents' own model: `Owner` with a to-many `items`, `Item` with attributes of five types and a to-one
    /// `owner`.
    public static func model() -> ManagedObjectModel {
        let owner = EntityDescription(name: "Owner", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "items", destination: "Item", toMany: true, inverse: "owner"),
        ])
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "count", type: .integer64),
            AttributeDescription(name: "price", type: .double),
            AttributeDescription(name: "done", type: .boolean),
            AttributeDescription(name: "due", type: .date),
            RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
        ])
        return ManagedObjectModel(entities: [item, owner])
    }

    /// The same model as Xcode writes it.
    static let xcodeContents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Item" syncable="YES">
                <attribute name="count" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                <attribute name="done" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="due" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="price" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="items" inverseEntity="Owner"/>
            </entity>
            <entity name="Owner" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
            </entity>
        </model>
        """
}
