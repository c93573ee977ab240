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

    /// The packed row that holds a fired object's values (``packedValues``), unretained: nil when its values are
    /// in the arrays or it is a fault. Such a row is always packed (a row kept as arrays gives its arrays to the
    /// object instead: `load(_:packed:version:)`, `fulfillFaultThrowing(of:)`). Read it with
    /// ``packedAnyValue(at:in:)`` while the object is alive and keeps the row.
    @inline(__always)
    var unretainedPackedValues: Unmanaged<PackedRow>? {
        if faultFlag { return nil }
        return withExtendedLifetime(heldRow) { $0.map { Unmanaged.passUnretained($0) } }
    }

    /// `value(forKey:)` of a plain attribute (``EntityDescription/isPlainAttribute(at:)``) decoded straight from
    /// the packed row `row` (``unretainedPackedValues``), made once, straight into the caller's result.
    @inline(__always)
    func packedAnyValue(at slot: Int, in row: Unmanaged<PackedRow>) -> Any? {
        // Safe: `row` is the object's `heldRow`, which the object holds strongly, and the object is alive for the
        // call (`self` is guaranteed); `anyAttribute(at:)` never touches the object, so nothing can release the
        // row while it runs. Skips a retain and a release per value read.
        row._withUnsafeGuaranteedRef { $0.anyAttribute(at: slot) }
    }

    /// The attribute value of a slot decoded from the packed row the object holds (its values, or a fault's
    /// row when its context is gone); nil when it holds none. Call after firing the fault.
    @inline(__always)
    func packedAttributeValue(at slot: Int) -> AttributeValue? {
        withHeldRow { $0?.attribute(at: slot) }
    }

    /// Calls `body` with the held row, without retaining it for the call.
    @inline(__always)
    private func withHeldRow<Result>(_ body: (PackedRow?) -> Result) -> Result {
        // Safe: the object holds the row strongly and is itself alive for the call (`self` is guaranteed), and
        // the row's readers (`PackedRow.attribute(at:)`, `anyAttribute(at:)`) never touch the object, so nothing
        // can release `heldRow` while `body` runs. Skips a retain and a release per value read.
        guard let address = withExtendedLifetime(heldRow, { $0.map { Unmanaged.passUnretained($0) } }) else { return body(nil) }
        return address._withUnsafeGuaranteedRef { body($0) }
    }

    /// Moves packed values into the arrays, if the object still has them packed.
    @inline(__always)
    func unpackValuesIfNeeded() {
        if !faultFlag, let packed = heldRow { unpackValues(packed) }
    }

    @inline(never)
    private func unpackValues(_ packed: PackedRow) {
        heldRow = nil
        (storedAttributes, storedRelationships) = packed.unpacked(owner: objectID.idOwner)
    }
}
