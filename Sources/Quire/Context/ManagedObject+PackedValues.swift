import QuireCore

extension ManagedObject {
    // MARK: Values kept packed after a fault fires

    // A fault made by a fetch keeps its row packed (`heldRow`). When it fires, the packed row stays as the
    // object's values (while `faultFlag` is false, a `heldRow` is the object's values, and the arrays are
    // empty): reads decode the one value they ask for, and the first access to the arrays (a change, a save,
    // a merge, undo) unpacks the row into them and lets it go. A clean object that was only read keeps its
    // values in one allocation (strings and data inline) rather than as arrays of `AttributeValue`s with an
    // allocation for every string and data value.

    /// Attribute values by slot, unpacked from the packed values first if the object still has them; empty
    /// while the object is a fault.
    var attributeStorage: [AttributeValue] {
        get {
            unpackValuesIfNeeded()
            return storedAttributes
        }
        _modify {
            unpackValuesIfNeeded()
            yield &storedAttributes
        }
    }

    /// Relationship values by slot, unpacked from the packed values first if the object still has them;
    /// empty while the object is a fault.
    var relationshipStorage: [RelationshipStorage] {
        get {
            unpackValuesIfNeeded()
            return storedRelationships
        }
        _modify {
            unpackValuesIfNeeded()
            yield &storedRelationships
        }
    }

    /// The packed row that holds a fired object's values, or `nil` when they are in the arrays (or the object
    /// is a fault).
    var packedValues: PackedRow? { faultFlag ? nil : heldRow }

    /// `value(forKey:)` of a plain attribute (``EntityDescription/isPlainAttribute(at:)``) decoded straight from
    /// the packed values, firing the fault first; `.none` when the values are not packed.
    @inline(__always)
    func packedAnyValue(at slot: Int) -> Any?? {
        fireFaultIfNeeded()
        guard let packed = heldRow else { return .none }
        return packed.anyAttribute(at: slot)
    }

    /// Moves packed values into the arrays, if the object still has them packed.
    @inline(__always)
    func unpackValuesIfNeeded() {
        if !faultFlag, let packed = heldRow { unpackValues(packed) }
    }

    @inline(never)
    private func unpackValues(_ packed: PackedRow) {
        heldRow = nil
        (storedAttributes, storedRelationships) = packed.unpacked()
    }
}
