// Counts the objects in the context's registry before it is pruned, which has no public face: uses Quire's internals.
import Foundation
import Testing

@testable import Quire

/// A fetch streams rows from an SQLite store into objects while the coordinator is locked; application code
/// (`awakeFromFetch`) runs only after the rows are read, and the registry is pruned after the fetch, not
/// during it.
@Suite struct StreamingFetchTests {
    /// Saves `count` runs with process IDs 0..<count into a new store.
    private func savedRuns(_ count: Int, in folder: TemporaryFolder, model: ManagedObjectModel) throws
        -> (PersistentStoreCoordinator, ManagedObjectContext)
    {
        let (coordinator, context) = try Fixtures.stack(model, at: folder.file("Runs.sqlite"))
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Run"])
        for index in 0..<count {
            let run = ManagedObject(entity: entity, insertInto: context)
            run.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "date")
            run.setValue(Int64(index), forKey: "processID")
        }
        try context.save()
        context.reset()
        return (coordinator, context)
    }

    @Test func awakeFromFetchRunsOnceEachAndMayFetchAgain() throws {
        let folder = try TemporaryFolder()
        let model = Fixtures.runModel()
        model.entities[0].managedObjectClass = RefetchingRun.self
        let (_, context) = try savedRuns(50, in: folder, model: model)
        let request = FetchRequest<ManagedObject>(entityName: "Run")
        request.returnsObjectsAsFaults = false
        request.sortDescriptors = [SortKey("processID")]
        let runs = try context.fetch(request).compactMap { $0 as? RefetchingRun }
        #expect(runs.count == 50)
        // Each object awoke exactly once, after the whole fetch was read: its own fetch of the same request
        // (the same cached SQLite statement) saw every record and left the outer fetch's rows intact.
        #expect(runs.allSatisfy { $0.awakenings == 1 })
        #expect(runs.allSatisfy { $0.countSeenWhenAwoken == 50 })
        #expect(runs.map { $0.value(forKey: "processID") as? Int64 } == (0..<50).map { Int64($0) })
        #expect(runs.allSatisfy { !$0.isFault })
    }

    @Test func aFetchPrunesOnceItIsDoneAndSparesWhatItFetchedOnce() throws {
        let folder = try TemporaryFolder()
        let (_, context) = try savedRuns(10_000, in: folder, model: Fixtures.runModel())
        func fetch(_ format: String) throws -> [ManagedObject] {
            let request = FetchRequest<ManagedObject>(entityName: "Run")
            request.predicate = try QueryPredicate(format: format)
            return try context.fetch(request)
        }
        var early: [ManagedObject]? = try fetch("processID < 3000")
        let kept = try #require(early?.first { $0.value(forKey: "processID") as? Int64 == 7 })
        #expect(context.registry.count == 3_000)
        early = nil
        // 5,000 more objects pass the pruning threshold (4,096) during the fetch; every one of them is
        // registered and unique. The prune comes once the fetch is done, and spares the 2,999 objects nobody
        // holds any more once, as a fetch returned them since the last prune.
        let late = try fetch("processID >= 5000")
        #expect(late.count == 5_000)
        #expect(Set(late.map(ObjectIdentifier.init)).count == 5_000)
        #expect(context.registry.count == 8_000)
        #expect(context.registeredObject(for: kept.objectID) === kept)
        #expect(try fetch("processID == 7").first === kept)
        // Asking for the registered objects prunes everything nobody holds.
        #expect(context.registeredObjects.count == 5_001)
    }
}

/// A run that fetches every run of its context when it awakes from a fetch.
final class RefetchingRun: ManagedObject {
    var awakenings = 0
    var countSeenWhenAwoken = -1

    override func awakeFromFetch() {
        awakenings += 1
        guard let context = managedObjectContext else { return }
        countSeenWhenAwoken = (try? context.fetch(FetchRequest<ManagedObject>(entityName: "Run")).count) ?? -1
    }
}
