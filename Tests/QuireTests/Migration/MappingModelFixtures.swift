import Foundation
import QuireTestSupport

import Quire

/// The real mapping models, model bundles and stores of objc.io's Moody, BookMigration and CoreStore's evolution
/// demo (Fixtures/CoreData, see the SOURCES.md files there), laid out as the apps have them.
enum MappingModelFixtures {
    /// The mapping-model files, by their names in the apps, with their fixture file.
    static let files: [(name: String, fixture: String)] = [
        ("Moody 2-Moody 3", "Moody-2-3.xml"), ("Moody 3-Moody 4", "Moody-3-4.xml"), ("Moody 4-Moody 5", "Moody-4-5.xml"),
        ("Moody 5-Moody 6", "Moody-5-6.xml"), ("Model1_to_Model2", "BookMigration-Model1_to_Model2.xml"),
        ("Model2_to_Model3", "BookMigration-Model2_to_Model3.xml"), ("Model2_to_Model3_User", "BookMigration-Model2_to_Model3_User.xml"),
        ("Advanced.EvolutionDemo.V1.FromV2", "CoreStore-V1.FromV2.xml"), ("Advanced.EvolutionDemo.V2.FromV1", "CoreStore-V2.FromV1.xml"),
    ]

    static var moodyBundle: URL {
        get throws { try FixtureFiles.url("CoreData/Models/objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld") }
    }
    static var bookBundle: URL { get throws { try FixtureFiles.url("CoreData/BookMigration/Model.xcdatamodeld") } }
    /// CoreStore's evolution demo keeps its model versions in three bundles.
    static var evolutionBundles: [URL] {
        get throws {
            try ["Advanced.EvolutionDemo", "Advanced.EvolutionDemo.V1", "Advanced.EvolutionDemo.V2"].map {
                try FixtureFiles.url("CoreData/Models/JohnEstropia__CoreStore/Demo/Sources/Demos/Advanced/EvolutionDemo/\($0).xcdatamodeld")
            }
        }
    }

    /// The fixture file of a mapping model, read as it is (its `xcmapping.xml`).
    static func file(_ name: String) throws -> URL {
        guard let fixture = files.first(where: { $0.name == name })?.fixture else {
            throw QuireError(.fileReadNoSuchFile, "No mapping-model fixture is named '\(name)'.")
        }
        return try FixtureFiles.url("CoreData/XML/" + fixture)
    }

    /// Writes mapping models as the apps ship them, `<name>.xcmappingmodel/xcmapping.xml`, in a folder.
    @discardableResult
    static func install(_ names: [String], in folder: URL) throws -> [URL] {
        try names.map { name in
            let package = folder.appendingPathComponent(name + ".xcmappingmodel")
            try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: try file(name), to: package.appendingPathComponent("xcmapping.xml"))
            return package
        }
    }

    /// A copy of a Moody store (version 1 to 5) in a folder.
    static func moodyStore(_ version: Int, in folder: TemporaryFolder) throws -> URL {
        let name = version == 1 ? "Moody.moody" : "Moody \(version).moody"
        let url = folder.file(name)
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/Moody/" + name), to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        return url
    }

    /// A copy of BookMigration's Model1 store in a folder.
    static func bookStore(in folder: TemporaryFolder) throws -> URL {
        let url = folder.file("Model1.sqlite")
        try FileManager.default.copyItem(at: try FixtureFiles.url("CoreData/BookMigration/Model1.sqlite"), to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        return url
    }
}
