import Foundation
import Quire
import QuirePostgres
import QuireTestSupport
import Testing

/// The progress bar of `quire convert` over every phase, on a real terminal (a pty made by `script`), while a
/// store with large external data is written into a zip and a tar archive (issue 18).
@Suite(.serialized) struct CLIProgressTests {
    /// A store file with `count` objects, each holding `size` random bytes as external data.
    static func makeBigStore(at url: URL, count: Int, size: Int) throws {
        let blob = AttributeDescription(name: "bytes", type: .binaryData)
        blob.allowsExternalBinaryDataStorage = true
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Blob", properties: [AttributeDescription(name: "name", type: .string), blob])
        ])
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var options = StoreOptions()
        options.externalDataThreshold = 1024
        options.journalMode = .delete
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? random.close() }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        for index in 0..<count {
            let bytes = try #require(try random.read(upToCount: size))
            try context.performAndWait {
                let object = ManagedObject(entity: try #require(model.entitiesByName["Blob"]), insertInto: context)
                object.setValue("blob \(index)", forKey: "name")
                object.setValue(bytes, forKey: "bytes")
                try context.save()
                context.reset()
            }
        }
        try coordinator.remove(store)
    }

    /// Runs `quire` under `script`, so that its standard error is a terminal; returns what the terminal showed.
    static func runOnATerminal(_ executable: URL, _ arguments: [String], in folder: URL) throws -> (status: Int32, screen: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = ([executable.path] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
        process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "200"
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a pty"),
        arguments: ["zip", "tar"])
    func theBarCoversTheArchiveWritingOfLargeExternalData(format: String) throws {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        let cli = try CLIHarness(executable: executable)
        // 64 MiB of random bytes: deflating them into a zip (or streaming them into a tar) takes longer than the
        // half second after which the bar is drawn.
        try Self.makeBigStore(at: cli.folder.file("Big.sqlite"), count: 8, size: 8 << 20)
        let started = Date()
        let (status, screen) = try Self.runOnATerminal(executable, ["convert", "Big.sqlite", "Big.\(format)"], in: cli.folder.url)
        let seconds = Date().timeIntervalSince(started)
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("Converted Big.sqlite (store file, SQLite) to Big.\(format) (\(format) archive, SQLite): 8 objects, 8 external data files (64.0 MiB)."), "\(screen)")
        // Each redraw starts with a carriage return and clears the line.
        let draws = screen.components(separatedBy: "\r\u{1B}[2K").dropFirst().map { $0.components(separatedBy: "\r").first ?? $0 }
            .filter { $0.hasPrefix("[") }
        let archiveDraws = draws.filter { $0.contains("writing the archive") }
        // Deflating 64 MiB of random bytes takes seconds; a tar is written as fast as the disk goes, and may be
        // done before the first draw.
        if format == "zip" || seconds > 2 {
            #expect(!draws.isEmpty, "no progress drawn in \(seconds) s: \(screen.debugDescription)")
            #expect(!archiveDraws.isEmpty, "the archive phase was not shown: \(draws)")
        }
        for line in draws {
            // A bar, a percentage, the phase running, the objects, the bytes and the time left at the recent rate.
            let pattern = #"^\[[#.]{20}\] +\d{1,3}%  [a-z ]+  \d+/8 objects  [0-9.]+ (bytes|KiB|MiB|GiB)/[0-9.]+ (bytes|KiB|MiB|GiB)  ETA ([0-9hms]+|<1s|--)$"#
            #expect(line.range(of: pattern, options: .regularExpression) != nil, "\(line.debugDescription)")
        }
        // While the archive is written, the objects are all copied and the bytes move on.
        #expect(archiveDraws.allSatisfy { $0.contains("8/8 objects") }, "\(archiveDraws)")
        let percentages = draws.compactMap { line -> Int? in
            guard let range = line.range(of: #"\d+%"#, options: .regularExpression) else { return nil }
            return Int(line[range].dropLast())
        }
        #expect(percentages == percentages.sorted(), "the bar went back: \(percentages)")
        if archiveDraws.count > 1 {
            #expect(Set(archiveDraws.map { $0.components(separatedBy: "  ")[4] }).count > 1, "stuck: \(archiveDraws)")
        }
        // The archive holds the 64 MiB (a diff would hash them all again: too slow for a debug build).
        let size = try #require(try FileManager.default.attributesOfItem(atPath: cli.folder.file("Big.\(format)").path)[.size] as? NSNumber)
        #expect(size.int64Value > 64 << 20)
    }

    /// The redraws a terminal showed: each starts with a carriage return and clears the line.
    static func draws(_ screen: String) -> [String] {
        screen.components(separatedBy: "\r\u{1B}[2K").dropFirst().map { $0.components(separatedBy: "\r").first ?? $0 }
            .filter { !$0.isEmpty && !$0.hasPrefix("Converted") }
    }

    /// `metadata --set` on a big archive rewrites it whole: the phases and the archive's bytes are shown as they
    /// go (issue 30: before, nothing was shown for seconds).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a pty"))
    func metadataOnABigArchiveShowsItsProgress() throws {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        let cli = try CLIHarness(executable: executable)
        try Self.makeBigStore(at: cli.folder.file("Big.sqlite"), count: 8, size: 8 << 20)
        #expect(try cli.run("convert", "Big.sqlite", "Big.zip").status == 0)
        let (status, screen) = try Self.runOnATerminal(executable, ["metadata", "Big.zip", "--set", "Owner=Ada"], in: cli.folder.url)
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("Owner = Ada"), "\(screen)")
        let draws = Self.draws(screen).filter { !$0.contains(" = ") }
        let archive = draws.filter { $0.hasPrefix("writing the archive") }
        #expect(!archive.isEmpty, "the archive phase was not shown: \(screen.debugDescription)")
        for line in archive {
            let pattern = #"^writing the archive  +\d{1,3}%  [0-9.]+ (bytes|KiB|MiB|GiB)/[0-9.]+ (bytes|KiB|MiB|GiB)  ETA ([0-9hms]+|--)$"#
            #expect(line.range(of: pattern, options: .regularExpression) != nil, "\(line.debugDescription)")
        }
        let percentages = archive.compactMap { line -> Int? in
            guard let range = line.range(of: #"\d+%"#, options: .regularExpression) else { return nil }
            return Int(line[range].dropLast())
        }
        #expect(percentages == percentages.sorted(), "the bar went back: \(percentages)")
    }

    /// A conversion out of PostgreSQL shows its progress too (issue 30: before, nothing).
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a pty"),
        .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
    func aConversionOutOfPostgreSQLShowsItsProgress() throws {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        let cli = try CLIHarness(executable: executable)
        try Self.makeBigStore(at: cli.folder.file("Big.sqlite"), count: 8, size: 8 << 20)
        let url = try #require(PostgresTestServer.storeURL()).absoluteString
        let loaded = try cli.run("convert", "Big.sqlite", url)
        #expect(loaded.status == 0, "\(loaded)")
        let (status, screen) = try Self.runOnATerminal(executable, ["convert", url, "Big.zip"], in: cli.folder.url)
        #expect(status == 0, "\(screen)")
        let draws = Self.draws(screen).filter { $0.hasPrefix("[") }
        #expect(!draws.isEmpty, "no progress drawn: \(screen.debugDescription)")
        let percentages = draws.compactMap { line -> Int? in
            guard let range = line.range(of: #"\d+%"#, options: .regularExpression) else { return nil }
            return Int(line[range].dropLast())
        }
        #expect(percentages == percentages.sorted(), "the bar went back: \(percentages)")
        #expect(draws.allSatisfy { !$0.contains("ETA 0s") || $0.contains("100%") }, "\(draws)")
    }

    @Test func noBarWhenStandardErrorIsNotATerminal() throws {
        let executable = try #require(CLIHarness.executable, "quire is not built; run swift build --build-tests first")
        let cli = try CLIHarness(executable: executable)
        try Self.makeBigStore(at: cli.folder.file("Big.sqlite"), count: 2, size: 1 << 20)
        let result = try cli.run("convert", "Big.sqlite", "Big.zip")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "", "\(result)")
        #expect(result.stdout.hasPrefix("Converted Big.sqlite (store file, SQLite) to Big.zip (zip archive, SQLite): 2 objects"))
    }
}
