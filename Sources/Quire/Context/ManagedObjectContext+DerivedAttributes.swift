import QuireCore
import QuireStores
import Foundation
import OrderedCollections

/// A derived attribute set by hand: not kept, and reported by the next save.
struct DerivedAttributeWrite {
    let object: ManagedObject
    let key: String
}

extension ManagedObjectContext {
    /// Computes the derived attributes (``AttributeDescription/derivationExpression``) of the objects a save writes,
    /// as Core Data does at save: a key path's value, an aggregate of a to-many relationship's members, the save's
    /// date for `now()`, or a string function. Objects that derive a value from a changed object through an inverse
    /// relationship are recomputed too (a book's `author.name` when the author is renamed, its `pages.@sum.words`
    /// when a page's words change), so every derived value is current after the save, on every store type.
    ///
    /// Every store type gets the values from here. SQLite stores with Core Data's `Z_DA_` triggers (the ones Quire
    /// creates, and Core Data's) compute the same values in the file, for every writer, and Quire's saves leave those
    /// columns to them; the two agree because both use the same string functions and the save's date for `now()`
    /// (`NSCoreDataNow()` answers this save's date while the store writes it).
    ///
    /// - Returns: Whether objects outside `changed` changed (the caller lists the changed objects again).
    /// - Throws: ``QuireError/Code/managedObjectValidation`` naming the keys when derived attributes were set by hand
    ///   since the last save (derived attributes are read-only; the values set were not kept).
    func updateDerivedAttributes(_ changed: [ManagedObject]) throws -> Bool {
        if !derivedAttributeWrites.isEmpty {
            let writes = derivedAttributeWrites
            derivedAttributeWrites = []
            let first = writes[0]
            let keys = writes.map { "'\($0.object.entity.name).\($0.key)'" }
            throw QuireError(
                .managedObjectValidation,
                "Derived attributes are read-only: \(keys.joined(separator: ", ")) \(keys.count == 1 ? "was" : "were") set by hand "
                    + "(the value\(keys.count == 1 ? " was" : "s were") not kept). Core Data computes derived attributes at save.",
                context: .init(entity: first.object.entity.name, key: first.key))
        }
        let model = persistentStoreCoordinator?.managedObjectModel ?? changed.first?.entity.managedObjectModel
        // A model without derived attributes has nothing to compute: the changed objects are not even looked at.
        if let model, !model.entities.contains(where: \.hasDerivedAttributes) { return false }
        let now = Date()
        var computed = Set<ObjectIdentifier>()
        for object in changed where !object.deletedFlag && object.entity.hasDerivedAttributes {
            computed.insert(ObjectIdentifier(object))
            object.updateDerivedValues(now: now, changed: true)
        }
        // Objects deriving a value through a relationship from a changed object: found through the inverse.
        guard let model else { return false }
        let dependencies = model.derivedAttributeDependencies
        guard !dependencies.isEmpty else { return false }
        var outside = false
        for object in changed {
            for dependency in dependencies where object.entity.isKind(of: dependency.memberEntity) {
                var owners: [ManagedObject] = []
                switch object.value(forKey: dependency.inverse.name) {
                case let owner as ManagedObject: owners = [owner]
                case let set as Set<ManagedObject>: owners = Array(set)
                case let ordered as OrderedSet<ManagedObject>: owners = Array(ordered)
                default: break
                }
                for owner in owners where !owner.deletedFlag && computed.insert(ObjectIdentifier(owner)).inserted {
                    if owner.updateDerivedValues(now: now, changed: false) { outside = true }
                }
            }
        }
        return outside
    }
}

extension ManagedObjectModel {
    /// A relationship a derived attribute reads through, with the inverse that leads back from a member.
    struct DerivedAttributeDependency {
        /// The entity whose objects' changes affect the derived value (the relationship's destination).
        let memberEntity: EntityDescription
        /// The relationship back from a member to the objects that derive from it.
        let inverse: RelationshipDescription
    }

    /// The relationships derived attributes read through (`author` of `author.name`, `pages` of `pages.@sum.words`)
    /// that have an inverse; a relationship without one cannot lead back, and its derived values are computed only
    /// when their own object changes.
    var derivedAttributeDependencies: [DerivedAttributeDependency] {
        var result: [DerivedAttributeDependency] = []
        var seen = Set<ObjectIdentifier>()
        for entity in entities {
            for attribute in entity.allAttributes where attribute.entity === entity {
                guard let text = attribute.derivationExpression, let expression = DerivationExpression(text) else { continue }
                let first: String?
                switch expression {
                case .keyPath(let path), .string(_, let path):
                    let parts = path.split(separator: ".")
                    first = parts.count > 1 ? String(parts[0]) : nil
                case .aggregate(_, let relationship, _): first = relationship
                case .now: first = nil
                }
                guard let first, let relationship = entity.relationshipsByName[first], let inverse = relationship.resolvedInverse,
                    let destination = relationship.resolvedDestination, seen.insert(ObjectIdentifier(inverse)).inserted
                else { continue }
                result.append(DerivedAttributeDependency(memberEntity: destination, inverse: inverse))
            }
        }
        return result
    }
}

extension ManagedObject {
    /// Records a hand-set derived attribute for the next save to report; the value is not kept.
    func noteDerivedAttributeWrite(_ key: String) {
        managedObjectContext?.derivedAttributeWrites.append(DerivedAttributeWrite(object: self, key: key))
    }

    /// Throws for a derived attribute, which only saves compute (``setValidatedValue(_:forKey:)``).
    func checkNotDerived(_ attribute: AttributeDescription) throws {
        guard attribute.derivationExpression != nil else { return }
        throw QuireError(
            .managedObjectValidation,
            "'\(entity.name).\(attribute.name)' is a derived attribute, which is read-only: saves compute it from "
                + "'\(attribute.derivationExpression ?? "")'.",
            context: .init(entity: entity.name, key: attribute.name))
    }

    /// Computes the object's derived attributes. `now()` ones get the save's date when the object is saved anyway
    /// (`changed`) or another derived value changed, as Core Data's trigger on `Z_OPT` gives it.
    ///
    /// - Returns: Whether a value changed.
    @discardableResult
    fileprivate func updateDerivedValues(now: Date, changed: Bool) -> Bool {
        var changedAny = false
        var dated: [AttributeDescription] = []
        for attribute in entity.allAttributes {
            guard let text = attribute.derivationExpression, let expression = DerivationExpression(text) else { continue }
            if case .now = expression {
                dated.append(attribute)
                continue
            }
            let value = derivedValue(expression, for: attribute, now: now)
            if attributeValue(at: attribute.slot) != value {
                setAttributeValue(value, at: attribute.slot)
                changedAny = true
            }
        }
        if changed || changedAny {
            for attribute in dated { setAttributeValue(derivedValue(.now, for: attribute, now: now), at: attribute.slot) }
        }
        return changedAny
    }

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
            result = DerivationExpression.apply(function, to: text)
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
                case let number as NSNumber: return number.doubleValue
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
