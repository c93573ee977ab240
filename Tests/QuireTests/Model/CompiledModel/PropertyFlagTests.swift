import QuireCore
import Foundation
import Testing

/// Flags no corpus model sets, checked on synthetic archives laid out as Core Data writes them.
@Suite("Property flags")
struct PropertyFlagTests {
    /// A model with one entity `E`, whose attribute `title` and relationship `others` have the given fields.
    func archive(attribute: [String: PropertyListNode], relationship: [String: PropertyListNode]) -> Data {
        var attributeFields = attribute
        attributeFields["$class"] = .uid(13)
        attributeFields["NSPropertyName"] = .uid(10)
        var relationshipFields = relationship
        relationshipFields["$class"] = .uid(15)
        relationshipFields["NSPropertyName"] = .uid(11)
        relationshipFields["_NSDestinationEntityName"] = .uid(7)
        return TestPlistWriter.keyedArchive([
            .string("$null"),
            .dictionary(["$class": .uid(2), "NSEntities": .uid(3)]),
            TestPlistWriter.classEntry("NSManagedObjectModel"),
            .dictionary(["$class": .uid(4), "NS.objects": .array([.uid(5)])]),
            TestPlistWriter.classEntry("NSArray"),
            .dictionary(["$class": .uid(6), "NSEntityName": .uid(7), "NSProperties": .uid(8)]),
            TestPlistWriter.classEntry("NSEntityDescription"),
            .string("E"),
            .dictionary(["$class": .uid(9), "NS.keys": .array([.uid(10), .uid(11)]), "NS.objects": .array([.uid(12), .uid(14)])]),
            TestPlistWriter.classEntry("NSMutableDictionary", ["NSDictionary", "NSObject"]),
            .string("title"),
            .string("others"),
            .dictionary(attributeFields),
            TestPlistWriter.classEntry("NSAttributeDescription", ["NSPropertyDescription", "NSObject"]),
            .dictionary(relationshipFields),
            TestPlistWriter.classEntry("NSRelationshipDescription", ["NSPropertyDescription", "NSObject"]),
        ])
    }

    @Test("NSFlagsKey, limits, _P bits")
    func flags() throws {
        let model = try CompiledModelDecoder.decodeArchive(archive(
            attribute: [
                "NSAttributeType": .integer(700), "NSFlagsKey": .integer(0x37), "NSMinValueName": .integer(3),
                "NSMaxValueName": .integer(50), "NSIsIndexed": .boolean(true), "_P": .integer(0xF3 | 0x100 | 0x800),
                "NSIsOptional": .boolean(true),
            ],
            relationship: [
                "NSMaxCount": .integer(0), "NSDeleteRule": .integer(3), "_P": .integer(0xF3 | 0x400 | 0x200),
                "NSIsOptional": .boolean(true), "NSIsOrdered": .boolean(true),
            ]))
        #expect(model.warnings.isEmpty, "\(model.warnings)")
        let entity = try #require(model.entity(named: "E"))
        let title = try #require(entity.attribute(named: "title"))
        #expect(title.kind == .string && title.isOptional && title.isIndexed && title.isIndexedBySpotlight)
        #expect(title.minimumValue == .integer(3) && title.maximumValue == .integer(50))
        #expect(title.allowsExternalBinaryDataStorage && title.preservesValueInHistoryOnDeletion && title.isFileBackedFuture)
        #expect(title.allowsCloudEncryption)
        let others = try #require(entity.relationship(named: "others"))
        #expect(others.isToMany && others.isOrdered && others.isOptional && others.isStoredInExternalRecord)
        #expect(others.deleteRuleKind == .deny && others.destinationEntityName == "E" && others.normalizedMaxCount == 0)
    }

    @Test("_P wins over the separate keys, as in Core Data, with a warning")
    func packedFlagsWin() throws {
        let model = try CompiledModelDecoder.decodeArchive(archive(
            attribute: ["NSAttributeType": .integer(300), "_P": .integer(0xF1), "NSIsOptional": .boolean(true)],
            relationship: ["NSMaxCount": .integer(1), "NSIsOptional": .boolean(true), "NSIsOrdered": .boolean(true)]))
        let entity = try #require(model.entity(named: "E"))
        #expect(entity.attribute(named: "title")?.isOptional == false)
        #expect(model.warnings.contains { $0.location == "E.title" })
        // Without _P, the keys count.
        let relationship = try #require(entity.relationship(named: "others"))
        #expect(relationship.isOptional && relationship.isOrdered && !relationship.isToMany)
    }
}
