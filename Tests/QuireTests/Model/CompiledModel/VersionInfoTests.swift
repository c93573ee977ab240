import QuireCore
import Foundation
import Testing

/// `.momd` folders: `VersionInfo.plist` and the current version's `.mom`.
@Suite("Model bundles")
struct VersionInfoTests {
    @Test("VersionInfo.plist hashes are the store's hashes")
    func versionInfo() throws {
        let info = try ModelVersionInfo(data: try CompiledModelFixtures.data("VersionInfo/SampleModel.VersionInfo.plist"))
        #expect(info.currentVersionName == "SampleModel")
        #expect(Set(info.versionHashes.keys) == ["SampleModel", "SampleModel2", "SampleModel3"])
        let schema = try CompiledModelFixtures.schema("SampleModel_V1")
        let hashes = try #require(info.versionHashes["SampleModel"])
        #expect(hashes.mapValues { $0.map { String(format: "%02x", $0) }.joined() } == schema.versionHashes)
        let third = try ModelVersionInfo(data: try CompiledModelFixtures.data("VersionInfo/SampleModel3.VersionInfo.plist"))
        #expect(third.versionHashes[third.currentVersionName ?? ""]?.keys.sorted() == ["User"])
    }

    @Test("A .momd folder decodes its current version with hashes")
    func momdFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compiled-model-\(UUID().uuidString).momd")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try CompiledModelFixtures.data("VersionInfo/SampleModel.VersionInfo.plist").write(to: folder.appendingPathComponent("VersionInfo.plist"))
        // A .mom is the model cache's archive, uncompressed.
        let mom = try RawInflate.inflate(try CompiledModelFixtures.modelCache("SampleModel_V1"))
        try mom.write(to: folder.appendingPathComponent("SampleModel.mom"))
        let model = try CompiledModelDecoder.decode(contentsOf: folder)
        let schema = try CompiledModelFixtures.schema("SampleModel_V1")
        for entity in model.entities {
            #expect(entity.versionHash?.map { String(format: "%02x", $0) }.joined() == schema.versionHashes[entity.name])
        }
        // The same .mom as a file.
        let file = try CompiledModelDecoder.decode(contentsOf: folder.appendingPathComponent("SampleModel.mom"))
        #expect(file.entities.map(\.name) == model.entities.map(\.name))
    }

    @Test("A current version name that leaves the folder is refused")
    func hostileVersionName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compiled-model-\(UUID().uuidString).momd")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "../../etc/passwd"], format: .binary, options: 0)
        try plist.write(to: folder.appendingPathComponent("VersionInfo.plist"))
        #expect(throws: CompiledModelError.self) { try CompiledModelDecoder.decode(contentsOf: folder) }
        let wrongType = try PropertyListSerialization.data(
            fromPropertyList: ["NSManagedObjectModel_VersionHashes": ["v": ["E": "not data"]]], format: .xml, options: 0)
        #expect(throws: CompiledModelError.self) { try ModelVersionInfo(data: wrongType) }
    }
}
