import Foundation
import Quire
// The encoder and the raw archive have no public face: stores write the encoder's output (Z_MODELCACHE).
import QuireCore
import Testing

/// The caches Quire writes have the shape of those Core Data wrote (issue 27, item 6): each model cache of the
/// corpus, read by Quire and written again, compared object by object with Core Data's own archive — the keys
/// of the model, of `NSEntities`, of each entity and of each property, the classes, `_P` and the other flags, the
/// references between entities, properties and inverses.
extension ModelCacheWriterTests {
    /// A keyed archive read as raw objects (no decoding), to compare two archives' shapes.
    struct RawArchive {
        let archive: KeyedArchive

        init(_ data: Data) throws { archive = try KeyedArchive(data: data) }

        func fields(_ uid: UInt64) throws -> [String: PropertyListNode] {
            try archive.node(at: uid).dictionaryValue ?? [:]
        }

        func className(_ uid: UInt64) throws -> String? { try archive.classInfo(of: uid)?.name }

        /// The reference a field holds (nil for `$null`, an absent key or an inline value).
        func reference(_ key: String, of uid: UInt64) throws -> UInt64? {
            guard let target = try fields(uid)[key]?.uidValue, target != 0 else { return nil }
            return target
        }

        /// A string object (a plain string or an `NSMutableString`).
        func string(_ uid: UInt64) throws -> String? {
            let node = try archive.node(at: uid)
            if let text = node.stringValue { return text }
            return try fields(uid)["NS.string"]?.stringValue
        }

        func string(_ key: String, of uid: UInt64) throws -> String? {
            try reference(key, of: uid).flatMap(string)
        }

        /// The members of an `NSArray` / `NSSet` object.
        func members(_ uid: UInt64) throws -> [UInt64] {
            try (fields(uid)["NS.objects"]?.arrayValue ?? []).compactMap(\.uidValue)
        }

        /// The entries of an `NSDictionary` object, by key.
        func entries(_ uid: UInt64) throws -> [String: UInt64] {
            let fields = try fields(uid)
            let keys = try (fields["NS.keys"]?.arrayValue ?? []).compactMap { try $0.uidValue.flatMap(string) }
            let values = (fields["NS.objects"]?.arrayValue ?? []).compactMap(\.uidValue)
            return Dictionary(zip(keys, values), uniquingKeysWith: { first, _ in first })
        }

        var root: UInt64 { get throws { try archive.rootUID() } }

        /// `NSEntities` (an `NSKnownKeysDictionary1`): its keys in order and its entities by name.
        func entities() throws -> (keys: [String], byName: [String: UInt64]) {
            guard let dictionary = try reference("NSEntities", of: try root), let mapping = try reference("searchMapping", of: dictionary),
                let keys = try reference("keys", of: mapping), let values = try reference("values", of: dictionary)
            else { return ([], [:]) }
            let names = try members(keys).compactMap(string)
            return (names, Dictionary(zip(names, try members(values)), uniquingKeysWith: { first, _ in first }))
        }

        /// An object's keys, without `$class`.
        func keys(_ uid: UInt64) throws -> Set<String> { Set(try fields(uid).keys).subtracting(["$class"]) }

        /// A field compared by value: a scalar as is, a reference as the string it names (or `$null`).
        func comparable(_ key: String, of uid: UInt64) throws -> String {
            switch try fields(uid)[key] {
            case nil: return "absent"
            case .uid(let target)?:
                if target == 0 { return "$null" }
                if let text = try string(target) { return "'\(text)'" }
                return "an object of class \(try className(target) ?? "?")"
            case let node?: return "\(node)"
            }
        }
    }

    /// The first differences between Quire's archive and Core Data's, as lines.
    static func shapeDifferences(written: RawArchive, coreData: RawArchive) throws -> [String] {
        var differences: [String] = []
        let (root, theirRoot) = (try written.root, try coreData.root)
        if try written.keys(root) != coreData.keys(theirRoot) {
            differences.append("model keys \(try written.keys(root).sorted()) instead of \(try coreData.keys(theirRoot).sorted())")
        }
        let (mine, theirs) = (try written.entities(), try coreData.entities())
        if mine.keys != theirs.keys { differences.append("NSEntities keys \(mine.keys) instead of \(theirs.keys)") }
        for name in theirs.keys {
            guard let entity = mine.byName[name], let theirEntity = theirs.byName[name] else { continue }
            if try written.className(entity) != coreData.className(theirEntity) { differences.append("\(name): class") }
            if try written.keys(entity) != coreData.keys(theirEntity) {
                differences.append("\(name): keys \(try written.keys(entity).sorted()) instead of \(try coreData.keys(theirEntity).sorted())")
            }
            for key in ["NSEntityName", "NSClassNameForEntity", "NSRenamingIdentifier", "NSVersionHashModifier", "NSIsAbstract"] {
                let (a, b) = (try written.comparable(key, of: entity), try coreData.comparable(key, of: theirEntity))
                if a != b { differences.append("\(name).\(key): \(a) instead of \(b)") }
            }
            for key in ["NSSuperentity", "NSManagedObjectModel"] {
                let a = try written.reference(key, of: entity).map { try written.string("NSEntityName", of: $0) ?? "the model" }
                let b = try coreData.reference(key, of: theirEntity).map { try coreData.string("NSEntityName", of: $0) ?? "the model" }
                if a != b { differences.append("\(name).\(key): \(a ?? "$null") instead of \(b ?? "$null")") }
            }
            let (subentities, theirSubentities) = (
                try written.reference("NSSubentities", of: entity).map(written.entries),
                try coreData.reference("NSSubentities", of: theirEntity).map(coreData.entries)
            )
            // No sub-entities: older Core Data writes `$null` (XCServerCoreData's caches), newer an empty dictionary
            // (CartKit's, Notes 15's), as Quire does.
            if Set(subentities?.keys ?? [:].keys) != Set(theirSubentities?.keys ?? [:].keys) {
                differences.append("\(name): sub-entities \(subentities?.keys.sorted() ?? []) instead of \(theirSubentities?.keys.sorted() ?? [])")
            }
            if let tuples = try coreData.reference("NSUniqueTuples", of: theirEntity) {
                let theirTuples = try coreData.members(tuples).map { try coreData.members($0).compactMap(coreData.string) }
                let myTuples = try written.reference("NSUniqueTuples", of: entity).map {
                    try written.members($0).map { try written.members($0).compactMap(written.string) }
                }
                if myTuples != theirTuples { differences.append("\(name).NSUniqueTuples: \(myTuples ?? []) instead of \(theirTuples)") }
            }
            guard let properties = try written.reference("NSProperties", of: entity).map(written.entries),
                let theirProperties = try coreData.reference("NSProperties", of: theirEntity).map(coreData.entries)
            else {
                differences.append("\(name): NSProperties missing")
                continue
            }
            if Set(properties.keys) != Set(theirProperties.keys) {
                differences.append("\(name): properties \(properties.keys.sorted()) instead of \(theirProperties.keys.sorted())")
            }
            for (property, theirProperty) in theirProperties.sorted(by: { $0.key < $1.key }) {
                guard let uid = properties[property] else { continue }
                let label = "\(name).\(property)"
                if try written.className(uid) != coreData.className(theirProperty) {
                    differences.append("\(label): class \(try written.className(uid) ?? "?") instead of \(try coreData.className(theirProperty) ?? "?")")
                }
                if try written.keys(uid) != coreData.keys(theirProperty) {
                    differences.append("\(label): keys \(try written.keys(uid).sorted()) instead of \(try coreData.keys(theirProperty).sorted())")
                }
                for key in [
                    "_P", "NSFlagsKey", "NSAttributeType", "NSAttributeValueClassName", "NSValueTransformerName", "NSIsOptional",
                    "NSIsTransient", "NSIsIndexed", "NSPropertyName", "NSRenamingIdentifier", "NSVersionHashModifier", "NSDeleteRule",
                    "NSMinCount", "NSMaxCount", "_NSDestinationEntityName", "_NSInverseRelationshipName", "NSIsOrdered",
                ] {
                    let (a, b) = (try written.comparable(key, of: uid), try coreData.comparable(key, of: theirProperty))
                    if a != b { differences.append("\(label).\(key): \(a) instead of \(b)") }
                }
                // The property's entity is the entity listing it (inherited ones are copies), its destination the
                // named entity, its inverse the destination's own copy of the inverse.
                if try written.reference("NSEntity", of: uid) != entity { differences.append("\(label): NSEntity is not \(name)") }
                if try coreData.reference("NSEntity", of: theirProperty) != theirEntity {
                    differences.append("\(label): NSEntity in Core Data's archive is not \(name)")
                }
                if let destination = try coreData.string("_NSDestinationEntityName", of: theirProperty) {
                    if try written.reference("NSDestinationEntity", of: uid) != mine.byName[destination] {
                        differences.append("\(label): NSDestinationEntity is not \(destination)")
                    }
                    if let inverse = try coreData.string("_NSInverseRelationshipName", of: theirProperty),
                        let destinationUID = mine.byName[destination],
                        let expected = try written.reference("NSProperties", of: destinationUID).map(written.entries)?[inverse],
                        try written.reference("NSInverseRelationship", of: uid) != expected
                    {
                        differences.append("\(label): NSInverseRelationship is not \(destination).\(inverse)")
                    }
                }
            }
        }
        return differences
    }

    @Test(arguments: CompiledModelFixtures.modelCacheStores)
    func aCacheQuireWritesHasTheShapeOfCoreDatasOwn(store: String) throws {
        let blob = try CompiledModelFixtures.modelCache(store)
        let coreData = try RawArchive(try RawInflate.inflate(blob))
        let model = try ManagedObjectModel(modelCache: blob)
        let archive: Data
        do {
            archive = try ModelCacheEncoder.archive(model)
        } catch let unsupported as ModelCacheEncoder.Unsupported {
            // Refused, never written wrong: only for what the encoder leaves out, which the cache does hold.
            let held = coreData.archive.objects.indices.compactMap { try? coreData.className(UInt64($0)) }
            let leftOut: Set = [
                "NSFetchIndexDescription", "NSDecimalNumberPlaceholder", "NSFetchedPropertyDescription", "NSDerivedAttributeDescription",
                "NSComparisonPredicate", "NSCompoundPredicate",
            ]
            // Older caches (Moody's) hold compound indexes the legacy way, as an entity's `NSCompoundIndexes` (Quire
            // reads them as fetch indexes), which the encoder leaves out too.
            let legacyIndexes = coreData.archive.objects.indices.contains { (try? coreData.reference("NSCompoundIndexes", of: UInt64($0))) != nil }
            #expect(
                !leftOut.isDisjoint(with: held) || legacyIndexes,
                "\(store) refused (\(unsupported)) though it holds none of \(leftOut.sorted()) nor NSCompoundIndexes")
            return
        }
        let written = try RawArchive(archive)
        let differences = try Self.shapeDifferences(written: written, coreData: coreData)
        #expect(differences.isEmpty, "\(store): \(differences.count) differences: \(differences.prefix(12).joined(separator: "; "))")
        // And the cache Quire writes reads back as the same model.
        let back = try ManagedObjectModel(modelCache: try ModelCacheEncoder.modelCache(model))
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(try Self.canonical(back) == Self.canonical(model))
    }

    /// Of the corpus's ten caches, those without what the encoder leaves out are written (three today).
    @Test func theCorpusCachesWithoutWhatTheEncoderLeavesOutAreWritten() throws {
        var written: [String] = []
        for store in CompiledModelFixtures.modelCacheStores {
            let model = try ManagedObjectModel(modelCache: try CompiledModelFixtures.modelCache(store))
            if (try? ModelCacheEncoder.archive(model)) != nil { written.append(store) }
        }
        #expect(written.sorted() == ["SampleModel3_V1", "SampleModel_V1", "XCServerCoreData_1.2.0"])
    }
}
