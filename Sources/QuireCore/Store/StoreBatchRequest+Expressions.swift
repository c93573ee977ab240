import QuireSupport
import Foundation

extension StoreBatchRequest {
    /// The new value of `attribute` for one record in a batch update that sets it to an expression: the
    /// expression evaluated with the record as `SELF` (by the same evaluator as predicates in memory), converted
    /// to the attribute's type as a value set through key-value coding would be.
    ///
    /// - Throws: ``QuireError/Code/invalidValue`` when the result does not fit the attribute (a fraction or an
    ///   integer out of range for an integer attribute, a string for a number); ``QuireError/Code/invalidArgument``
    ///   when it is not a single value; the evaluator's ``QuireError/Code/predicateEvaluation`` errors.
    package static func value(of expression: QueryExpression, for attribute: AttributeDescription, in row: RowSnapshot) throws -> AttributeValue {
        let result = try PredicateEvaluator(substitutionVariables: [:]).value(of: expression, on: .object(BatchRecord(row: row)))
        guard case .value(let value) = PredicateEvaluator.normalized(result) else {
            throw QuireError(
                .invalidArgument,
                "A batch update sets '\(attribute.name)' to \(expression), which gives no single value for \(row.objectID).",
                context: .init(entity: row.objectID.entity.name, key: attribute.name, objectID: row.objectID))
        }
        return try ValueCoercion.coerce(value, to: attribute)
    }

    /// Whether an expression can be a batch update's value for entities of `entity`'s kind: constants, the
    /// entity's own persistent attributes (stored in the record, not in external files) and functions and casts of
    /// those. Key paths through relationships, aggregates, subqueries and variables are not (Core Data's batch
    /// updates run in the store, on one row at a time). Returns the key that is not, or nil when all are.
    package static func unsupportedPart(of expression: QueryExpression, in entity: EntityDescription) -> String? {
        switch expression {
        case .constant:
            return nil
        case .keyPath(let key):
            guard let attribute = entity.attributesByName[key], !attribute.isTransient, !attribute.allowsExternalBinaryDataStorage
            else { return key }
            return nil
        case .function(_, let arguments):
            return arguments.lazy.compactMap { unsupportedPart(of: $0, in: entity) }.first
        case .cast(let operand, _):
            return unsupportedPart(of: operand, in: entity)
        default:
            return "\(expression)"
        }
    }
}

/// A record as a batch update's expressions see it: its attribute values by name.
private struct BatchRecord: PredicateEvaluable {
    let row: RowSnapshot

    func predicateValue(forKey key: String) throws -> PredicateValue {
        guard let attribute = row.objectID.entity.attributesByName[key], attribute.slot < row.attributes.count else {
            throw QuireError(.predicateEvaluation, "The entity \(row.objectID.entity.name) has no attribute '\(key)'.")
        }
        return .value(row.attributes[attribute.slot])
    }

    var predicateObjectID: ObjectID? { row.objectID }
}
