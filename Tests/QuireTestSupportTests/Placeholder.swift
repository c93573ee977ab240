import Testing
import QuireTestSupport
@Test func placeholder() {}
