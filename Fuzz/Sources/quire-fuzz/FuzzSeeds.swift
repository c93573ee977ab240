import Foundation
import Quire

/// The seed corpus of each target, made at run time from the repository's sample documents and test fixtures
/// (nothing is copied into the repository).
enum FuzzSeeds {
    /// Writes the seeds of a target into a folder and returns how many.
    static func write(for target: FuzzTarget, from root: URL, to folder: URL) throws -> Int {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let samples = root.appendingPathComponent("SampleDocuments")
        let fixtures = root.appendingPathComponent("Tests/QuireTests/Fixtures")
        let kinds = ["sqlite", "xml", "binary"]
        var seeds: [(String, Data)] = []
        func add(_ url: URL) {
            if let data = try? Data(contentsOf: url) { seeds.append((url.lastPathComponent, data)) }
        }
        func files(below url: URL, where keep: (URL) -> Bool) -> [URL] {
            let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)
            var found: [URL] = []
            while let file = enumerator?.nextObject() as? URL {
                if keep(file) { found.append(file) }
            }
            return found.sorted { $0.path < $1.path }
        }
        switch target {
        case .xml, .binary, .sqlite:
            for name in ["Library", "Runs"] {
                add(samples.appendingPathComponent("\(name)-\(target.rawValue).quiredoc/StoreContent/persistentStore"))
            }
            if target == .sqlite {
                files(below: fixtures.appendingPathComponent("CoreData"), where: { $0.pathExtension == "sqlite" }).forEach(add)
            }
            if target == .binary, let changed = try? binaryStoreWithChangeLog(
                from: samples.appendingPathComponent("Library-binary.quiredoc/StoreContent/persistentStore")) {
                // The samples are whole files; this one has a change section after them (format version 2).
                seeds.append(("Library-changed.binary", changed))
            }
        case .metadata:
            for kind in kinds { add(samples.appendingPathComponent("Library-\(kind).quiredoc/StoreContent/persistentStore")) }
        case .zip, .tar:
            for kind in kinds { add(samples.appendingPathComponent("Library-\(kind).\(target.rawValue)")) }
        case .package:
            for name in ["Library", "Runs"] {
                for kind in kinds {
                    let package = samples.appendingPathComponent("\(name)-\(kind).quiredoc")
                    let encoded = try FuzzPackageEncoding.encode(folder: package)
                    seeds.append(("\(name)-\(kind)", encoded))
                }
            }
        case .xcodemodel:
            files(below: fixtures, where: { $0.lastPathComponent == "contents" || $0.lastPathComponent.hasSuffix(".xcdatamodel.contents") })
                .forEach(add)
        case .mom:
            // Core Data's compiled models; Xcode 3's `elements` files are the same kind of keyed archive.
            files(below: fixtures, where: { $0.pathExtension == "mom" || $0.pathExtension == "elements" }).forEach(add)
        case .modelcache:
            files(below: fixtures, where: { $0.pathExtension == "modelcache" }).forEach(add)
        case .archive:
            // Any bytes are a program for FuzzArchiveBuilder: some patterns, and real caches' bytes.
            seeds.append(("counting", Data((0...255).map { UInt8($0) })))
            seeds.append(("entities", Data([40] + [UInt8](repeating: 6, count: 64) + (0..<192).map { UInt8(truncatingIfNeeded: $0 &* 37) })))
            seeds.append(("predicates", Data([60] + (0..<255).map { UInt8([11, 12, 13, 14][$0 % 4] &+ UInt8(truncatingIfNeeded: $0 &* 20)) })))
            seeds.append(("wide", Data([8, 3, 0, 255, 255, 2, 16, 255, 255, 9] + [UInt8](repeating: 5, count: 100))))
            files(below: fixtures, where: { $0.pathExtension == "modelcache" }).forEach(add)
        case .strings:
            seeds.append(("Model.strings", Data("""
                /* A model's localization */
                "Entity/Book" = "Book";
                "Property/title/Entity/Book" = "Title";
                "Property/firstName" = "First \\"Name\\"\\n\\U00e9";
                bare_key = value;
                "only key";
                // end
                """.utf8)))
            var utf16 = Data([0xFF, 0xFE])
            utf16.append("\"Entity/Run\" = \"Lauf\";\n".data(using: .utf16LittleEndian) ?? Data())
            seeds.append(("UTF16.strings", utf16))
        case .predicate:
            for (index, format) in [
                "title == 'Dune' AND pages > 100", "ANY authors.name BEGINSWITH[cd] \"fr\"",
                "SUBQUERY(items, $x, $x.price < 10).@count > 0", "date >= CAST(0, 'NSDate') OR NOT (flag == YES)",
                "name IN {'a', 'b'} && size BETWEEN {1, 5}", "title MATCHES '^[a-z]+$' || tags.@max.rank != nil",
                "FUNCTION(name, 'uppercaseString') == 'X'", "TRUEPREDICATE", "self.value CONTAINS[c] %@",
            ].enumerated() {
                seeds.append(("predicate-\(index)", Data(format.utf8)))
            }
        case .mappingmodel:
            files(below: fixtures, where: { $0.lastPathComponent == "xcmapping.xml" || $0.path.contains("/CoreData/XML/") && $0.pathExtension == "xml" })
                .forEach(add)
        case .record:
            let path = "/home/ann/Records/8E8B457A-1208-4662-83FA-3A831AA55A1D/Note/p12.quirerecord\n"
            let values: [String: PropertyListValue] = [
                "title": "Buy zucchini", "rank": 3, "done": true, "score": 2.5, "photo": .data(Data([1, 2, 3])),
                "created": .date(Date(timeIntervalSinceReferenceDate: 800_000_000)),
                "tags": ["x-coredata://8E8B457A-1208-4662-83FA-3A831AA55A1D/Tag/p1"],
            ]
            for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
                seeds.append(("record-\(format.rawValue)", Data(path.utf8) + (try PropertyListValue.encode(values, format: format))))
            }
            seeds.append(("record-empty", Data(path.utf8)))
        }
        for (index, (name, data)) in seeds.enumerated() {
            try data.write(to: folder.appendingPathComponent("\(index)-\(name)"))
        }
        return seeds.count
    }

    /// A copy of a binary store with one object changed and saved, so that the file ends in a change log.
    private static func binaryStoreWithChangeLog(from url: URL) throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-fuzz-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("Store.binary")
        try FileManager.default.copyItem(at: url, to: copy)
        let model = try ManagedObjectModel.forStore(at: copy, type: .binary, modelFile: nil).model
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .binary, at: copy)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for entity in model.entities where !entity.isAbstract {
                guard let key = entity.attributesByName.values.first(where: { $0.attributeType == .string })?.name,
                    let object = try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name)).first
                else { continue }
                object.setValue("changed", forKey: key)
                context.delete(try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name)).last ?? object)
                break
            }
            try context.save()
        }
        try coordinator.remove(store)
        return try Data(contentsOf: copy)
    }
}
