import QuireCore
import Foundation

// `stalenessInterval` (`NSManagedObjectContext.stalenessInterval`): a fault fires from a row read earlier (the
// row its fetch left it, or one the coordinator cached) only while rows of that age are acceptable.
//
// ```swift
// context.stalenessInterval = 0      // every fault reads its store: another process's saves show at once
// context.stalenessInterval = 30     // rows up to 30 seconds old will do
// ```
//
// Rows carry no time of their own (a fault's row is 104 bytes of bookkeeping at most); they carry the
// coordinator's held-row generation, and the coordinator knows when that generation began. A row of the current
// generation was read after it began, so while the generation is younger than the interval its rows are fresh
// enough. Once it is older, the first fault of a context with that interval starts a new generation (every row
// held or cached until then counts as stale, for every context of the coordinator, and is read again when
// used) and reads its own record from the store: at most one generation per interval. An interval of 0 reads
// every fault from the store without ending the generation. Child contexts read through their parent and
// follow its interval.
//
// `shouldDeleteInaccessibleFaults` (`NSManagedObjectContext.shouldDeleteInaccessibleFaults`): Core Data raises
// `NSObjectInaccessibleException` when a fault's record is gone and the property is false; Quire never raises
// on a path input reaches (another process may delete the record). In both cases the object's attributes read
// nil (0 and false through typed accessors) and its relationships are empty, and `validatedValue(forKey:)`
// and `existingObject(with:)` throw `managedObjectReferentialIntegrity`; with the property true (the
// default) the object also reports `isDeleted`, as Core Data marks it deleted. It is not in `deletedObjects`:
// there is no record left for a save to delete.

extension ManagedObjectContext {
    /// Whether rows read before now may fill this context's faults under its ``stalenessInterval``: always for a
    /// negative interval, never for 0; for a positive interval while the coordinator's held-row generation is
    /// younger than it, after starting a new generation when it is not.
    func rowsReadEarlierAreFreshEnough() -> Bool {
        guard stalenessInterval >= 0 else { return true }
        // A child reads through its parent, whose own interval applies there.
        if parent != nil { return true }
        guard stalenessInterval > 0, let coordinator = persistentStoreCoordinator else { return false }
        return coordinator.heldRowsAreYounger(than: stalenessInterval)
    }
}
