import Foundation

import Quire

/// The checked-in files under `Tests/QuireTests/Fixtures`, copied into the test bundle.
enum FixtureFiles {
    /// The URL of a fixture, by its path under `Fixtures/`.
    static func url(_ path: String) throws -> URL {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw QuireError(.fileReadNoSuchFile, "The test bundle has no Fixtures folder.")
        }
        let url = root.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw QuireError(.fileReadNoSuchFile, "The fixture '\(path)' is missing from the test bundle.")
        }
        return url
    }

    /// The three-version Journal bundle: v1, v2 and v3 models, freshly read.
    static func journalVersions() throws -> [ManagedObjectModel] {
        try ModelBundle(contentsOf: url("XcodeModels/Journal.xcdatamodeld")).models
    }
}
