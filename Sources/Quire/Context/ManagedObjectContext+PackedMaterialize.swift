@_spi(QuireEngine) import QuireCore
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
        // The row's ID and values move into the object: no retain of the ID's owner or of the row, and none
        // released when the row goes.
        let (id, version, values) = row.parts()
        let (object, isNew) = registeredObject(taking: id)
        object.recentlyFetched = true
        switch materializeStep(object, isNew: isNew, asFault: asFault, heldRowGeneration: heldRowGeneration) {
        case .holdRow(let generation):
            values.header.generation = generation
            makeFault(object, holding: values, version: version)
        case .emptyFault:
            makeFault(object, holding: nil, version: object.version)
        case .fill:
            load(object, packed: values, version: version)
            return (object, true)
        case .keep:
            break
        }
        return (object, false)
    }

    /// ``registeredObject(for:)`` for an ID the caller gives up: a new object takes it as it is, and is made
    /// without retaining its entity.
    @inline(__always)
    func registeredObject(taking id: consuming ObjectID) -> (ManagedObject, isNew: Bool) {
        switch registry.lookup(id) {
        case .found(let existing):
            return (existing, false)
        case .vacant(let slot):
            let object = id.withEntity { entity in entity.managedObjectClass.init(entity: entity) }
            object.objectID = id
            object.managedObjectContext = self
            registry.fill(slot, with: object)
            return (object, true)
        }
    }

    /// What materializing a fetched row does to the object it names, for rows packed or as arrays.
    enum MaterializeStep {
        /// A fault that keeps the row (stamped with this held-row generation): a new object, or a fault that
        /// holds none, in a root context's fault fetch.
        case holdRow(generation: Int)
        /// A new fault without a row (a fault fetch that keeps no rows: a child context's).
        case emptyFault
        /// The row becomes the object's values: a new object, or a fault, fetched filled.
        case fill
        /// The object keeps what it has (it is registered and filled, or a fault with its own row).
        case keep
    }

    /// The step for an object a fetch returned (`isNew` when the fetch registered it).
    @inline(__always)
    func materializeStep(_ object: ManagedObject, isNew: Bool, asFault: Bool, heldRowGeneration: Int?) -> MaterializeStep {
        if let heldRowGeneration, isNew || (object.faultFlag && !object.faultHoldsRow) { return .holdRow(generation: heldRowGeneration) }
        if asFault && isNew { return .emptyFault }
        if isNew || (object.faultFlag && !asFault) { return .fill }
        return .keep
    }

    /// Makes an object a fault holding `row` (nil: no row) read at `version`: no values of its own.
    @inline(__always)
    func makeFault(_ object: ManagedObject, holding row: consuming PackedRow?, version: Int64) {
        if row != nil { object.heldRow = row }
        object.storedAttributes = []
        object.storedRelationships = []
        object.version = version
        object.faultFlag = true
    }

    /// Gives an object a packed row as its values, as a filled fetched object or a fired fault keeps them: the
    /// packed row as it is, or the arrays of a row kept as arrays. It is no longer a fault.
    @inline(__always)
    func load(_ object: ManagedObject, packed values: consuming PackedRow, version: Int64) {
        object.recordIsMissing = false
        if values.isPacked {
            object.storedAttributes = []
            object.storedRelationships = []
            object.heldRow = values
        } else {
            object.heldRow = nil
            (object.storedAttributes, object.storedRelationships) = values.unpacked(owner: object.objectID.idOwner)
        }
        object.version = version
        object.faultFlag = false
    }
}
