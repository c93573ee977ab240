import Testing
@testable import Quire
@Test func libraries() { #expect(!QuireLibraries.sqliteVersion.isEmpty) }
