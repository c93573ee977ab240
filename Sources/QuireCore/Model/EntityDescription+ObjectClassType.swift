extension EntityDescription {
    /// The class of the entity's objects as ``objectClass`` keeps it (nil for `ManagedObject` itself), read here,
    /// where the property is declared: a read from another module, inlined there, carries a dynamic exclusivity
    /// check (its `@exclusivity(unchecked)` does not cross the module), and every fetched object's instantiation
    /// reads it.
    package var objectClassType: AnyClass? { objectClass.type }
}
