import Foundation
import Testing

import Quire

/// A fetch streams rows from an SQLite store into objects while the coordinator is locked; application code
/// (`awakeFromFetch`) runs only after the rows are read, and the registry is pruned after the fetch, not
/// during it.
@Suite struct StreamingFetchTests {
    /// Saves `count` runs with process IDs 0..<count into a new store.
    func savedRuns(_ count: Int, in folder: TemporaryFolder, model: ManagedObjectModel) throws
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
