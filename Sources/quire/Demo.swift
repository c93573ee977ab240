import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// `quire demo`: builds a small store with Core Data's tutorial Run entity, saves it, reopens it with a new
/// stack and prints what it holds.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build a sample store of the tutorial's Run entity, save it, reopen it and print it.",
        discussion: """
            Examples:
              quire demo
              quire demo --output Runs.sqlite
            """)

    @Option(name: .shortAndLong, help: "Where to write the store (default: a temporary folder).")
    var output: String?

    @Option(help: "How many runs to record.")
    var runs: Int = 3

    func validate() throws {
        guard (1...100_000).contains(runs) else { throw ValidationError("--runs must be between 1 and 100000.") }
    }

    func run() throws {
        let folder: URL
        if let output {
            folder = URL(fileURLWithPath: output)
        } else {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-demo-\(UUID().uuidString)")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("Runs.sqlite")
        try? FileManager.default.removeItem(at: url)

        print("Quire \(QuireLibraries.sqliteVersion) (SQLite), \(QuireLibraries.libarchiveVersion)")
        print("1. Building the tutorial model in code: Run { date: date, processID: integer64 = -1 }")
        let start = Date(timeIntervalSinceReferenceDate: 786_000_000)
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext()
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                guard let entity = coordinator.managedObjectModel.entitiesByName["Run"] else { return }
                for index in 0..<runs {
                    let run = ManagedObject(entity: entity, insertInto: context)
                    run.setValue(start.addingTimeInterval(Double(index) * 3600), forKey: "date")
                    if index > 0 { run.setValue(1000 + index, forKey: "processID") }
                }
                try context.save()
            }
            print("2. Saved \(runs) runs to \(url.path)")
        }
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let request = FetchRequest<ManagedObject>(entityName: "Run")
        request.sortDescriptors = [SortKey("date")]
        let fetched = try context.fetch(request)
        print("3. Reopened with a new coordinator (store \(store.identifier)); it holds \(fetched.count) runs:")
        let formatter = ISO8601DateFormatter()
        for run in fetched {
            let date = (run.value(forKey: "date") as? Date).map(formatter.string(from:)) ?? "?"
            let pid = run.value(forKey: "processID") as? Int64 ?? 0
            print("   \(run.objectID.uriRepresentation().absoluteString)  date \(date)  processID \(pid)")
        }
        try coordinator.remove(store)
        print("4. Closed the store; files left: \(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().joined(separator: ", "))")
    }

    static func model() -> ManagedObjectModel {
        let run = EntityDescription(name: "Run")
        run.properties = [
            AttributeDescription(name: "date", type: .date, isOptional: false),
            AttributeDescription(name: "processID", type: .integer64, isOptional: false, defaultValue: -1),
        ]
        return ManagedObjectModel(entities: [run])
    }
}
