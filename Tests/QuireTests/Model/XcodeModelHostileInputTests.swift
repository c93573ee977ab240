import Foundation
import Testing

import Quire
import QuireCore
import QuireTestSupport

/// Hostile model files found by outside testing (issue 14): every one is refused with `invalidModel` naming the
/// file, and none reaches Foundation's `XMLParser`, which crashes on Linux on some of them.
@Suite struct XcodeModelHostileInputTests {
    /// Writes `contents` into a fresh `.xcdatamodel` folder and opens it as a model; the error it throws.
    func refusal(_ contents: Data) throws -> (QuireError, URL) {
        let folder = try TemporaryFolder()
        let model = folder.file("Hostile.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try contents.write(to: model.appendingPathComponent("contents"))
        let error = try #require(throws: QuireError.self) { try ManagedObjectModel(contentsOf: model) }
        return (error, model.appendingPathComponent("contents"))
    }

    @Test func aProcessingInstructionWithoutDataIsRefusedNotACrash() throws {
        // 13 bytes that made Foundation's XMLParser read a null pointer.
        let bytes = Data("<?a?><model/>".utf8)
        #expect(bytes.count == 13)
        let (error, file) = try refusal(bytes)
        #expect(error.code == .invalidModel)
        #expect(error.message.contains(file.path), "\(error.message)")
        #expect(error.context.file?.path == file.path)
    }

    @Test(arguments: [
        "<?a?><model/>",
        "<?a?>\n<?b?><model></model>",
        "<model><?a?></model>",
        "<model/><?a?>",
        "<?xml version=\"1.0\"?><?a ?><model/>",
        "<?a",
        "<??><model/>",
        "<model><?x-y?><entity name=\"E\"/></model>",
    ])
    func processingInstructionVariantsNeverCrash(contents: String) throws {
        let (error, file) = try refusal(Data(contents.utf8))
        #expect(error.code == .invalidModel)
        #expect(error.message.contains(file.path), "\(error.message)")
    }

    @Test(arguments: [
        ("<!DOCTYPE model [<!ENTITY a \"b\">]><model/>", "document type"),
        ("<!DOCTYPE database><model/>", "document type"),
        ("<model>&a;</model>", "unknown entity"),
        ("<model a=\"1\" a=\"2\"/>", "two 'a' attributes"),
        ("<model><entity></model>", "does not close"),
        ("<model/><model/>", "follows the root element"),
        ("", "no root element"),
        ("<model>\u{1}</model>", "control character"),
    ])
    func malformedXMLIsRefusedWithItsReason(contents: String, reason: String) throws {
        let (error, file) = try refusal(Data(contents.utf8))
        #expect(error.code == .invalidModel)
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(error.message.contains(file.path), "\(error.message)")
    }

    @Test func deepNestingAndHugeAttributesAreRefused() throws {
        let deep = String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000)
        let (nested, _) = try refusal(Data(deep.utf8))
        #expect(nested.code == .invalidModel && nested.message.contains("nests deeper than 32 levels"), "\(nested.message)")

        let huge = "<model name=\"" + String(repeating: "x", count: 300 * 1024) + "\"/>"
        let (long, _) = try refusal(Data(huge.utf8))
        #expect(long.code == .invalidModel && long.message.contains("longer than"), "\(long.message)")

        var many = "<model"
        for index in 0..<200_000 { many += " a\(index)=\"\"" }
        many += "/>"
        let (crowded, _) = try refusal(Data(many.utf8))
        #expect(crowded.code == .invalidModel && crowded.message.contains("more than 1024 attributes"), "\(crowded.message)")
    }

    @Test func theLineOfAMistakeIsNamed() throws {
        let (error, _) = try refusal(Data("<model>\n<entity name=\"E\">\n\n</model>".utf8))
        #expect(error.message.contains("line 4"), "\(error.message)")
    }

    @Test(arguments: [
        "<?a?><plist/>",
        "<?xml version=\"1.0\"?><!DOCTYPE plist [<!ENTITY x \"y\">]><plist version=\"1.0\"><dict><key>_XCCurrentVersionName</key><string>&x;</string></dict></plist>",
        String(repeating: "<dict>", count: 10_000),
        "<plist><dict><key>_XCCurrentVersionName</key><string>A.xcdatamodel",
        "bplist00",
    ])
    func hostileCurrentVersionFilesAreRefused(contents: String) throws {
        let folder = try TemporaryFolder()
        let bundle = folder.file("Hostile.xcdatamodeld")
        let version = bundle.appendingPathComponent("A.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: try FixtureFiles.url("XcodeModels/Library.xcdatamodel/contents"), to: version.appendingPathComponent("contents"))
        let info = bundle.appendingPathComponent(".xccurrentversion")
        try Data(contents.utf8).write(to: info)
        let error = try #require(throws: QuireError.self) { try ManagedObjectModel(contentsOf: bundle) }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains(info.path), "\(error.message)")
    }
}
