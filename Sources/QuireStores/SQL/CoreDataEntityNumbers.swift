import QuireCore
import Foundation

/// The entity numbers (`Z_ENT`) of one SQLite store: read from its `Z_PRIMARYKEY` table when the store exists,
/// and Core Data's numbering for a new store.
///
/// Core Data numbers entities depth-first over the inheritance tree: the root entities sorted by name
/// (case-insensitively), each followed by its sub-entities, sorted the same way, recursively; from 1. A store
/// keeps the numbers it was created with (a renamed entity even keeps its old `Z_NAME`), so an existing store's
/// numbers are always read, never recomputed. Rows numbered above 16000 are Core Data's persistent-history
/// entities (`CHANGE`, `TRANSACTION`, `TRANSACTIONSTRING`), which belong to no model and are left alone.
package struct CoreDataEntityNumbers {
    /// The store's number of each model entity, indexed by the entity's position in the model's
    /// `entitiesByNumber` (its `entityNumber - 1`).
    private let numbersByModelIndex: [Int]
    /// The model entity of each store number (nil where the number is not a model entity's).
    private let entitiesByStoreNumber: [EntityDescription?]
    /// The model's entities in the store's number order.
    package let entitiesInOrder: [EntityDescription]

    /// The first number Core Data gives its persistent-history entities.
    package static let firstHistoryNumber = 16001

    private init(model: ManagedObjectModel, numbers: [ObjectIdentifier: Int]) {
        numbersByModelIndex = model.entitiesByNumber.map { numbers[ObjectIdentifier($0)] ?? 0 }
        let maximum = numbers.values.max() ?? 0
        var byNumber = [EntityDescription?](repeating: nil, count: maximum + 1)
        for entity in model.entitiesByNumber {
            if let number = numbers[ObjectIdentifier(entity)] { byNumber[number] = entity }
        }
        entitiesByStoreNumber = byNumber
        entitiesInOrder = byNumber.compactMap { $0 }
    }

    /// Core Data's numbering of a frozen model, for a new store.
    package static func coreData(for model: ManagedObjectModel) -> CoreDataEntityNumbers {
        var numbers: [ObjectIdentifier: Int] = [:]
        func visit(_ entity: EntityDescription) {
            numbers[ObjectIdentifier(entity)] = numbers.count + 1
            for sub in sortedByName(entity.subentities) { visit(sub) }
        }
        for root in sortedByName(model.entitiesByNumber.filter { $0.superentity == nil }) { visit(root) }
        return CoreDataEntityNumbers(model: model, numbers: numbers)
    }

    /// Entities in Core Data's sibling order: `caseInsensitiveCompare:` on the names, then plain order.
    static func sortedByName(_ entities: [EntityDescription]) -> [EntityDescription] {
        entities.sorted { a, b in
            let folded = a.name.caseInsensitiveCompare(b.name)
            return folded == .orderedSame ? a.name < b.name : folded == .orderedAscending
        }
    }

    /// One row of `Z_PRIMARYKEY`.
    package struct Row {
        /// `Z_ENT`.
        package let number: Int
        /// `Z_NAME`.
        package let name: String
        /// `Z_SUPER`: the superentity's number, 0 for a root.
        package let superNumber: Int

        /// A row as read (the PostgreSQL store reads its `z_primarykey` into these).
        package init(number: Int, name: String, superNumber: Int) {
            self.number = number
            self.name = name
            self.superNumber = superNumber
        }
    }

    /// The numbers a store's `Z_PRIMARYKEY` rows give the entities of a model, matched by name, or by the
    /// entity's renaming identifier (a store migrated in place keeps an entity's old name).
    ///
    /// - Throws: ``QuireError/Code/persistentStoreIncompatibleSchema`` naming the first difference: a row of no
    ///   model entity, a model entity without a row, two rows of one entity, one number given to two entities,
    ///   or a superentity that differs.
    package static func read(_ rows: [Row], model: ManagedObjectModel, url: URL) throws -> CoreDataEntityNumbers {
        func mismatch(_ what: String) -> QuireError {
            QuireError(
                .persistentStoreIncompatibleSchema, "The store '\(url.path)' does not match its model: \(what).",
                context: .init(file: url))
        }
        let byName = model.entitiesByName
        var byRenamingIdentifier: [String: EntityDescription] = [:]
        for entity in model.entitiesByNumber {
            if let old = entity.renamingIdentifier, !old.isEmpty, byName[old] == nil { byRenamingIdentifier[old] = entity }
        }
        var numbers: [ObjectIdentifier: Int] = [:]
        var supers: [ObjectIdentifier: Int] = [:]
        var namesByNumber: [Int: String] = [:]
        for row in rows.sorted(by: { $0.number < $1.number }) where row.number < firstHistoryNumber {
            guard row.number > 0 else { throw mismatch("Z_PRIMARYKEY has the entity number \(row.number) for '\(row.name)'") }
            // Every row of a table names its entity by number: a number two entities share cannot say which.
            if let other = namesByNumber.updateValue(row.name, forKey: row.number), other != row.name {
                throw mismatch("its Z_PRIMARYKEY gives the entity number \(row.number) to both '\(other)' and '\(row.name)'")
            }
            guard let entity = byName[row.name] ?? byRenamingIdentifier[row.name] else {
                throw mismatch("its Z_PRIMARYKEY names the entity '\(row.name)' (Z_ENT \(row.number)), which the model does not have")
            }
            guard numbers[ObjectIdentifier(entity)] == nil else {
                throw mismatch("its Z_PRIMARYKEY has two rows for the entity '\(entity.name)'")
            }
            numbers[ObjectIdentifier(entity)] = row.number
            supers[ObjectIdentifier(entity)] = row.superNumber
        }
        for entity in model.entitiesByNumber {
            guard let number = numbers[ObjectIdentifier(entity)] else {
                throw mismatch("the model's entity '\(entity.name)' has no row in its Z_PRIMARYKEY")
            }
            let expected = entity.superentity.flatMap { numbers[ObjectIdentifier($0)] } ?? 0
            let stored = supers[ObjectIdentifier(entity)] ?? 0
            guard stored == expected else {
                throw mismatch(
                    "the entity '\(entity.name)' (Z_ENT \(number)) has Z_SUPER \(stored) in the store, but its superentity "
                        + "in the model is \(entity.superentity.map { "'\($0.name)' (Z_ENT \(expected))" } ?? "none")")
            }
        }
        return CoreDataEntityNumbers(model: model, numbers: numbers)
    }

    /// The store's number of an entity of the model.
    @inline(__always)
    package func number(of entity: EntityDescription) -> Int {
        let index = entity.entityNumber - 1
        return index >= 0 && index < numbersByModelIndex.count ? numbersByModelIndex[index] : 0
    }

    /// The model entity a store number stands for; nil for any other number.
    @inline(__always)
    package func entity(number: Int64) -> EntityDescription? {
        guard number > 0, number < entitiesByStoreNumber.count else { return nil }
        return entitiesByStoreNumber[Int(number)]
    }

    /// The numbers of an entity and all its descendants.
    package func hierarchyNumbers(of entity: EntityDescription) -> [Int] {
        [number(of: entity)] + entity.allSubentities.map(number(of:))
    }
}
