import QuireCore
import QuireStores
import Foundation

extension StoreVerification {
    /// Which checks ``recordProblems(of:in:checking:limit:)`` makes.
    struct RecordChecks: OptionSet, Sendable {
        let rawValue: Int

        /// Every external data file is there with the length its reference, or the store, records.
        static let externalData = RecordChecks(rawValue: 1)
        /// No attribute that is not optional is nil.
        static let requiredValues = RecordChecks(rawValue: 2)
        /// Every relationship that the store keeps apart from its inverse is held back by the inverse (an atomic
        /// store keeps both sides in its records; an SQL store only a one-to-one's: see
        /// `PersistentStoreBackend.keepsInverseApart(_:)`).
        static let inverses = RecordChecks(rawValue: 4)

        static let all: RecordChecks = [.externalData, .requiredValues, .inverses]
    }

    /// The problems with an attached store's records, one sentence each, in the order of the entities' names,
    /// then the objects' keys, then the properties' order; at most `limit` of them.
    ///
    /// Reads the records a batch at a time through the store (only the entities a check concerns), under the
    /// coordinator's lock; for ``RecordChecks/inverses`` it holds one pair of object IDs per member of the
    /// relationships it checks.
    ///
    /// A member of a one-to-one relationship whose inverse is empty (not pointing elsewhere) is no problem but a
    /// note: Core Data keeps some one-to-ones on one side only (Apple Notes' `cloudState` ↔
    /// `cloudSyncingObject`).
    ///
    /// - Throws: the store's error when a record cannot be read.
    static func recordProblems(
        of store: PersistentStore, in coordinator: PersistentStoreCoordinator, checking checks: RecordChecks, limit: Int = .max
    ) throws -> (problems: [String], notes: [String]) {
        guard let backend = store.backend else { return ([], []) }
        let support = store.kind.supportFolder(forStore: store.url ?? URL(fileURLWithPath: "/"))
            .appendingPathComponent("_EXTERNAL_DATA")
        var found: [Problem] = []
        /// The members each checked relationship holds, by relationship.
        var links: [ObjectIdentifier: Set<Link>] = [:]
        /// Where each member was found: the problem's place if its inverse does not hold it back.
        var linkOrder: [(relationship: RelationshipDescription, link: Link, place: Place)] = []

        for (entityIndex, entity) in store.model.entities.filter({ !$0.isAbstract }).sorted(by: { $0.name < $1.name }).enumerated() {
            let external = checks.contains(.externalData)
                ? entity.allAttributes.filter { !$0.isTransient && $0.allowsExternalBinaryDataStorage } : []
            let required = checks.contains(.requiredValues)
                ? entity.allAttributes.filter { !$0.isTransient && !$0.isOptional && $0.derivationExpression == nil } : []
            let related = checks.contains(.inverses)
                ? entity.allRelationships.filter { relationship in
                    guard !relationship.isTransient, let inverse = relationship.resolvedInverse else { return false }
                    return backend.keepsInverseApart(relationship) || backend.keepsInverseApart(inverse)
                } : []
            guard !external.isEmpty || !required.isEmpty || !related.isEmpty else { continue }
            let fetch = StoreFetch(
                entity: entity, predicate: nil, sortKeys: [], limit: 0, offset: 0, includesSubentities: false, kind: .objectIDs)
            let ids = try coordinator.storeObjectIDs(fetch, in: store).sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
            let toMany = related.filter(\.isToMany)
            for start in stride(from: 0, to: ids.count, by: StoreMigration.batchSize) {
                let batch = Array(ids[start..<min(ids.count, start + StoreMigration.batchSize)])
                let (rows, members) = try coordinator.storeBatch(
                    batch, in: store, rows: !(external.isEmpty && required.isEmpty && toMany.count == related.count), members: toMany)
                for row in rows {
                    let place = { (index: Int) in Place(entity: entityIndex, key: row.objectID.primaryKey ?? 0, property: index) }
                    let name = "\(entity.name) \(row.objectID.primaryKey ?? 0)"
                    for attribute in required where attribute.slot < row.attributes.count {
                        if case .null = row.attributes[attribute.slot] {
                            found.append(Problem(place: place(attribute.slot), text: "\(name).\(attribute.name) is nil, but the attribute is not optional."))
                        }
                    }
                    for attribute in external where attribute.slot < row.attributes.count {
                        guard case .externalData(let reference) = row.attributes[attribute.slot] else { continue }
                        let file = support.appendingPathComponent(reference.uuid)
                        switch DocumentFiles.kind(of: file) {
                        case .file(let size):
                            let length = reference.length ?? coordinator.recordedLength(ofExternalData: reference.uuid, in: store)
                            if let length, Int64(size) != length {
                                found.append(Problem(
                                    place: place(attribute.slot),
                                    text: "\(name).\(attribute.name): the external data file \(reference.uuid) has \(size) bytes, not \(length)."))
                            }
                        default:
                            found.append(Problem(
                                place: place(attribute.slot), text: "\(name).\(attribute.name): the external data file \(reference.uuid) is missing."))
                        }
                    }
                    for relationship in related where !relationship.isToMany && relationship.slot < row.relationships.count {
                        for member in row.relationships[relationship.slot].objectIDs {
                            let link = Link(owner: row.objectID, member: member)
                            links[ObjectIdentifier(relationship), default: []].insert(link)
                            linkOrder.append((relationship, link, place(entity.allAttributes.count + relationship.slot)))
                        }
                    }
                }
                for (index, relationship) in toMany.enumerated() {
                    for owner in batch {
                        for member in members[index][owner] ?? [] {
                            let link = Link(owner: owner, member: member)
                            links[ObjectIdentifier(relationship), default: []].insert(link)
                            linkOrder.append((
                                relationship, link,
                                Place(
                                    entity: entityIndex, key: owner.primaryKey ?? 0, property: entity.allAttributes.count + relationship.slot,
                                    member: member.primaryKey ?? 0)))
                        }
                    }
                }
            }
        }
        /// The objects whose one-to-one relationship holds something, by relationship: a one-to-one whose inverse
        /// holds nothing at all is kept on one side (a note), one whose inverse holds another object a problem.
        var holders: [ObjectIdentifier: Set<ObjectID>] = [:]
        for (relationship, link, _) in linkOrder where !relationship.isToMany {
            holders[ObjectIdentifier(relationship), default: []].insert(link.owner)
        }
        var notes: [Problem] = []
        for (relationship, link, place) in linkOrder {
            guard let inverse = relationship.resolvedInverse,
                links[ObjectIdentifier(inverse)]?.contains(Link(owner: link.member, member: link.owner)) != true
            else { continue }
            let holds = "\(link.owner.entity.name) \(link.owner.primaryKey ?? 0).\(relationship.name) holds \(link.member.entity.name) "
                + "\(link.member.primaryKey ?? 0), whose inverse \(inverse.name)"
            if !relationship.isToMany, !inverse.isToMany, holders[ObjectIdentifier(inverse)]?.contains(link.member) != true {
                notes.append(Problem(place: place, text: holds + " is empty (a one-to-one kept on one side, as Core Data writes some)."))
            } else {
                found.append(Problem(place: place, text: holds + " does not hold it back."))
            }
        }
        // Sorted by place; a sort that keeps the order found among problems of one place (members in order).
        func ordered(_ problems: [Problem]) -> [String] {
            problems.enumerated().sorted { ($0.element.place, $0.offset) < ($1.element.place, $1.offset) }.prefix(limit).map(\.element.text)
        }
        return (ordered(found), ordered(notes))
    }

    /// A member held by an object's relationship.
    private struct Link: Hashable {
        let owner: ObjectID
        let member: ObjectID
    }

    /// Where a problem is: the entity's place in name order, the object's key, the property (attributes by
    /// slot, then relationships by slot), the member's key (members of a to-many come in no set order).
    private struct Place: Comparable {
        let entity: Int
        let key: Int64
        let property: Int
        var member: Int64 = 0

        static func < (a: Place, b: Place) -> Bool {
            (a.entity, a.key, a.property, a.member) < (b.entity, b.key, b.property, b.member)
        }
    }

    private struct Problem {
        let place: Place
        let text: String
    }
}
