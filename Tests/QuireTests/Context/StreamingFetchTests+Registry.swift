// Counts the objects in the context's registry before it is pruned, which has no public face: uses Quire's internals.
import Foundation
import Testing

@testable import Quire

extension StreamingFetchTests {
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
