import QuireCore

/// A position in the persistent history of a coordinator's stores (`NSPersistentHistoryToken`): for each
/// store, by its UUID, the number of the last transaction seen. `Codable`, so an app keeps it in a file or
/// user defaults between launches (Core Data's token needs `NSSecureCoding`).
public struct PersistentHistoryToken: Codable, Hashable, Sendable {
    /// The last transaction number seen, per store UUID.
    public let transactionNumbers: [String: Int64]

    /// Creates a token from its numbers.
    public init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
    }
}
