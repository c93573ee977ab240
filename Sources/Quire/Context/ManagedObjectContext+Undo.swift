import QuireCore
import QuireStores
import Foundation

/// A context's undo bookkeeping: its undo manager, the temporary IDs its saves made permanent (so that
/// relationship values recorded before a save are restored with the saved IDs), and a count of saves.
final class ContextUndoState {
    /// Read by every attribute change; used only on the context's queue, so its accesses are not checked at run time.
    @exclusivity(unchecked) var undoManager: UndoManager?
    /// Temporary ID to permanent ID, for every object saved while an undo manager was set.
    var permanentIDs: [ObjectID: ObjectID] = [:]
    /// How many saves the context has completed; documents compare it to know whether they are edited.
    var saveCount = 0
}

extension ManagedObjectContext {
    /// The undo manager that records the context's changes (`undoManager`); `nil` (the default) records
    /// nothing and costs nothing.
    ///
    /// Every insert, delete and property change is recorded, transient attributes included, as in Core Data.
    /// Undoing a relationship change restores both sides; undoing an insert removes the object (deletes it,
    /// once saved); undoing a delete brings the object back (re-inserts it, once saved).
    ///
    /// ```swift
    /// context.undoManager = UndoManager()
    /// let note = ManagedObject(entity: noteEntity, insertInto: context)
    /// context.undo()     // the note leaves the context
    /// context.redo()     // and comes back
    /// ```
    public var undoManager: UndoManager? {
        get { undoState.undoManager }
        set {
            undoState.undoManager = newValue
            // Objects inserted since the last posted changes store their values without registering undo
            // (`insertionNotePending`); from now on their changes are recorded.
            if newValue != nil { for object in changeNotes.inserted { object.insertionNotePending = false } }
        }
    }

    /// Undoes the last group of changes (`undo()`).
    public func undo() { undoManager?.undo() }

    /// Redoes the last undone group of changes (`redo()`).
    public func redo() { undoManager?.redo() }

    // MARK: Hooks called by the context and its objects

    /// After an object was inserted.
    func registerUndoForInsert(_ object: ManagedObject) {
        guard let undoManager = undoState.undoManager else { return }
        undoManager.registerUndo(withTarget: self) { context in context.undoInsert(of: object) }
    }

    /// After an object was marked deleted.
    func registerUndoForDelete(_ object: ManagedObject) {
        guard let undoManager = undoState.undoManager else { return }
        undoManager.registerUndo(withTarget: self) { context in context.undoDelete(of: object) }
    }

    /// Before an attribute value changes.
    func registerUndoForAttribute(_ object: ManagedObject, slot: Int, newValue: AttributeValue) {
        guard let undoManager = undoState.undoManager, slot < object.attributeStorage.count else { return }
        let old = object.attributeStorage[slot]
        guard old != newValue else { return }
        undoManager.registerUndo(withTarget: self) { context in
            guard object.managedObjectContext === context else { return }
            object.setAttributeValue(old, at: slot)
        }
    }

    /// Before an object's relationship values change: records them all (both sides of a change are recorded,
    /// each by its own object).
    func registerUndoForRelationships(_ object: ManagedObject) {
        guard let undoManager = undoState.undoManager, !object.faultFlag else { return }
        let old = object.relationshipStorage
        let oldDeferred = object.deferredMembers
        undoManager.registerUndo(withTarget: self) { context in
            guard object.managedObjectContext === context else { return }
            var restored = old
            let map = context.undoState.permanentIDs
            if !map.isEmpty { restored.indices.forEach { restored[$0].remap(map) } }
            object.willChangeRelationships()
            object.relationshipStorage = restored
            object.deferredMembers = oldDeferred
        }
    }

    /// At the end of `processPendingChanges()`: the event's changes are complete.
    func endUndoEvent() {
        undoState.undoManager?.endEvent()
    }

    /// When a save completed, before objects get their permanent IDs.
    func undoWillFinishSave(_ request: SaveRequest, _ result: SaveResult) {
        undoState.saveCount += 1
        guard undoState.undoManager != nil, !request.inserted.isEmpty else { return }
        for (change, id) in zip(request.inserted, result.permanentIDs) { undoState.permanentIDs[change.objectID] = id }
    }

    // MARK: Undo actions

    private func undoInsert(of object: ManagedObject) {
        guard object.managedObjectContext === self else { return }
        guard object.insertedFlag else {
            // Saved since: undoing the insert deletes it (and registers the re-insert).
            delete(object)
            return
        }
        unregister(object)
        changeLog.removeAll { $0 === object }
        changeLogIndex.invalidate()
        pendingDeletes.removeAll { $0 === object }
        storeAssignments[ObjectIdentifier(object)] = nil
        object.isInChangeLog = false
        object.insertedFlag = false
        object.deletedFlag = false
        object.managedObjectContext = nil
        undoState.undoManager?.registerUndo(withTarget: self) { context in context.redoInsert(of: object) }
    }

    private func redoInsert(of object: ManagedObject) {
        guard object.managedObjectContext == nil else { return }
        object.managedObjectContext = self
        object.insertedFlag = true
        object.deletedFlag = false
        object.faultFlag = false
        noteChange(object)
        register(object)
        registerUndoForInsert(object)
    }

    private func undoDelete(of object: ManagedObject) {
        if object.managedObjectContext === self && object.deletedFlag {
            object.deletedFlag = false
            pendingDeletes.removeAll { $0 === object }
            undoState.undoManager?.registerUndo(withTarget: self) { context in context.delete(object) }
        } else if object.managedObjectContext == nil {
            // The delete was saved: the object comes back as a new insert.
            insert(object)
        }
    }
}
