import Foundation
import Testing

import Quire
import QuireCore

/// A strings file beside an Xcode model localizes it, by Core Data's rule: `<ModelName>Model.strings` next to the
/// model (issue 14; it used to work only for Quire's own model files).
@Suite struct XcodeModelLocalizationTests {
    @Test func aStringsFileBesideAnXcodeModelFolderIsLoaded() throws {
        let folder = try TemporaryFolder()
        let model = folder.file("MyDocument.xcdatamodel")
        try FileManager.default.copyItem(at: try FixtureFiles.url("XcodeModels/Library.xcdatamodel"), to: model)
        try Data(
            """
            /* MyDocumentModel.strings */
            "Entity/Author" = "Writer";
            "Property/name/Entity/Author" = "Full name";
            """.utf8
        ).write(to: folder.file("MyDocumentModel.strings"))
        try Data(#""Property/email" = "E-mail";"#.utf8).write(to: folder.file("MyDocument.strings"))

        for url in [model, model.appendingPathComponent("contents")] {
            let loaded = try ManagedObjectModel(contentsOf: url)
            #expect(loaded.localizationDictionary["Entity/Author"] == "Writer", "\(url.path)")
            #expect(loaded.localizationDictionary["Property/name/Entity/Author"] == "Full name", "\(url.path)")
            #expect(loaded.localizationDictionary["Property/email"] == "E-mail", "\(url.path)")
        }
    }

    @Test func aStringsFileBesideAModelBundleIsLoaded() throws {
        let folder = try TemporaryFolder()
        let bundle = folder.file("Diary.xcdatamodeld")
        try FileManager.default.copyItem(at: try FixtureFiles.url("XcodeModels/Journal.xcdatamodeld"), to: bundle)
        try Data(#""Entity/Entry" = "Diary entry";"#.utf8).write(to: folder.file("DiaryModel.strings"))
        let loaded = try ManagedObjectModel(contentsOf: bundle)
        #expect(loaded.localizationDictionary["Entity/Entry"] == "Diary entry")
    }

    @Test func aMalformedStringsFileBesideAnXcodeModelIsNamed() throws {
        let folder = try TemporaryFolder()
        let model = folder.file("MyDocument.xcdatamodel")
        try FileManager.default.copyItem(at: try FixtureFiles.url("XcodeModels/Library.xcdatamodel"), to: model)
        try Data("\"a\" = ".utf8).write(to: folder.file("MyDocumentModel.strings"))
        let error = try #require(throws: QuireError.self) { try ManagedObjectModel(contentsOf: model) }
        #expect(error.code == .fileReadCorruptFile)
        #expect(error.context.file == folder.file("MyDocumentModel.strings"))
    }
}
