import QuireCore
import QuireStores
import Foundation

extension PersistentStoreCoordinator {
    /// Whether the rows held by faults and cached by this coordinator were all read within `interval` seconds;
    /// when they may not have been, starts a new held-row generation and empties the row cache, so rows read from
    /// now on are.
    func heldRowsAreYounger(than interval: TimeInterval) -> Bool {
        locked {
            let age = (ContinuousClock.Instant.now - heldRowGenerationStart).components
            if Double(age.seconds) + Double(age.attoseconds) * 1e-18 <= interval { return true }
            heldRowGeneration += 1
            rowCache = [:]
            return false
        }
    }
}
