import QuireCore
import QuireStores

extension ManagedObjectContext {
    /// `materialize(_:asFault:heldRowGeneration:)` for a row read in its packed form: the packed row becomes the
    /// object's values as it is. A fault keeps it as its row (stamped with the coordinator's held-row
    /// generation, `heldRowGeneration`, for a root context's fault fetch); an object fetched filled keeps it as
    /// its values, as a fired fault does (`ManagedObject+PackedValues.swift`): reads decode the one value they ask
    /// for, and the first change, save, merge or undo unpacks it into the arrays. A row kept as arrays (a value
    /// the packing does not cover) gives its arrays to the object.
    func materialize(
        _ row: consuming PackedRowSnapshot, asFault: Bool, heldRowGeneration: Int?
    ) -> (ManagedObject, awakes: Bool) {
        let id = row.objectID
        let (object, isNew) = registeredObject(for: id)
        object.recentlyFetched = true
        let values = row.values
        if let heldRowGeneration, isNew || (object.faultFlag && !object.faultHoldsRow) {
            values.header.generation = heldRowGeneration
            object.heldRow = values
            object.storedAttributes = []
            object.storedRelationships = []
            object.version = row.version
            object.faultFlag = true
        } else if asFault && isNew {
            object.storedAttributes = []
            object.storedRelationships = []
            object.faultFlag = true
        } else if isNew || (object.faultFlag && !asFault) {
            load(object, packed: values, version: row.version)
            return (object, true)
        }
        return (object, false)
    }

    /// Gives an object a packed row as its values, as a filled fetched object or a fired fault keeps them: the
    /// packed row as it is, or the arrays of a row kept as arrays. It is no longer a fault.
    @inline(__always)
    func load(_ object: ManagedObject, packed values: PackedRow, version: Int64) {
        object.recordIsMissing = false
        if values.isPacked {
            object.storedAttributes = []
            object.storedRelationships = []
            object.heldRow = values
        } else {
            object.heldRow = nil
            (object.storedAttributes, object.storedRelationships) = values.unpacked()
        }
        object.version = version
        object.faultFlag = false
    }
}
