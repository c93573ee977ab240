import Foundation
import Quire
import QuirePostgresTestSupport

/// `quire-crash-worker pg-writer bump <store URL>`: another process's save for the notification test.
/// `quire-crash-worker pg-writer <store URL> <writer> <saves> <merge policy>`: one writer of the PostgreSQL
/// contention test (``PostgresContention``). Prints `applied n0 n1 …` (saves per slot) and exits 0, or prints the
/// error and exits 1.
enum PostgresWriter {
    static func run(_ arguments: [String]) -> Int32 {
        if arguments.count == 2, arguments[0] == "bump", let url = URL(string: arguments[1]) {
            do {
                try PostgresContention.bump(url)
                print("bumped")
                return 0
            } catch {
                print("error \(error)")
                return 1
            }
        }
        guard arguments.count == 4, let url = URL(string: arguments[0]), let writer = Int(arguments[1]),
            let saves = Int(arguments[2]), let policy = MergePolicy.allCases.first(where: { "\($0)" == arguments[3] })
        else {
            FileHandle.standardError.write(Data("usage: quire-crash-worker pg-writer <url> <writer> <saves> <policy>\n".utf8))
            return 2
        }
        do {
            let applied = try PostgresContention.runWriter(url, writer: writer, saves: saves, policy: policy)
            print("applied " + applied.map(String.init).joined(separator: " "))
            return 0
        } catch {
            print("error \(error)")
            return 1
        }
    }
}
