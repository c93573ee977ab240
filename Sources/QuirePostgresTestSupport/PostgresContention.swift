import Foundation
import Quire
import QuirePostgres

/// Many writers on one PostgreSQL store: the model, the seed and the writer loop that the contention test runs in
/// several `quire-crash-worker pg-writer` processes at once.
///
/// Eight `Slot` objects are shared by every writer; writer `k` only ever changes its own attribute `wk` (adding 1)
/// on a slot chosen so that the writers' slots overlap, saving once per change with a stale copy of the slot, so
/// nearly every save conflicts with another process's. A writer counts the saves the store took; the test then
/// checks that no update the store took is missing from it.
public enum PostgresContention {
    /// The number of shared slots.
    public static let slotCount = 8
    /// The number of writers (each its own process).
    public static let writerCount = 4

    /// `Slot(index, w0…w3)`, all 64-bit integers.
    public static func model() -> ManagedObjectModel {
        let slot = EntityDescription(
            name: "Slot",
            properties: [AttributeDescription(name: "index", type: .integer64, defaultValue: 0)]
                + (0..<writerCount).map { AttributeDescription(name: "w\($0)", type: .integer64, defaultValue: 0) })
        return ManagedObjectModel(entities: [slot])
    }

    /// Creates the store and its slots.
    public static func seed(_ url: URL) throws {
        let model = model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        guard let entity = model.entitiesByName["Slot"] else { return }
        for index in 0..<slotCount {
            ManagedObject(entity: entity, insertInto: context).setValue(Int64(index), forKey: "index")
        }
        try context.save()
        try coordinator.remove(store)
    }

    /// One writer's loop: `saves` saves under `policy`, each adding 1 to `w<writer>` of one slot; a save the
    /// store refused, or whose change the policy dropped, is made again. Returns, per slot index, the number of
    /// saves that changed it.
    public static func runWriter(_ url: URL, writer: Int, saves: Int, policy: MergePolicy) throws -> [Int] {
        let model = model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        context.mergePolicy = policy
        let request = FetchRequest<ManagedObject>(entityName: "Slot")
        request.sortDescriptors = [SortKey("index")]
        let slots = try context.fetch(request)
        guard slots.count == slotCount else {
            throw QuireError(.invalidArgument, "The contention store has \(slots.count) slots, not \(slotCount).")
        }
        let key = "w\(writer)"
        var applied = [Int](repeating: 0, count: slotCount)
        var attempts = 0
        for n in 0..<saves {
            let index = (n * 5 + writer) % slotCount
            let slot = slots[index]
            while true {
                attempts += 1
                guard attempts < saves * 50 else {
                    throw QuireError(.persistentStoreSave, "Writer \(writer) made no progress after \(attempts) attempts.")
                }
                let expected = (slot.value(forKey: key) as? Int64 ?? 0) + 1
                slot.setValue(expected, forKey: key)
                do {
                    try context.save()
                } catch {
                    context.rollback()
                    context.refresh(slot, mergeChanges: false)
                    continue
                }
                if slot.value(forKey: key) as? Int64 == expected {
                    applied[index] += 1
                    break
                }
                // The policy kept the store's version (rollback): the change was dropped; make it again.
                context.refresh(slot, mergeChanges: false)
            }
        }
        return applied
    }
}

extension PostgresContention {
    /// Another coordinator's save, for the notification test: slot 0's `w0` becomes 42 and a slot 99 is inserted.
    public static func bump(_ url: URL) throws {
        let model = model()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let request = FetchRequest<ManagedObject>(entityName: "Slot")
        request.predicate = try QueryPredicate(format: "index == 0")
        guard let slot = try context.fetch(request).first, let entity = model.entitiesByName["Slot"] else { return }
        slot.setValue(Int64(42), forKey: "w0")
        ManagedObject(entity: entity, insertInto: context).setValue(Int64(99), forKey: "index")
        try context.save()
    }
}
