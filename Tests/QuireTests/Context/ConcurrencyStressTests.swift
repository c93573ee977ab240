// Counts the conflicts the merge policies resolved with the context's internal counter, which has no public face: uses Quire's internals.
import Dispatch
import Foundation
import Testing

@testable import Quire

/// Several contexts on several threads saving to one SQLite store.
@Suite struct ConcurrencyStressTests {
    /// Eight slots; context `k` writes only attribute `v<k>` of any slot, adding 1 to what it reads, so
    /// property-by-property merging must keep every write: a lost update makes a later read-modify-write start
    /// from an old value, and the final counts fall short of the log.
    static func slotModel() -> ManagedObjectModel {
        let slot = EntityDescription(name: "Slot", properties: (0..<4).map { k in
            AttributeDescription(name: "v\(k)", type: .integer64, defaultValue: 0)
        } + [AttributeDescription(name: "index", type: .integer64, defaultValue: 0)])
        return ManagedObjectModel(entities: [slot])
    }

    /// What one context saved, in order: (slot, value).
    final class SaveLog: @unchecked Sendable {
        // `@unchecked Sendable`: written only by blocks of its context (serialized by the context's queue) and
        // read after all of them finished (`performAndWait` orders the reads after the writes).
        var entries: [(slot: Int, value: Int64)] = []
    }

    /// The first error a worker thread met.
    final class ErrorBox: @unchecked Sendable {
        // `@unchecked Sendable`: guarded by `lock`.
        private let lock = NSLock()
        private var first: (any Error)?
        func record(_ error: any Error) {
            lock.lock()
            if first == nil { first = error }
            lock.unlock()
        }
        var error: (any Error)? {
            lock.lock()
            defer { lock.unlock() }
            return first
        }
    }

    @Test func fourContextsOnTwoThreadsSaveTenThousandTimesWithoutLosingAnUpdate() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Slots.sqlite")
        var options = StoreOptions()
        // Durability is not under test; without an fsync per commit the 10,000 saves take seconds.
        options.sqlitePragmas = ["synchronous": "OFF"]
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.slotModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let slotCount = 8
        let seed = ManagedObjectContext()
        seed.persistentStoreCoordinator = coordinator
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Slot"])
        let seeded = (0..<slotCount).map { index in
            let slot = ManagedObject(entity: entity, insertInto: seed)
            slot.setValue(Int64(index), forKey: "index")
            return slot
        }
        try seed.save()
        let ids = seeded.map(\.objectID)

        let policies: [MergePolicy] = [.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump]
        let contexts = policies.enumerated().map { index, policy in
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.name = "writer \(index)"
            context.persistentStoreCoordinator = coordinator
            context.mergePolicy = policy
            return context
        }
        // Each context merges the others' saves, on its own queue, as they happen.
        let observers = contexts.map { source in
            NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveNotification, object: source, queue: nil) {
                notification in
                guard let changes = ContextDidSave(notification) else { return }
                for target in contexts where target !== source {
                    target.perform { target.mergeChanges(fromContextDidSave: changes) }
                }
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }

        let logs = (0..<4).map { _ in SaveLog() }
        let failure = ErrorBox()
        let savesPerThread = 5_000
        let started = Date()
        // Two threads of our own (a dispatch pool may run both halves on one thread when the machine is busy).
        let finished = DispatchGroup()
        let work: @Sendable (Int) -> Void = { thread in
            var random = UInt64(thread + 1) &* 0x9E37_79B9_7F4A_7C15
            for round in 0..<savesPerThread {
                let k = thread * 2 + round % 2
                let context = contexts[k]
                random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let slot = Int(random >> 33) % slotCount
                do {
                    try context.performAndWait {
                        let object = context.object(with: ids[slot])
                        let value = (object.value(forKey: "v\(k)") as? Int64 ?? 0) + 1
                        object.setValue(value, forKey: "v\(k)")
                        try context.save()
                        logs[k].entries.append((slot, value))
                    }
                } catch {
                    failure.record(error)
                    return
                }
            }
        }
        for thread in 0..<2 {
            finished.enter()
            let worker = Thread {
                work(thread)
                finished.leave()
            }
            worker.name = "stress writer \(thread)"
            worker.start()
        }
        finished.wait()
        let elapsed = Date().timeIntervalSince(started)
        for context in contexts { context.performAndWait {} }
        if let error = failure.error { throw error }
        let conflicts = contexts.map { context in context.performAndWait { context.resolvedConflictCount } }
        print("10,000 saves by 4 contexts on 2 threads in \(String(format: "%.2f", elapsed)) s; conflicts resolved: \(conflicts)")

        #expect(logs.map(\.entries.count).reduce(0, +) == 2 * savesPerThread)
        #expect(conflicts.reduce(0, +) > 0, "the run should have made the contexts conflict")
        // The final value of v<k> in each slot is the last value context k saved there, and as each save
        // added 1, the number of saves context k made to that slot.
        let (_, reader) = try Fixtures.stack(Self.slotModel(), at: url)
        let request = FetchRequest<ManagedObject>(entityName: "Slot")
        request.sortDescriptors = [SortKey("index")]
        let slots = try reader.fetch(request)
        #expect(slots.count == slotCount)
        for k in 0..<4 {
            var expected = Array(repeating: Int64(0), count: slotCount)
            var counts = Array(repeating: Int64(0), count: slotCount)
            for entry in logs[k].entries {
                expected[entry.slot] = entry.value
                counts[entry.slot] += 1
            }
            let actual = slots.map { $0.value(forKey: "v\(k)") as? Int64 ?? -1 }
            #expect(actual == expected, "context \(k) (\(policies[k]))")
            #expect(actual == counts, "context \(k) (\(policies[k]))")
        }
        // And every context, having merged the others' saves, reads the same values.
        for context in contexts {
            let values = try context.performAndWait {
                try context.fetch(request).map { slot in (0..<4).map { slot.value(forKey: "v\($0)") as? Int64 ?? -1 } }
            }
            #expect(values == slots.map { slot in (0..<4).map { slot.value(forKey: "v\($0)") as? Int64 ?? -1 } })
        }
    }

    /// Validation shares the model (its compiled patterns and predicates) between contexts on several threads.
    @Test func contextsOnTwoThreadsValidateWithTheSameCompiledRules() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: ValidationTests.rulesModel())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("Rules.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Thing"])
        let failures = ErrorBox()
        let finished = DispatchGroup()
        for thread in 0..<2 {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            finished.enter()
            Thread {
                context.performAndWait {
                    let thing = ManagedObject(entity: entity, insertInto: context)
                    for round in 0..<2_000 {
                        var good: Any? = "AB-\(round)"
                        var bad: Any? = "ab-\(thread)"
                        var score: Any? = Int64(round % 150)
                        do {
                            try thing.validateValue(&good, forKey: "code")
                        } catch {
                            failures.record(error)
                        }
                        if (try? thing.validateValue(&bad, forKey: "code")) != nil {
                            failures.record(QuireError(.managedObjectValidation, "'\(bad ?? "")' passed the pattern."))
                        }
                        let scoreValid = (try? thing.validateValue(&score, forKey: "score")) != nil
                        if scoreValid != (1..<100).contains(round % 150) {
                            failures.record(QuireError(.managedObjectValidation, "score \(round % 150) judged wrongly."))
                        }
                    }
                }
                finished.leave()
            }.start()
        }
        finished.wait()
        if let error = failures.error { throw error }
    }
}
