import CGtk
import Dispatch
import Foundation
import GLibMainQueue
import NotebookKit
import Quire

// The probe the main-queue test runs: a process whose main thread runs GLib's main loop, as a GTK app's does,
// with or without the GLib source that runs Dispatch's main queue (`--without-source`). It sends work to the main
// queue the three ways a desktop app meets (a view context's `perform`, the merge of a background context's save
// into the view context, and the view context's fetched-results controller reporting it), plus a `@MainActor`
// task, then runs GLib's loop until it is idle and prints, as JSON, what ran.
//
// It quits from an idle callback (G_PRIORITY_DEFAULT_IDLE), which GLib dispatches only when no source of
// higher priority is ready: with the source, the main queue's eventfd is ready (at G_PRIORITY_DEFAULT) as long
// as blocks are queued, so everything queued runs first; without it, nothing does. No timing is involved, except
// a deadline of 10 seconds against a hang.

let withSource = !CommandLine.arguments.contains("--without-source")

/// What ran; touched on the main thread only (the blocks run there, and so does the final print).
final class Outcome: @unchecked Sendable {
    // @unchecked Sendable: the blocks that set these run on the main queue, which only the main thread runs in
    // this process (GLib's loop on the main thread drains it), and the main thread reads them after the loop.
    var performRan = false
    var mergedTitles: [String] = []
    var controllerInsertions = 0
    var mainActorTaskRan = false
}
let outcome = Outcome()

final class Recorder: FetchedResultsControllerDelegate {
    typealias Result = ManagedObject
    func controller(_ controller: FetchedResultsController<ManagedObject>, didChangeContentWith diff: CollectionDifference<ObjectID>) {
        outcome.controllerInsertions += diff.insertions.count
    }
}

if withSource { GLibMainQueue.attach() }

let container = try PersistentContainer(name: "Probe", managedObjectModel: NotebookModel.shared)
// An in-memory store, added to the container's coordinator directly (loadPersistentStores reports through a
// callback or async, which this synchronous main does not need).
try container.persistentStoreCoordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
let viewContext = container.viewContext
viewContext.automaticallyMergesChangesFromParent = true

// The controller on the view context (a main-queue context), set up on the main thread.
let recorder = Recorder()
let controller = FetchedResultsController(fetchRequest: NoteListFeed.request(search: ""), managedObjectContext: viewContext)
controller.delegate = recorder
try controller.performFetch()

// 1. A block sent to the view context.
viewContext.perform { outcome.performRan = true }

// 2. A background save, merged into the view context on the main queue.
let background = container.newBackgroundContext()
try background.performAndWait {
    let note = ManagedObject(entity: NotebookModel.shared.entitiesByName[NotebookModel.note]!, insertInto: background)
    note.setValue("Merged from the background", forKey: "title")
    try background.save()
}
viewContext.perform {
    let request = FetchRequest<ManagedObject>(entityName: NotebookModel.note)
    outcome.mergedTitles = ((try? viewContext.fetch(request)) ?? []).compactMap { $0.value(forKey: "title") as? String }
}

// 3. A main-actor task.
Task { @MainActor in outcome.mainActorTaskRan = true }

// Run GLib's loop until it is idle.
let loop = g_main_loop_new(nil, 0)
let quit: GSourceFunc = { loop in
    g_main_loop_quit(OpaquePointer(loop))
    return 0
}
g_idle_add_full(G_PRIORITY_DEFAULT_IDLE, quit, UnsafeMutableRawPointer(loop), nil)
g_timeout_add_seconds_full(G_PRIORITY_HIGH, 10, quit, UnsafeMutableRawPointer(loop), nil)
g_main_loop_run(loop)

let report: [String: Any] = [
    "source": withSource, "perform": outcome.performRan, "merged": outcome.mergedTitles,
    "controllerInsertions": outcome.controllerInsertions, "mainActorTask": outcome.mainActorTaskRan,
]
let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
exit(0)
