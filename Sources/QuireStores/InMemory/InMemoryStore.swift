import QuireCore
import Foundation

/// The in-memory store (`NSInMemoryStoreType`): an atomic store without a file. Its records live as long as
/// it is attached; removing it discards them.
///
/// Used only under the coordinator's lock.
final class InMemoryStore: AtomicStore {

    override var persistsToFile: Bool { false }
}
