import QuireCore
import QuireStores
import Foundation

/// The model of the XML store Xcode writes as `.xcmappingmodel/xcmapping.xml`: Xcode's own mapping-model
/// entities, which are private to Xcode. Written from what the files show (entity names from their
/// `NSStoreModelVersionHashes`, properties and relationships from their objects, camel-cased); four of the five
/// entities' definitions reproduce the version hashes the files store byte for byte, and `XDDevEntityMapping`
/// has something no file shows, so files are read without comparing the hashes (Xcode's private model can change
/// with any Xcode; what a file holds is read by name).
///
/// ```text
/// XDDevMappingModel      sourceModelPath, sourceModelData, destinationModelPath, destinationModelData ─ entityMappings
/// XDDevEntityMapping     sourceName, destinationName, mappingTypeName, mappingNumber, migrationPolicyClassName,
///                        userInfoData, autoGenerateExpression ─ attributeMappings, relationshipMappings, mappingModel
/// XDDevPropertyMapping   name, valueExpressionData, userInfoData
///   XDDevAttributeMapping     ─ entityMapping
///   XDDevRelationshipMapping  sourceKeyPath, sourceMappingName, autoGenerateExpression ─ entityMapping
/// ```
enum XcodeMappingEntities {
    /// The model, frozen once for the process.
    static let model: ManagedObjectModel = {
        func attribute(_ name: String, _ type: AttributeType) -> AttributeDescription {
            AttributeDescription(name: name, type: type, isOptional: true)
        }
        let mappingModel = EntityDescription(name: "XDDevMappingModel", properties: [
            attribute("sourceModelPath", .string), attribute("sourceModelData", .binaryData),
            attribute("destinationModelPath", .string), attribute("destinationModelData", .binaryData),
            RelationshipDescription(
                name: "entityMappings", destination: "XDDevEntityMapping", toMany: true, inverse: "mappingModel", deleteRule: .cascade),
        ])
        let entityMapping = EntityDescription(name: "XDDevEntityMapping", properties: [
            attribute("sourceName", .string), attribute("destinationName", .string), attribute("mappingTypeName", .string),
            attribute("mappingNumber", .integer16), attribute("migrationPolicyClassName", .string),
            attribute("userInfoData", .binaryData), attribute("autoGenerateExpression", .boolean),
            RelationshipDescription(
                name: "attributeMappings", destination: "XDDevAttributeMapping", toMany: true, inverse: "entityMapping",
                deleteRule: .cascade),
            RelationshipDescription(
                name: "relationshipMappings", destination: "XDDevRelationshipMapping", toMany: true, inverse: "entityMapping",
                deleteRule: .cascade),
            RelationshipDescription(name: "mappingModel", destination: "XDDevMappingModel", inverse: "entityMappings"),
        ])
        let propertyMapping = EntityDescription(name: "XDDevPropertyMapping", properties: [
            attribute("name", .string), attribute("valueExpressionData", .binaryData), attribute("userInfoData", .binaryData),
        ])
        let attributeMapping = EntityDescription(name: "XDDevAttributeMapping", properties: [
            RelationshipDescription(name: "entityMapping", destination: "XDDevEntityMapping", inverse: "attributeMappings")
        ])
        let relationshipMapping = EntityDescription(name: "XDDevRelationshipMapping", properties: [
            attribute("sourceKeyPath", .string), attribute("sourceMappingName", .string), attribute("autoGenerateExpression", .boolean),
            RelationshipDescription(name: "entityMapping", destination: "XDDevEntityMapping", inverse: "relationshipMappings"),
        ])
        propertyMapping.subentities = [attributeMapping, relationshipMapping]
        let model = ManagedObjectModel(entities: [mappingModel, entityMapping, propertyMapping, attributeMapping, relationshipMapping])
        // A fixed, valid model: freezing it cannot fail (the tests open every corpus file with it).
        do {
            try model.freeze()
        } catch {
            preconditionFailure("The model of Xcode's mapping entities is invalid: \(error)")
        }
        return model
    }()
}
