import QuireCore
@_spi(QuireEngine) import QuireStores
import Foundation

extension SQLiteStore {
    /// The date the context gave a save's `now()` attributes, for `NSCoreDataNow()` to answer while the save's rows are
    /// written, so the triggers write the value the objects already have. Nil when the save has no such attribute
    /// kept by the store's triggers, or when its rows carry different dates (a migration copying records, not a
    /// context's save, which gives all of them its one date): the triggers then stamp the current date, as Core
    /// Data's do for the records a migration inserts.
    func derivationDate(of request: SaveRequest) -> Date? {
        guard !triggerMaintainedAttributes.isEmpty else { return nil }
        let dated = store.model.entities.flatMap { entity in
            entity.properties.compactMap { property -> AttributeDescription? in
                guard let attribute = property as? AttributeDescription, attribute.derivationExpression.flatMap(DerivationExpression.init) == .now,
                    triggerMaintainedAttributes.contains(ObjectIdentifier(attribute))
                else { return nil }
                return attribute
            }
        }
        guard !dated.isEmpty else { return nil }
        var found: Date?
        for changes in [request.inserted, request.updated] {
            for change in changes {
                for attribute in dated where change.objectID.entity.isKind(of: attribute.entity ?? change.objectID.entity) {
                    guard attribute.slot < change.attributes.count, case .date(let date) = change.attributes[attribute.slot] else { continue }
                    if let found, found != date { return nil }
                    found = date
                }
            }
        }
        return found
    }

    /// Drops the store's derived-attribute triggers for an import (Save As), so that the copied rows keep the values
    /// they have (a `now()` trigger would stamp the copy's date on every row); saves then write those columns.
    func suspendDerivedAttributeTriggers(_ connection: SQLiteConnection) throws {
        let statement = try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z\\_DA\\_%' ESCAPE '\\'")
        var names: [String] = []
        do {
            defer { statement.finalize() }
            while try statement.step() { names.append(statement.string(at: 0) ?? "") }
        }
        for name in names { try connection.execute("DROP TRIGGER IF EXISTS \(SQLDialect.sqlite.quote(name))") }
        triggerMaintainedAttributes = []
        writePlans = [:]
    }

    /// Creates the derived-attribute triggers again once an import's rows are in (the store is one Quire created,
    /// so they are the schema's), and leaves those columns to them again.
    func resumeDerivedAttributeTriggers(_ connection: SQLiteConnection) throws {
        for statement in schema.derivedAttributeTriggerStatements() { try connection.execute(statement) }
        triggerMaintainedAttributes = try Self.derivedAttributes(connection, model: store.model)
        writePlans = [:]
    }
}
