import CSQLite
import Testing

@_spi(QuireEngine) import QuireStores

/// The shared SQL layer writes SQLite's storage-class codes out (``SQLStorageClass``) so that it and the
/// PostgreSQL row cursor need no SQLite C module; the SQLite store's statements answer SQLite's own constants.
/// They must be the same numbers, or every SQLite row would read as damaged.
@Suite struct SQLStorageClassTests {
    @Test func codesAreSQLitesOwn() {
        #expect(SQLStorageClass.integer == SQLITE_INTEGER)
        #expect(SQLStorageClass.float == SQLITE_FLOAT)
        #expect(SQLStorageClass.text == SQLITE_TEXT)
        #expect(SQLStorageClass.blob == SQLITE_BLOB)
        #expect(SQLStorageClass.null == SQLITE_NULL)
    }
}
