import Foundation

extension ModelDocument {
    /// What the model declares that Quire keeps but does not act on yet, one sentence per item, in entity order:
    /// what ``ManagedObjectModel/unsupportedFeatures`` lists (and `quire info` prints), the same words whichever
    /// reader (Xcode model, compiled model, canonical JSON) the model came from. Uniqueness constraints, B-tree
    /// fetch indexes and fetched properties are not listed: stores and contexts act on them.
    package var unsupportedFeatures: [String] {
        var result: [String] = []
        for entity in entities {
            for index in entity.fetchIndexes ?? [] where index.partialIndexPredicate != nil {
                result.append("\(entity.name): fetch index \(index.name) is a partial index, which stores do not create")
            }
            for index in entity.fetchIndexes ?? [] where index.elements.contains(where: { $0.collationType == .rTree }) {
                result.append("\(entity.name): fetch index \(index.name) is an R-tree index, which stores do not create")
            }
            for attribute in entity.attributes {
                if let expression = attribute.derivationExpression, DerivationExpression(expression) == nil {
                    result.append("\(entity.name).\(attribute.name): derived attribute (\(expression)) is not an expression Quire computes; kept as a plain attribute")
                }
            }
        }
        return result
    }
}
