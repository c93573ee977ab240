import Foundation
import QuireTestSupport
import Testing

@Suite struct TemporaryFolderTests {
    @Test func folderExistsWhileHeldAndIsRemovedAfter() throws {
        var path = ""
        do {
            let folder = try TemporaryFolder()
            path = folder.url.path
            try Data("x".utf8).write(to: folder.file("a.txt"))
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
            #expect(folder.file("a.txt").lastPathComponent == "a.txt")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
