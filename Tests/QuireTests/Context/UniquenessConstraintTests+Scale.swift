import Foundation
import Testing

import Quire

extension UniquenessConstraintTests {
    /// Ten thousand people saved at once into a store that already holds ten thousand: every email checked against
    /// the others and the store (stored records looked up 200 values per fetch), and the one duplicate found.
    @Test func tenThousandInsertsAreCheckedTogether() throws {
        let stack = try Stack(.sqlite)
        let seed = stack.context()
        for index in 0..<10_000 { try Self.person(seed, email: "p\(index)@example.com", name: "P\(index)") }
        try seed.save()
        let context = stack.context()
        for index in 10_000..<20_000 { try Self.person(context, email: "p\(index)@example.com", name: "P\(index)") }
        try Self.person(context, email: "p42@example.com", name: "Again")
        let error = try #require(throws: QuireError.self) { try context.save() }
        #expect(error.constraintConflicts.count == 1)
        #expect(error.constraintConflicts.first?.constraintAttributeValues["email"] == .string("p42@example.com"))
    }
}
