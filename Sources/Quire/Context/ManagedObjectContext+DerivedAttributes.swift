import QuireCore
import QuireStores
import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Computes the derived attributes (``AttributeDescription/derivationExpression``) of the objects a save writes,
    /// as Core Data does at save: a key path's value, an aggregate of a to-many relationship's members, the save's
    /// date for `now()`, or a string function. Values set by hand are replaced (derived attributes are read-only).
    ///
    /// Every store type gets the values from here; SQLite stores with Core Data's `Z_DA_` triggers also keep them
    /// current in the file for rows other writers change.
    func updateDerivedAttributes(_ changed: [ManagedObject]) {
        let now = Date()
        for object in changed where !object.deletedFlag && object.entity.hasDerivedAttributes {
            for attribute in object.entity.allAttributes {
                guard let text = attribute.derivationExpression, let expression = DerivationExpression(text) else { continue }
                let value = object.derivedValue(expression, for: attribute, now: now)
                if object.attributeValue(at: attribute.slot) != value { object.setAttributeValue(value, at: attribute.slot) }
            }
        }
    }
}

extension EntityDescription {
    /// Whether the entity (or an ancestor) declares a derived attribute.
    fileprivate var hasDerivedAttributes: Bool {
        allAttributes.contains { $0.derivationExpression != nil }
    }
}

extension ManagedObject {
    /// The value of a derivation for this object, in the attribute's type (nil when it has none or does not fit).
    fileprivate func derivedValue(_ expression: DerivationExpression, for attribute: AttributeDescription, now: Date) -> AttributeValue {
        let result: Any?
        switch expression {
        case .now:
            result = now
        case .keyPath(let keyPath):
            result = value(forKeyPath: keyPath)
        case .string(let function, let keyPath):
            guard let text = value(forKeyPath: keyPath) as? String else { return .null }
            switch function {
            case .lowercase: result = text.lowercased()
            case .uppercase: result = text.uppercased()
            case .canonical:
                result = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
                    .lowercased()
            }
        case .aggregate(let aggregate, let relationship, let keyPath):
            let members: [ManagedObject]
            switch value(forKey: relationship) {
            case let set as Set<ManagedObject>: members = Array(set)
            case let ordered as OrderedSet<ManagedObject>: members = Array(ordered)
            default: members = []
            }
            if aggregate == .count {
                result = Int64(members.count)
                break
            }
            let numbers = members.compactMap { member -> Double? in
                guard let keyPath else { return nil }
                switch member.value(forKeyPath: keyPath) {
                case let number as any BinaryInteger: return Double(number)
                case let number as Double: return number
                case let number as Float: return Double(number)
                case let number as Decimal: return NSDecimalNumber(decimal: number).doubleValue
                case let date as Date: return date.timeIntervalSinceReferenceDate
                default: return nil
                }
            }
            switch aggregate {
            case .count: result = Int64(members.count)
            case .sum: result = numbers.reduce(0, +)
            case .average: result = numbers.isEmpty ? nil : numbers.reduce(0, +) / Double(numbers.count)
            case .min: result = numbers.min()
            case .max: result = numbers.max()
            }
            if attribute.attributeType == .date, let seconds = result as? Double {
                return .date(Date(timeIntervalSinceReferenceDate: seconds))
            }
        }
        guard let result else { return .null }
        if attribute.attributeType.isInteger, let number = result as? Double {
            guard number.isFinite, abs(number) < 9.2e18 else { return .null }
            return (try? ValueCoercion.attributeValue(from: Int64(number.rounded()), for: attribute)) ?? .null
        }
        return (try? ValueCoercion.attributeValue(from: result, for: attribute)) ?? .null
    }
}
