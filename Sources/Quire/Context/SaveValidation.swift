import QuireCore
import QuireStores
import Foundation

/// The checks of validation: required values, numeric ranges, string lengths, date ranges, patterns,
/// validation predicates, relationship counts, the deny rule, and the per-key methods of typed subclasses.
///
/// Objects are checked only for what their entity has rules for: each entity keeps the slots of the
/// properties with rules (``EntityDescription/validatedAttributeSlots`` and the like), so an object of an entity
/// without rules costs a few empty loops.
enum SaveValidation {
    // MARK: Whole objects

    /// The failures of an inserted or updated object (what `validateForInsert()`/`validateForUpdate()` check).
    static func errors(for object: ManagedObject) -> [QuireError] {
        let entity = object.entity
        // An entity without rules has nothing to check: asked first, so its objects are not even looked at.
        guard entity.hasValidationRules else { return [] }
        object.fireFaultIfNeeded()
        guard object.attributeStorage.count == entity.frozenAttributeCount else { return [] }
        var errors: [QuireError] = []
        for slot in entity.validatedAttributeSlots {
            check(object.attributeStorage[slot], of: entity.allAttributes[slot], object: object, into: &errors)
        }
        for slot in entity.validatedRelationshipSlots where slot < object.relationshipStorage.count {
            var storage = object.relationshipStorage[slot]
            if storage.isFault {
                // A to-many relationship never loaded was not changed since it was last valid; one changed while
                // a fault is loaded to count its members.
                if object.deferredMembers[slot] == nil { continue }
                storage = object.loadedStorage(for: entity.allRelationships[slot])
            }
            check(storage, of: entity.allRelationships[slot], object: object, into: &errors)
        }
        if !entity.allComposites.isEmpty { checkRequiredComposites(of: object, into: &errors) }
        for property in entity.propertiesWithValidationMethods {
            var value = object.value(forKey: property.name)
            callValidationMethod(of: object, property: property, value: &value, into: &errors)
        }
        return errors
    }

    /// The failures of a deleted object: relationships with the deny rule that still hold objects.
    static func deleteErrors(for object: ManagedObject) -> [QuireError] {
        var errors: [QuireError] = []
        let entity = object.entity
        for slot in entity.denyRelationshipSlots {
            let relationship = entity.allRelationships[slot]
            let held = object.loadedStorage(for: relationship).objectIDs
            let live = held.filter { id in object.managedObjectContext?.registeredObject(for: id)?.isDeleted != true }
            if !live.isEmpty {
                errors.append(error(
                    .validationRelationshipDeniedDelete, object, relationship, value: .integer(Int64(live.count)),
                    ValidationMessages.message(.validationRelationshipDeniedDelete, property: relationship, entity: entity)))
            }
        }
        return errors
    }

    /// Throws nothing, the one failure, or a ``QuireError/Code/validationMultipleErrors`` listing them.
    static func throwIfAny(_ errors: [QuireError]) throws {
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 { throw multipleErrors(errors) }
    }

    /// One error listing several failures (each in ``QuireError/detailedErrors``), its message naming them.
    static func multipleErrors(_ errors: [QuireError]) -> QuireError {
        let summary = errors.prefix(10).map(\.message).joined(separator: " ")
        let header = ValidationMessages.templates[.validationMultipleErrors] ?? "Multiple validation errors occurred."
        return QuireError(
            .validationMultipleErrors,
            "\(header) (\(errors.count)) \(summary)\(errors.count > 10 ? " …" : "")",
            detailedErrors: errors)
    }

    /// The failures in a list of errors, flattening multiple-errors errors.
    static func flatten(_ error: any Error) -> [QuireError] {
        guard let error = error as? QuireError else {
            return [QuireError(.managedObjectValidation, "\(error)", underlying: error)]
        }
        if error.code == .validationMultipleErrors && !error.detailedErrors.isEmpty { return error.detailedErrors }
        return [error]
    }

    // MARK: Attribute rules

    /// Checks one attribute value against its attribute's rules: required, range, length, pattern, predicates.
    /// A nil value is checked for optionality only.
    static func check(_ value: AttributeValue, of attribute: AttributeDescription, object: ManagedObject, into errors: inout [QuireError]) {
        let entity = object.entity
        if value.isNull {
            if !attribute.isOptional && !attribute.isTransient {
                errors.append(error(
                    .validationMissingMandatoryProperty, object, attribute, value: .null,
                    ValidationMessages.message(.validationMissingMandatoryProperty, property: attribute, entity: entity)))
            }
            return
        }
        if case .integer(let integer) = value, let range = attribute.attributeType.integerRange, !range.contains(integer) {
            // Out of the attribute type's own range (40 000 for an Integer 16), as Core Data reports it.
            let code: QuireError.Code = integer > range.upperBound ? .validationNumberTooLarge : .validationNumberTooSmall
            let limit = String(integer > range.upperBound ? range.upperBound : range.lowerBound)
            errors.append(error(code, object, attribute, value: value, ValidationMessages.message(code, property: attribute, entity: entity, limit: limit)))
        }
        if attribute.minimumValue != nil || attribute.maximumValue != nil {
            checkRange(value, of: attribute, object: object, into: &errors)
        }
        if let regex = attribute.compiledRegularExpression, case .string(let string) = value {
            let range = NSRange(string.startIndex..., in: string)
            if regex.firstMatch(in: string, options: [], range: range) == nil {
                errors.append(error(
                    .validationStringPatternMatching, object, attribute, value: value,
                    ValidationMessages.message(
                        .validationStringPatternMatching, property: attribute, entity: entity,
                        limit: attribute.regularExpression)))
            }
        }
        if !attribute.validationPredicates.isEmpty {
            checkPredicates(of: attribute, value: value, object: object, evaluating: .value(value), into: &errors)
        }
    }

    private static func checkRange(_ value: AttributeValue, of attribute: AttributeDescription, object: ManagedObject, into errors: inout [QuireError]) {
        let entity = object.entity
        switch value {
        case .string(let string):
            // Lengths in UTF-16 units, as NSString's length counts them.
            let length = Int64(string.utf16.count)
            if let minimum = attribute.minimumValue?.integerLimit, length < minimum {
                errors.append(error(
                    .validationStringTooShort, object, attribute, value: value,
                    ValidationMessages.message(.validationStringTooShort, property: attribute, entity: entity, limit: String(minimum))))
            }
            if let maximum = attribute.maximumValue?.integerLimit, length > maximum {
                errors.append(error(
                    .validationStringTooLong, object, attribute, value: value,
                    ValidationMessages.message(.validationStringTooLong, property: attribute, entity: entity, limit: String(maximum))))
            }
        case .date(let date):
            if case .date(let minimum)? = attribute.minimumValue, date < minimum {
                errors.append(error(
                    .validationDateTooSoon, object, attribute, value: value,
                    ValidationMessages.message(
                        .validationDateTooSoon, property: attribute, entity: entity, limit: ValidationMessages.describe(.date(minimum)))))
            }
            if case .date(let maximum)? = attribute.maximumValue, date > maximum {
                errors.append(error(
                    .validationDateTooLate, object, attribute, value: value,
                    ValidationMessages.message(
                        .validationDateTooLate, property: attribute, entity: entity, limit: ValidationMessages.describe(.date(maximum)))))
            }
        case .integer, .double, .float, .decimal:
            if let minimum = attribute.minimumValue, let order = compareNumbers(value, minimum), order < 0 {
                errors.append(error(
                    .validationNumberTooSmall, object, attribute, value: value,
                    ValidationMessages.message(
                        .validationNumberTooSmall, property: attribute, entity: entity, limit: ValidationMessages.describe(minimum))))
            }
            if let maximum = attribute.maximumValue, let order = compareNumbers(value, maximum), order > 0 {
                errors.append(error(
                    .validationNumberTooLarge, object, attribute, value: value,
                    ValidationMessages.message(
                        .validationNumberTooLarge, property: attribute, entity: entity, limit: ValidationMessages.describe(maximum))))
            }
        default:
            break
        }
    }

    /// -1, 0 or 1 comparing two numbers: integers exactly, decimals as decimals, others as doubles; nil when
    /// either is not a number.
    static func compareNumbers(_ lhs: AttributeValue, _ rhs: AttributeValue) -> Int? {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.decimal(let a), .decimal(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.decimal(let a), .integer(let b)): return a < Decimal(b) ? -1 : (a > Decimal(b) ? 1 : 0)
        case (.integer(let a), .decimal(let b)): return Decimal(a) < b ? -1 : (Decimal(a) > b ? 1 : 0)
        default:
            guard let a = lhs.doubleValue, let b = rhs.doubleValue, !a.isNaN, !b.isNaN else { return nil }
            return a < b ? -1 : (a > b ? 1 : 0)
        }
    }

    // MARK: Relationship rules

    /// Checks a relationship's value: required to-one, minimum and maximum counts, predicates.
    static func check(_ storage: RelationshipStorage, of relationship: RelationshipDescription, object: ManagedObject, into errors: inout [QuireError]) {
        let entity = object.entity
        let ids = storage.objectIDs
        let count = ids.count
        if !relationship.isToMany {
            if !relationship.isOptional && count == 0 {
                errors.append(error(
                    .validationMissingMandatoryProperty, object, relationship, value: .null,
                    ValidationMessages.message(.validationMissingMandatoryProperty, property: relationship, entity: entity)))
            }
        } else {
            // Core Data enforces the counts only: a required (non-optional) to-many with no minimum may be empty
            // (NSRelationshipDescription: "0 means undefined"; objc.io's Moody saves its required `Country.moods`
            // empty once the last mood left), and an optional one may be empty whatever its minimum.
            let minimum = relationship.minCount
            if count < minimum && !(count == 0 && relationship.isOptional) {
                errors.append(error(
                    .validationRelationshipLacksMinimumCount, object, relationship, value: .integer(Int64(count)),
                    ValidationMessages.message(
                        .validationRelationshipLacksMinimumCount, property: relationship, entity: entity, limit: String(minimum))))
            }
            if relationship.maxCount > 0 && count > relationship.maxCount {
                errors.append(error(
                    .validationRelationshipExceedsMaximumCount, object, relationship, value: .integer(Int64(count)),
                    ValidationMessages.message(
                        .validationRelationshipExceedsMaximumCount, property: relationship, entity: entity,
                        limit: String(relationship.maxCount))))
            }
        }
        guard !relationship.validationPredicates.isEmpty, count > 0, let context = object.managedObjectContext else { return }
        let related: PredicateValue =
            relationship.isToMany
            ? .collection(ids.map { .object(context.object(with: $0)) }) : .object(context.object(with: ids[0]))
        // The failing value: the related object's URI for a to-one, the count for a to-many.
        let value: AttributeValue = relationship.isToMany ? .integer(Int64(count)) : .uri(ids[0].uriRepresentation())
        checkPredicates(of: relationship, value: value, object: object, evaluating: related, into: &errors)
    }

    // MARK: Predicates and methods

    private static func checkPredicates(
        of property: PropertyDescription, value: AttributeValue, object: ManagedObject, evaluating subject: PredicateValue,
        into errors: inout [QuireError]
    ) {
        for (index, predicate) in property.validationPredicates.enumerated() {
            var underlying: QuireError?
            do {
                if try predicate.evaluate(with: subject) { continue }
            } catch {
                underlying = error as? QuireError
            }
            let warning = index < property.validationWarnings.count ? property.validationWarnings[index] : ""
            var failure = self.error(
                .managedObjectValidation, object, property, value: value,
                ValidationMessages.warningMessage(warning, property: property, entity: object.entity))
            failure.context.predicate = predicate
            failure.underlying = underlying
            errors.append(failure)
        }
    }

    /// Calls a typed subclass's per-key validation method, collecting what it throws.
    static func callValidationMethod(of object: ManagedObject, property: PropertyDescription, value: inout Any?, into errors: inout [QuireError]) {
        do {
            try object.validate(key: property.name, value: &value)
        } catch {
            for var failure in flatten(error) {
                if failure.context.entity == nil { failure.context.entity = object.entity.name }
                if failure.context.key == nil { failure.context.key = property.name }
                if failure.context.objectID == nil {
                    failure.context.objectID = object.objectID
                    failure.context.object = object.objectID.uriRepresentation()
                }
                if !(error is QuireError) {
                    // A foreign error: its own description when it has one, else the generic message.
                    failure.message =
                        (error as? LocalizedError)?.errorDescription
                        ?? ValidationMessages.message(.managedObjectValidation, property: property, entity: object.entity)
                }
                errors.append(failure)
            }
        }
    }

    // MARK: Errors

    static func error(
        _ code: QuireError.Code, _ object: ManagedObject, _ property: PropertyDescription, value: AttributeValue?, _ message: String
    ) -> QuireError {
        QuireError(
            code, message,
            context: .init(
                entity: object.entity.name, key: property.name, object: object.objectID.uriRepresentation(),
                objectID: object.objectID, value: value))
    }
}

extension AttributeValue {
    /// A length or count limit as an integer (lengths given as any number).
    fileprivate var integerLimit: Int64? {
        switch self {
        case .integer(let v): return v
        default:
            guard let double = doubleValue, double.isFinite else { return nil }
            return Int64(exactly: double.rounded(.up)) ?? (double > 0 ? Int64.max : Int64.min)
        }
    }
}
