// The child process of the document crash test (Tests/QuireTests/Document/CrashTests.swift):
//   quire-crash-worker loop <document> <format> <store type> <status file>
//   quire-crash-worker fsize <document> <format> <store type> <limit in bytes>
//   quire-crash-worker pg-writer <store URL> <writer> <saves> <merge policy>   (PostgresWriter.swift)
//   quire-crash-worker pg-chunks <store URL> <bytes>   (PostgresChunkMemory.swift)
//   quire-crash-worker model-memory <folder> <entry point> <documents> [<compiled model>]   (ModelMemory.swift)
// `loop` saves the document until killed; `fsize` saves once under a file size limit and prints the error.
import Foundation
import Quire
import QuireCore
import QuireStores
import QuireTestSupport

let arguments = CommandLine.arguments
if arguments.count > 1, arguments[1] == "pg-writer" { exit(PostgresWriter.run(Array(arguments.dropFirst(2)))) }
if arguments.count > 1, arguments[1] == "pg-chunks" { exit(PostgresChunkMemory.run(Array(arguments.dropFirst(2)))) }
if arguments.count > 1, arguments[1] == "model-memory" { exit(ModelMemory.run(Array(arguments.dropFirst(2)))) }
guard arguments.count == 6, let format = DocumentType.Format(rawValue: arguments[3]) else {
    FileHandle.standardError.write(Data("usage: quire-crash-worker loop|fsize <document> <format> <store type> <status file|limit>\n".utf8))
    exit(2)
}
let harness = DocumentCrashHarness(format: format, storeType: StoreType(rawValue: arguments[4]))
let document = URL(fileURLWithPath: arguments[2])
do {
    switch arguments[1] {
    case "loop":
        try harness.runWorker(documentAt: document, statusFile: URL(fileURLWithPath: arguments[5]))
    case "fsize":
        if let error = try harness.saveUnderFileSizeLimit(documentAt: document, limit: Int(arguments[5]) ?? 1 << 20) {
            print("failed \(error.code.rawValue) \(error.message)")
        } else {
            print("saved")
        }
    default:
        exit(2)
    }
} catch {
    print("error \(error)")
    exit(1)
}
