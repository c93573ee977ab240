import QuireSupport
import Foundation

/// Writes a model as Core Data compiles it (issue 27, item 6): a keyed archive of `NSManagedObjectModel`, what
/// a `.mom` file holds, and its raw DEFLATE, what a store's `Z_MODELCACHE.Z_CONTENT` holds, so that a store Quire
/// writes carries its model in Core Data's own form beside Quire's (`Z_QUIREMODEL`).
///
/// The archive has the shape of the caches Core Data writes (those of the corpus): `NSEntities` an
/// `NSKnownKeysDictionary1` by entity name; each entity's `NSProperties` an `NSMutableDictionary` listing its own
/// properties and a copy of each inherited one (whose `NSEntity` is the sub-entity), `NSSubentities` one of its
/// sub-entities; each property with its flags both as keys (`NSIsOptional`, `NSIsTransient`) and in `_P`, whose bits
/// the 2,800 properties of the corpus's and Wire's caches confirm (0x1 always, 0x2 optional, 0x4 read-only, 0x8
/// transient, 0x10 and 0x20 no validation predicates and warnings, 0x40 no userInfo, 0x80 no version hash modifier,
/// 0x100 Spotlight, 0x200 external record, 0x400 ordered).
///
/// What Quire keeps as format text or does not model the way Core Data archives it is not written: a model with
/// validation predicates, derived attributes, fetched properties, fetch indexes, fetch request templates,
/// composite attributes, regular expressions or decimal defaults throws
/// ``ModelCacheEncoder/Unsupported``, and its stores carry no `Z_MODELCACHE` (they still carry their model).
package enum ModelCacheEncoder {
    /// A model the encoder does not write, and why.
    package struct Unsupported: Error, CustomStringConvertible {
        /// What the model has that is not written.
        package let description: String
    }

    /// The keyed archive of the model (a `.mom`'s bytes).
    ///
    /// - Throws: ``Unsupported`` for what the encoder does not write.
    package static func archive(_ model: ManagedObjectModel) throws -> Data {
        try Writer(document: ModelDocument(model: model)).write()
    }

    /// The raw DEFLATE of the archive, as `Z_MODELCACHE.Z_CONTENT` holds it.
    ///
    /// - Throws: ``Unsupported``; ``CompiledModelError`` when zlib fails.
    package static func modelCache(_ model: ManagedObjectModel) throws -> Data {
        try RawDeflate.deflate(try archive(model))
    }

    /// The class of an attribute type's values (`NSAttributeValueClassName`).
    static func valueClassName(_ type: AttributeType) -> String? {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: return "NSNumber"
        case .decimal: return "NSDecimalNumber"
        case .string: return "NSString"
        case .date: return "NSDate"
        case .binaryData: return "NSData"
        case .uuid: return "NSUUID"
        case .uri: return "NSURL"
        case .transformable: return nil
        }
    }

    private struct Writer {
        let document: ModelDocument
        let archive = KeyedArchiveWriter()
        /// Core Data's empty-slot marker of `NSKnownKeysDictionary1`, as its caches hold it.
        static let emptySlotToken = "__empty_slot_token_4c24_98dc_ac1e_b773__"

        func unsupported(_ what: String) -> Unsupported { Unsupported(description: what) }

        func write() throws -> Data {
            try check()
            let root = archive.reserve()
            let byName = Dictionary(document.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let entityUIDs = Dictionary(document.entities.map { ($0.name, archive.reserve()) }, uniquingKeysWith: { first, _ in first })
            /// The chain of an entity: itself, then its ancestors.
            func lineage(_ entity: ModelDocument.Entity) -> [ModelDocument.Entity] {
                var chain = [entity]
                var seen: Set<String> = [entity.name]
                while let parent = chain.last?.parent, let next = byName[parent], seen.insert(parent).inserted { chain.append(next) }
                return chain
            }
            // Each entity's property objects (its own and a copy of each inherited one), reserved first so that
            // relationships can name their inverse in the destination entity.
            var propertyUIDs: [String: [String: UInt64]] = [:]
            for entity in document.entities {
                var uids: [String: UInt64] = [:]
                for owner in lineage(entity) {
                    for attribute in owner.attributes where uids[attribute.name] == nil { uids[attribute.name] = archive.reserve() }
                    for relationship in owner.relationships where uids[relationship.name] == nil { uids[relationship.name] = archive.reserve() }
                }
                propertyUIDs[entity.name] = uids
            }
            for entity in document.entities {
                guard let uid = entityUIDs[entity.name], let uids = propertyUIDs[entity.name] else { continue }
                var properties: [(key: String, value: UInt64)] = []
                var done = Set<String>()
                for owner in lineage(entity) {
                    for attribute in owner.attributes where done.insert(attribute.name).inserted {
                        guard let propertyUID = uids[attribute.name] else { continue }
                        try write(attribute, into: propertyUID, entity: uid)
                        properties.append((attribute.name, propertyUID))
                    }
                    for relationship in owner.relationships where done.insert(relationship.name).inserted {
                        guard let propertyUID = uids[relationship.name] else { continue }
                        let destination = entityUIDs[relationship.destination] ?? KeyedArchiveWriter.null
                        let inverse = relationship.inverse.flatMap { propertyUIDs[relationship.destination]?[$0] } ?? KeyedArchiveWriter.null
                        write(relationship, into: propertyUID, entity: uid, destination: destination, inverse: inverse)
                        properties.append((relationship.name, propertyUID))
                    }
                }
                let subentities = document.entities.filter { $0.parent == entity.name }.compactMap { sub in
                    entityUIDs[sub.name].map { (key: sub.name, value: $0) }
                }
                var fields: [String: KeyedArchiveWriter.Field] = [
                    "NSEntityName": .reference(archive.string(entity.name)),
                    "NSClassNameForEntity": .reference(archive.string(entity.className ?? "NSManagedObject")),
                    "NSProperties": .reference(archive.dictionary(properties, className: "NSMutableDictionary", superclasses: ["NSDictionary", "NSObject"])),
                    "NSSubentities": .reference(archive.dictionary(subentities, className: "NSMutableDictionary", superclasses: ["NSDictionary", "NSObject"])),
                    "NSUserInfo": .reference(userInfo(entity.userInfo)),
                    "NSManagedObjectModel": .reference(root),
                    "NSSuperentity": .reference(entity.parent.flatMap { entityUIDs[$0] } ?? KeyedArchiveWriter.null),
                    "NSRenamingIdentifier": .reference(archive.string(entity.renamingIdentifier ?? entity.name)),
                    "NSVersionHashModifier": .reference(entity.versionHashModifier.map(archive.string) ?? KeyedArchiveWriter.null),
                ]
                if entity.abstract { fields["NSIsAbstract"] = .boolean(true) }
                if let constraints = entity.uniquenessConstraints, !constraints.isEmpty {
                    let tuples = constraints.map { names in
                        archive.array(names.map(archive.string), className: "NSMutableArray", superclasses: ["NSArray", "NSObject"])
                    }
                    fields["NSUniqueTuples"] = .reference(archive.array(tuples, className: "NSMutableArray", superclasses: ["NSArray", "NSObject"]))
                }
                archive.fill(uid, className: "NSEntityDescription", fields)
            }
            // NSEntities: Core Data's known-keys dictionary, keys and values in name order.
            let names = document.entities.map(\.name).sorted()
            let mapping = archive.object(
                className: "NSKnownKeysMappingStrategy1", superclasses: ["NSKnownKeysMappingStrategy", "NSObject"], [
                    "keys": .reference(archive.array(names.map(archive.string))), "length": .integer(Int64(names.count)),
                    "version": .integer(1),
                ])
            let entities = archive.object(
                className: "NSKnownKeysDictionary1",
                superclasses: ["NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"], [
                    "values": .reference(archive.array(names.compactMap { entityUIDs[$0] })), "searchMapping": .reference(mapping),
                    "emptyToken": .reference(archive.string(Self.emptySlotToken)), "version": .integer(1),
                ])
            var fields: [String: KeyedArchiveWriter.Field] = [
                "NSEntities": .reference(entities),
                "NSFetchRequestTemplates": .reference(KeyedArchiveWriter.null),
                "NSVersionIdentifiers": .reference(archive.array(document.versionIdentifiers.map(archive.string), className: "NSSet")),
            ]
            if !document.configurations.isEmpty {
                let configurations = document.configurations.sorted { $0.key < $1.key }.map { name, members in
                    (key: name, value: archive.array(members.sorted().compactMap { entityUIDs[$0] }, className: "NSMutableSet", superclasses: ["NSSet", "NSObject"]))
                }
                fields["NSConfigurations"] = .reference(archive.dictionary(configurations))
            }
            if !document.localization.isEmpty {
                fields["NSLocalizationDictionary"] = .reference(archive.dictionary(
                    document.localization.sorted { $0.key < $1.key }.map { (key: $0.key, value: archive.string($0.value)) }))
            }
            archive.fill(root, className: "NSManagedObjectModel", fields)
            return archive.data(root: root)
        }

        /// Refuses what the encoder does not write.
        func check() throws {
            if document.fetchRequestTemplates?.isEmpty == false { throw unsupported("fetch request templates") }
            for entity in document.entities {
                if entity.fetchedProperties?.isEmpty == false { throw unsupported("fetched properties of '\(entity.name)'") }
                if entity.fetchIndexes?.isEmpty == false { throw unsupported("fetch indexes of '\(entity.name)'") }
                if entity.composites?.isEmpty == false { throw unsupported("composite attributes of '\(entity.name)'") }
                for attribute in entity.attributes {
                    let name = "'\(entity.name).\(attribute.name)'"
                    if attribute.validationPredicates?.isEmpty == false { throw unsupported("validation predicates of \(name)") }
                    if attribute.derivationExpression != nil { throw unsupported("the derivation of \(name)") }
                    if attribute.regularExpression != nil { throw unsupported("the regular expression of \(name)") }
                    if case .decimal? = attribute.defaultValue { throw unsupported("the decimal default of \(name)") }
                }
                for relationship in entity.relationships where relationship.validationPredicates?.isEmpty == false {
                    throw unsupported("validation predicates of '\(entity.name).\(relationship.name)'")
                }
            }
        }

        /// `_P`: what the property's keys say, in the bits the corpus's caches show.
        func packedFlags(
            optional: Bool, transient: Bool, userInfo: [String: String], modifier: String?, spotlight: Bool,
            externalRecord: Bool = false, ordered: Bool = false
        ) -> Int64 {
            var flags: Int64 = 0x1 | 0x10 | 0x20
            if optional { flags |= 0x2 }
            if transient { flags |= 0x8 }
            if userInfo.isEmpty { flags |= 0x40 }
            if modifier == nil { flags |= 0x80 }
            if spotlight { flags |= 0x100 }
            if externalRecord { flags |= 0x200 }
            if ordered { flags |= 0x400 }
            return flags
        }

        func userInfo(_ values: [String: String]) -> UInt64 {
            archive.dictionary(values.sorted { $0.key < $1.key }.map { (key: $0.key, value: archive.string($0.value)) })
        }

        func value(_ value: AttributeValue?) -> UInt64 {
            switch value {
            case nil, .null?: return KeyedArchiveWriter.null
            case .integer(let number)?: return archive.integer(number)
            case .double(let number)?: return archive.real(number)
            case .float(let number)?: return archive.real(Double(number))
            case .boolean(let flag)?: return archive.boolean(flag)
            case .string(let text)?: return archive.string(text)
            case .date(let date)?: return archive.date(date)
            case .data(let bytes)?: return archive.data(bytes)
            case .uuid(let uuid)?:
                let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
                return archive.object(className: "NSUUID", ["NS.uuidbytes": .reference(archive.data(bytes))])
            case .uri(let url)?:
                return archive.object(className: "NSURL", [
                    "NS.base": .reference(KeyedArchiveWriter.null), "NS.relative": .reference(archive.string(url.absoluteString)),
                ])
            case .decimal?, .externalData?: return KeyedArchiveWriter.null
            }
        }

        func write(_ attribute: ModelDocument.Attribute, into uid: UInt64, entity: UInt64) throws {
            var flagsKey: Int64 = 0
            if attribute.allowsExternalStorage { flagsKey |= 0x4 }
            if attribute.preservesValueInHistoryOnDeletion == true { flagsKey |= 0x10 }
            var fields: [String: KeyedArchiveWriter.Field] = [
                "NSPropertyName": .reference(archive.string(attribute.name)),
                "NSEntity": .reference(entity),
                "NSAttributeType": .integer(Int64(attribute.type.coreDataCode)),
                "NSAttributeValueClassName": .reference(ModelCacheEncoder.valueClassName(attribute.type).map(archive.string) ?? KeyedArchiveWriter.null),
                "NSDefaultValue": .reference(value(attribute.defaultValue)),
                "NSValueTransformerName": .reference(attribute.valueTransformerName.map(archive.string) ?? KeyedArchiveWriter.null),
                "NSRenamingIdentifier": .reference(archive.string(attribute.renamingIdentifier ?? attribute.name)),
                "_P": .integer(packedFlags(
                    optional: attribute.optional, transient: attribute.transient, userInfo: attribute.userInfo,
                    modifier: attribute.versionHashModifier, spotlight: attribute.indexedBySpotlight,
                    externalRecord: attribute.storedInExternalRecord)),
            ]
            if attribute.optional { fields["NSIsOptional"] = .boolean(true) }
            if attribute.transient { fields["NSIsTransient"] = .boolean(true) }
            if attribute.indexed { fields["NSIsIndexed"] = .boolean(true) }
            if !attribute.userInfo.isEmpty { fields["NSUserInfo"] = .reference(userInfo(attribute.userInfo)) }
            if let modifier = attribute.versionHashModifier { fields["NSVersionHashModifier"] = .reference(archive.string(modifier)) }
            if let maximum = attribute.maximum, let limit = limitValue(maximum) {
                flagsKey |= 0x1
                fields["NSMaxValueName"] = .reference(limit)
            }
            if let minimum = attribute.minimum, let limit = limitValue(minimum) {
                flagsKey |= 0x2
                fields["NSMinValueName"] = .reference(limit)
            }
            fields["NSFlagsKey"] = .integer(flagsKey)
            archive.fill(uid, className: "NSAttributeDescription", superclasses: ["NSPropertyDescription", "NSObject"], fields)
        }

        /// `NSMinValueName` / `NSMaxValueName`: an integer for integers and lengths, a real otherwise (dates as
        /// seconds since 2001).
        func limitValue(_ value: AttributeValue) -> UInt64? {
            switch value {
            case .integer(let number): return archive.integer(number)
            case .double(let number): return archive.real(number)
            case .float(let number): return archive.real(Double(number))
            case .date(let date): return archive.real(date.timeIntervalSinceReferenceDate)
            default: return nil
            }
        }

        func write(_ relationship: ModelDocument.Relationship, into uid: UInt64, entity: UInt64, destination: UInt64, inverse: UInt64) {
            let rule: Int64
            switch relationship.deleteRule {
            case .noAction: rule = 0
            case .nullify: rule = 1
            case .cascade: rule = 2
            case .deny: rule = 3
            }
            var fields: [String: KeyedArchiveWriter.Field] = [
                "NSPropertyName": .reference(archive.string(relationship.name)),
                "NSEntity": .reference(entity),
                "NSDestinationEntity": .reference(destination),
                "_NSDestinationEntityName": .reference(archive.string(relationship.destination)),
                "NSInverseRelationship": .reference(inverse),
                "_NSInverseRelationshipName": .reference(relationship.inverse.map(archive.string) ?? KeyedArchiveWriter.null),
                "NSDeleteRule": .integer(rule),
                "NSMinCount": .integer(Int64(relationship.minCount)),
                // A to-many without a limit is 0; one limited to Int.max (set in code) is -1, as Core Data keeps it.
                "NSMaxCount": .integer(relationship.toMany ? (relationship.maxCount == Int.max ? -1 : Int64(relationship.maxCount)) : 1),
                "NSRenamingIdentifier": .reference(archive.string(relationship.renamingIdentifier ?? relationship.name)),
                "_P": .integer(packedFlags(
                    optional: relationship.optional, transient: relationship.transient, userInfo: relationship.userInfo,
                    modifier: relationship.versionHashModifier, spotlight: relationship.indexedBySpotlight,
                    ordered: relationship.ordered)),
            ]
            if relationship.optional { fields["NSIsOptional"] = .boolean(true) }
            if relationship.transient { fields["NSIsTransient"] = .boolean(true) }
            if relationship.ordered { fields["NSIsOrdered"] = .boolean(true) }
            if !relationship.userInfo.isEmpty { fields["NSUserInfo"] = .reference(userInfo(relationship.userInfo)) }
            if let modifier = relationship.versionHashModifier { fields["NSVersionHashModifier"] = .reference(archive.string(modifier)) }
            archive.fill(uid, className: "NSRelationshipDescription", superclasses: ["NSPropertyDescription", "NSObject"], fields)
        }
    }
}
