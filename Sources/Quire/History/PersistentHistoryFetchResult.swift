import QuireCore
import Foundation

/// What a history fetch request asks for: ``PersistentHistoryTransaction``s or ``PersistentHistoryChange``s
/// (Core Data types both as `NSFetchRequestResult`). Their fetch requests, ``PersistentHistoryTransaction/fetchRequest``
/// and ``PersistentHistoryChange/fetchRequest``, narrow a ``PersistentHistoryChangeRequest`` by a predicate.
///
/// ```swift
/// let transactions = PersistentHistoryTransaction.fetchRequest!
/// transactions.predicate = try QueryPredicate(format: "author != %@", "app")
/// let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// request.fetchRequest = transactions
/// let result = try context.execute(request)
/// ```
public protocol PersistentHistoryFetchResult: PredicateEvaluable, Sendable {}

extension PersistentHistoryTransaction: PersistentHistoryFetchResult {
    /// The entity name of history transactions in fetch requests (`Transaction`).
    public static let entityName = "Transaction"

    /// A request for transactions (`NSPersistentHistoryTransaction.fetchRequest`): give it a predicate over
    /// `timestamp`, `transactionNumber`, `storeID`, `bundleID`, `processID`, `contextName` and `author`, a
    /// `fetchLimit` and a `fetchOffset`, and pass it to ``PersistentHistoryChangeRequest/fetchHistory(withFetchRequest:)``
    /// or set it as a change request's ``PersistentHistoryChangeRequest/fetchRequest``. Never nil (optional as in
    /// Core Data, so ported code that unwraps it compiles).
    public static var fetchRequest: FetchRequest<any PersistentHistoryFetchResult>? {
        FetchRequest<any PersistentHistoryFetchResult>(entityName: entityName)
    }

    /// The value of one of the transaction's properties for a predicate.
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for a key transactions do not have.
    public func predicateValue(forKey key: String) throws -> PredicateValue {
        switch key {
        case "timestamp": return .value(.date(timestamp))
        case "transactionNumber": return .value(.integer(transactionNumber))
        case "storeID": return .value(.string(storeID))
        case "bundleID": return .value(bundleID.map(AttributeValue.string) ?? .null)
        case "processID": return .value(processID.map(AttributeValue.string) ?? .null)
        case "contextName": return .value(contextName.map(AttributeValue.string) ?? .null)
        case "author": return .value(author.map(AttributeValue.string) ?? .null)
        case "changes": return .collection((changes ?? []).map { .object($0) })
        default:
            throw QuireError(
                .predicateEvaluation, "A history transaction has no key '\(key)'.", context: .init(entity: Self.entityName, key: key))
        }
    }

    /// Nil: a transaction is no managed object.
    public var predicateObjectID: ObjectID? { nil }
}

extension PersistentHistoryChange: PersistentHistoryFetchResult {
    /// The entity name of history changes in fetch requests (`Change`).
    public static let entityName = "Change"

    /// A request for changes (`NSPersistentHistoryChange.fetchRequest`): its predicate, over `changeID`,
    /// `changeType` (its raw value: 0 insert, 1 update, 2 delete), `changedObjectID`, `changedEntity` (the
    /// entity's name), `updatedProperties` (names) and `transactionNumber`, keeps only the matching changes of
    /// each transaction a ``PersistentHistoryChangeRequest`` fetches, and only the transactions left with one.
    /// Never nil (optional as in Core Data).
    ///
    /// ```swift
    /// let changes = PersistentHistoryChange.fetchRequest!
    /// changes.predicate = try QueryPredicate(format: "changedEntity == %@ AND changeType == %d", "Quake", 0)
    /// let inserts = try context.execute(PersistentHistoryChangeRequest.fetchHistory(withFetchRequest: changes))
    /// ```
    public static var fetchRequest: FetchRequest<any PersistentHistoryFetchResult>? {
        FetchRequest<any PersistentHistoryFetchResult>(entityName: entityName)
    }

    /// The value of one of the change's properties for a predicate.
    ///
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for a key changes do not have.
    public func predicateValue(forKey key: String) throws -> PredicateValue {
        switch key {
        case "changeID": return .value(.integer(changeID))
        case "changeType": return .value(.integer(Int64(changeType.rawValue)))
        case "changedObjectID": return .object(ObjectIDReference(id: changedObjectID))
        case "changedEntity": return .value(.string(changedObjectID.entity.name))
        case "updatedProperties": return .collection((updatedProperties ?? []).sorted().map { .value(.string($0)) })
        case "transactionNumber": return .value(.integer(transactionNumber))
        default:
            throw QuireError(
                .predicateEvaluation, "A history change has no key '\(key)'.", context: .init(entity: Self.entityName, key: key))
        }
    }

    /// The changed object's ID, so `SELF == %@` compares with it.
    public var predicateObjectID: ObjectID? { changedObjectID }
}
