import ArgumentParser
import Foundation
import Quire
import QuireCore
import QuireStores

/// `quire info DOC`: what a document or store is and holds.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a document's kind, store type, UUID, model version hashes, entities, external data and layout.",
        discussion: """
            Examples:
              quire info Report.quiredoc
              quire info Report.zip --json
              quire info Mac.sqlite --model App.xcdatamodeld
              quire info 'postgresql://me@localhost/db?schema=report'
              cat Report.zip | quire info -
            """)

    @Argument(help: "A document or store ('-' for standard input), or a PostgreSQL store URL.", completion: .file())
    var document: String

    @OptionGroup var model: ModelOption

    @Flag(help: "Print as JSON.")
    var json = false

    func run() throws {
        let source = try StoreSource.open(document)
        defer { source.close() }
        let metadata = try source.whileReading {
            try PersistentStoreCoordinator.metadataForPersistentStore(ofType: source.storeType, at: source.storeURL)
        }
        let counts = try source.dump(model: model).counts
        let (storeModel, origin) = try source.whileReading {
            try ManagedObjectModel.forStore(at: source.storeURL, type: source.storeType, modelFile: model.url)
        }
        let entities = storeModel.entities.map(\.name).sorted()
        var hashes: [String: String] = [:]
        if case .dictionary(let values)? = metadata[StoreMetadataKey.modelVersionHashes] {
            for (name, value) in values { if case .data(let data) = value { hashes[name] = data.base64EncodedString() } }
        }
        let contents = source.contents
        let blobs = contents?.externalDataFiles() ?? []
        let blobBytes = blobs.reduce(0) { $0 + $1.size }
        let layout = try contents.map { contents in try source.whileReading { try contents.layout() } } ?? []
        let uuid = metadata[StoreMetadataKey.storeUUID]?.stringValue ?? ""
        let container = contents?.container.rawValue ?? "PostgreSQL database"
        let unsupported = storeModel.unsupportedFeatures
        if json {
            var object: [String: Any] = [
                "path": source.shown, "container": container, "storeType": source.storeType.rawValue,
                "uuid": uuid, "modelVersionHashes": hashes, "model": origin.description,
                "unsupported": unsupported,
                "entities": Dictionary(uniqueKeysWithValues: entities.map { ($0, counts[$0] ?? 0) }),
                "externalData": ["files": blobs.count, "bytes": blobBytes],
            ]
            if let mimeType = contents?.mimeType { object["mimeType"] = mimeType }
            if !layout.isEmpty { object["layout"] = layout }
            try printJSON(object)
            return
        }
        print("\(source.shown): \(container)\(contents?.mimeType.map { " (\($0))" } ?? "")")
        print("Store: \(source.storeType), UUID \(uuid)")
        print("Model: \(origin)")
        if !unsupported.isEmpty {
            print("Not supported yet:")
            for feature in unsupported { print("  \(feature)") }
        }
        let width = (entities + hashes.keys).map(\.count).max() ?? 0
        print("Model version hashes:")
        for name in hashes.keys.sorted() {
            print("  \(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(hashes[name] ?? "")")
        }
        print("Entities:")
        for name in entities {
            let count = counts[name] ?? 0
            print("  \(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(count) object\(count == 1 ? "" : "s")")
        }
        print("External data: \(blobs.count) file\(blobs.count == 1 ? "" : "s"), \(byteCount(blobBytes))")
        if !layout.isEmpty {
            print("Layout:")
            for path in layout { print("  \(path)") }
        }
    }
}

/// `quire dump DOC`: the canonical dump of a document's object graph, or the objects of one entity that match
/// a predicate.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a canonical dump of a document's object graph (the same for the same graph in any store or container).",
        discussion: """
            --entity with --where prints the objects of an entity (and its sub-entities) that match a predicate, in \
            Core Data's predicate language (name == 'Ada', salary > 1000 AND department.name BEGINSWITH 'R'); keys \
            (Employee#3) are those of the whole dump.

            Examples:
              quire dump Report.quiredoc
              quire dump Report.zip --json > report.json
              quire dump Cars.sqlite --entity Car --where "maker == 'FIAT'" --limit 10
              quire dump 'postgresql://me@localhost/db?schema=report' --entity Employee
            """)

    @Argument(help: "A document or store ('-' for standard input), or a PostgreSQL store URL.", completion: .file())
    var document: String

    @OptionGroup var model: ModelOption

    @Option(help: "Print only the objects of this entity (and its sub-entities).")
    var entity: String?

    @Option(name: .customLong("where"), help: ArgumentHelp("Print only the objects matching this predicate (needs --entity).", valueName: "predicate"))
    var predicate: String?

    @Option(help: "Print at most this many objects.")
    var limit: Int?

    @Flag(help: "Print as JSON with typed values (schema in the CLI article); errors as JSON objects.")
    var json = false

    func validate() throws {
        if predicate != nil && entity == nil { throw ValidationError("--where needs --entity: the predicate is about one entity's objects.") }
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more.") }
    }

    func run() throws {
        let source = try StoreSource.open(document)
        defer { source.close() }
        var dump = try source.dump(model: model, includingValues: json)
        if let entity {
            let (storeModel, _) = try source.whileReading {
                try ManagedObjectModel.forStore(at: source.storeURL, type: source.storeType, modelFile: model.url)
            }
            guard let description = storeModel.entitiesByName[entity] else {
                throw CommandFailure(
                    status: .usage,
                    message: "The model of '\(source.shown)' has no entity '\(entity)'; it has \(storeModel.entities.map(\.name).sorted().joined(separator: ", ")).")
            }
            var names = Set<String>()
            var pending = [description]
            while let next = pending.popLast() {
                names.insert(next.name)
                pending += next.subentities
            }
            var matching: Set<String>?
            if let predicate {
                let parsed: QueryPredicate
                do {
                    parsed = try QueryPredicate(format: predicate)
                } catch {
                    throw CommandFailure(status: .usage, message: "--where: \(plainReason(error))")
                }
                matching = try source.whileReading { try Self.matchingKeys(source: source, model: storeModel, entity: entity, predicate: parsed) }
            }
            dump.objects = dump.objects.filter { object in
                names.contains(object.entity) && (matching.map { $0.contains("\(object.entity)\u{1F}\(object.primaryKey ?? -1)") } ?? true)
            }
        }
        if let limit { dump.objects = Array(dump.objects.prefix(limit)) }
        if json {
            print(String(decoding: try dump.typedJSON(), as: UTF8.self))
            return
        }
        print(dump.text(), terminator: "")
    }

    /// The entity and primary key of every object the predicate matches, fetched by the store.
    static func matchingKeys(source: StoreSource, model: ManagedObjectModel, entity: String, predicate: QueryPredicate) throws -> Set<String> {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var options = StoreOptions()
        options.isReadOnly = true
        let store = try coordinator.addPersistentStore(type: source.storeType, at: source.storeURL, options: options)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: entity)
            request.predicate = predicate
            return Set(try context.fetch(request).map { "\($0.entity.name)\u{1F}\($0.objectID.primaryKey ?? -1)" })
        }
    }
}

/// `quire diff A B`: a semantic comparison of two documents' graphs, objects matched by identity.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two documents' object graphs: exit 0 when equal, 1 with the differences otherwise.",
        discussion: """
            Objects are matched by identity, not position: by primary key when both are the same store (the same \
            store UUID: a copy, or a file before and after an edit), else by a uniqueness constraint, a key \
            attribute (a UUID, id, name, title…) or a hash of their values. One line per changed value \
            ("Author[name=\"Ada\"].born: 1815 -> 1816"), "- OBJECT" for an object only in the first, "+ OBJECT" \
            for one only in the second.

            Examples:
              quire diff Before.quiredoc After.zip
              quire diff --stat Before.quiredoc After.zip
              quire diff --brief a.sqlite b.sqlite && echo same
              quire diff --json a.sqlite 'postgresql://me@localhost/db?schema=copy'
            """)

    @Argument(help: "The first document or store ('-' for standard input), or a PostgreSQL store URL.", completion: .file())
    var first: String

    @Argument(help: "The second document or store, or a PostgreSQL store URL.", completion: .file())
    var second: String

    @OptionGroup var model: ModelOption

    @Flag(help: "Print the number of changed, added and removed objects per entity instead of each change.")
    var stat = false

    @Flag(help: "Print only whether they differ.")
    var brief = false

    @Flag(help: "Print the changes as JSON.")
    var json = false

    @Option(name: .customLong("max-lines"), help: "Print at most this many changes (0: all; default 1000).")
    var maxLines = 1000

    func validate() throws {
        if [stat, brief, json].filter({ $0 }).count > 1 { throw ValidationError("--stat, --brief and --json cannot be used together.") }
        if maxLines < 0 { throw ValidationError("--max-lines must be 0 or more.") }
        if first == "-" && second == "-" { throw ValidationError("Only one of the two may be standard input ('-').") }
    }

    func run() throws {
        let a = try StoreSource.open(first)
        defer { a.close() }
        let b = try StoreSource.open(second)
        defer { b.close() }
        let changes = try a.dump(model: model).changes(from: try b.dump(model: model))
        if json {
            var entries: [[String: Any]] = []
            for change in changes {
                var entry: [String: Any] = ["kind": change.kind.rawValue, "entity": change.entity, "object": change.object]
                if let property = change.property { entry["property"] = property }
                if let here = change.here { entry["first"] = here }
                if let there = change.there { entry["second"] = there }
                entries.append(entry)
            }
            try printJSON(["first": a.shown, "second": b.shown, "equal": changes.isEmpty, "changes": entries] as [String: Any])
            if !changes.isEmpty { throw ExitCode(ExitStatus.differences.rawValue) }
            return
        }
        if changes.isEmpty {
            print("\(a.shown) and \(b.shown) hold the same object graph.")
            return
        }
        if brief {
            print("\(a.shown) and \(b.shown) differ.")
            throw ExitCode(ExitStatus.differences.rawValue)
        }
        if stat {
            print("\(a.shown) and \(b.shown) differ:")
            let byEntity = Dictionary(grouping: changes, by: \.entity)
            let width = byEntity.keys.map(\.count).max() ?? 0
            for entity in byEntity.keys.sorted() {
                let items = byEntity[entity] ?? []
                let changed = Set(items.filter { $0.kind == .changed }.map(\.object)).count
                let added = items.filter { $0.kind == .added }.count
                let removed = items.filter { $0.kind == .removed }.count
                print("  \(entity.padding(toLength: width, withPad: " ", startingAt: 0))  \(changed) changed, \(added) added, \(removed) removed")
            }
            throw ExitCode(ExitStatus.differences.rawValue)
        }
        print("\(a.shown) and \(b.shown) differ (\"-\" only in \(a.shown), \"+\" only in \(b.shown), \"old -> new\"):")
        let shown = maxLines == 0 ? changes : Array(changes.prefix(maxLines))
        for change in shown { print("  \(change.line)") }
        if shown.count < changes.count {
            print("  … \(changes.count - shown.count) more (--max-lines 0 prints all, --stat counts them)")
        }
        throw ExitCode(ExitStatus.differences.rawValue)
    }
}

/// `quire verify DOC`: integrity checks.
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a document's integrity: SQLite's check, external data files, inverse relationships, metadata.",
        discussion: """
            Exit status 0 when sound, 3 with one line per problem otherwise. What Core Data itself writes (a
            one-to-one kept on one side only, an XML store without version hashes) is printed as a note and leaves
            the status 0.

            Examples:
              quire verify Report.quiredoc
              quire verify Mac.sqlite --model App.xcdatamodeld
            """)

    @Argument(help: "A document or store ('-' for standard input), or a PostgreSQL store URL.", completion: .file())
    var document: String

    @OptionGroup var model: ModelOption

    func run() throws {
        let source = try StoreSource.open(document)
        defer { source.close() }
        let report = try source.whileReading {
            try StoreVerification.report(inStoreAt: source.storeURL, type: source.storeType, modelFile: model.url)
        }
        // Notes are what Core Data itself writes: said, never a failure.
        for note in report.notes { print("\(source.shown): note: \(note)") }
        guard report.problems.isEmpty else {
            for problem in report.problems { printError("quire: \(source.shown): \(Messages.naming(problem))") }
            throw ExitCode(ExitStatus.unreadableInput.rawValue)
        }
        print("\(source.shown): OK (\(source.contents?.container.rawValue ?? "PostgreSQL database"), \(source.storeType) store)")
    }
}
