import QuireSupport
/// Something the decoder met and skipped or could not interpret fully: an unknown key or class, a value it
/// had to guess. Decoding goes on; the warning says where.
package struct DecodingWarning: Sendable, Hashable, CustomStringConvertible {
    /// Where: `"model"`, an entity name, or `"Entity.property"`.
    package var location: String
    /// What was met.
    package var message: String

    /// Creates a warning.
    package init(location: String, message: String) {
        self.location = location
        self.message = message
    }

    /// `location: message`.
    package var description: String { "\(location): \(message)" }
}
