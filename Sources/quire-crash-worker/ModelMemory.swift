import CQuireSupport
import Foundation
import Quire
import QuireCore
import QuireTestSupport

/// `quire-crash-worker model-memory <folder> <entry point> <documents> [<compiled model file>]`: opens documents
/// with the model read from each one (``ModelPerDocument``), in a process of its own so that the heap it measures
/// is this work's alone (the test suite runs other suites beside the test that asks). After 100 documents to warm
/// up, it opens `documents` more and prints `growth <heap bytes per document> models <models alive beyond those
/// before> objects <objects read>` and exits 0, or prints the error and exits 1.
enum ModelMemory {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 3, let entryPoint = ModelPerDocument.EntryPoint(rawValue: arguments[1]),
            let count = Int(arguments[2]), count > 0
        else {
            FileHandle.standardError.write(
                Data("usage: quire-crash-worker model-memory <folder> <entry point> <documents> [<compiled model>]\n".utf8))
            return 2
        }
        do {
            let compiled = arguments.count > 3 ? URL(fileURLWithPath: arguments[3]) : nil
            let documents = try ModelPerDocument(
                folder: URL(fileURLWithPath: arguments[0]), entryPoint: entryPoint, compiledModel: compiled)
            for index in 0..<100 { _ = try documents.open(index) }
            let models = ManagedObjectModel.liveCount
            let heap = quire_heap_bytes_in_use()
            var objects = 0
            for index in 0..<count { objects += try documents.open(index) }
            let growth = (quire_heap_bytes_in_use() - heap) / count
            print("growth \(growth) models \(ManagedObjectModel.liveCount - models) objects \(objects)")
            return 0
        } catch {
            print("error \(error)")
            return 1
        }
    }
}
