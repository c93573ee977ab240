/// The row a fault is fired with, read by its key: packed by stores that read columns straight into the packed
/// form (SQLite), so the object keeps it as its values (``PackedRow``), or as arrays from the others.
package enum FaultRow {
    /// The row's values packed (or kept as arrays inside the packed row when one of them cannot be).
    case packed(PackedRowSnapshot)
    /// The row as arrays of values.
    case arrays(RowSnapshot)
}
