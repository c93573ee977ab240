import QuireCore
import Foundation
import Testing

/// Compares decoded model caches with the Xcode model beside their store.
@Suite("Model caches against their Xcode models")
struct ModelCacheXcodeTests {
    /// Store fixture and the `.xcdatamodel` version that wrote it (by version identifier).
    static let pairs: [(store: String, xcode: String)] = [
        ("SampleModel_V1", "SampleModel"),
        ("SampleModel_V2", "SampleModel2"),
        ("SampleModel3_V1", "SampleModel3"),
    ]

    @Test("Entities, attributes, relationships and constraints match", arguments: pairs.map(\.store))
    func matchesXcodeModel(store: String) throws {
        let xcodeName = try #require(Self.pairs.first { $0.store == store }?.xcode)
        let model = try CompiledModelDecoder.decodeModelCache(try CompiledModelFixtures.modelCache(store))
        let xcode = try CompiledModelFixtures.xcodeModel(xcodeName)
        #expect(model.versionIdentifiers == [xcode.versionIdentifier ?? ""])
        #expect(model.entities.map(\.name) == xcode.entities.map(\.name).sorted())
        for expected in xcode.entities {
            let entity = try #require(model.entity(named: expected.name))
            #expect(entity.superentityName == expected.parent)
            #expect(entity.isAbstract == expected.abstract)
            // Some caches (SampleModel_V2's) carry no class names at all: Core Data wrote the model as loaded,
            // without the classes of the test target. When a name is there, it is Xcode's.
            if let className = entity.managedObjectClassName { #expect(className == expected.className) }
            if let elementID = expected.elementID { #expect(entity.renamingIdentifier == elementID) }

            #expect(entity.attributes.map(\.name) == expected.attributes.map(\.name).sorted())
            for attribute in expected.attributes {
                let decoded = try #require(entity.attribute(named: attribute.name))
                #expect(xcodeTypeNames[decoded.attributeType] == attribute.type, "\(expected.name).\(attribute.name)")
                #expect(decoded.kind.description == attribute.type)
                #expect(decoded.isOptional == attribute.optional, "\(expected.name).\(attribute.name) optional")
                #expect(decoded.isTransient == attribute.transient, "\(expected.name).\(attribute.name) transient")
            }
            #expect(entity.relationships.map(\.name) == expected.relationships.map(\.name).sorted())
            for relationship in expected.relationships {
                let decoded = try #require(entity.relationship(named: relationship.name))
                #expect(decoded.destinationEntityName == relationship.destination)
                #expect(decoded.inverseName == relationship.inverse)
                #expect(decoded.isToMany == relationship.toMany)
                #expect(decoded.isOrdered == relationship.ordered)
                #expect(decoded.isOptional == relationship.optional)
                let rules = ["No Action": 0, "Nullify": 1, "Cascade": 2, "Deny": 3]
                #expect(decoded.deleteRule == rules[relationship.deletionRule])
            }
            #expect(entity.uniquenessConstraints == expected.uniquenessConstraints)
            #expect(Dictionary(uniqueKeysWithValues: entity.fetchIndexes.map { ($0.name, $0.elements.map(\.propertyName)) }) == expected.fetchIndexes)
        }
    }
}
