import QuireCore

extension EntityDescription {
    /// Creates an entity whose objects are instances of a ``ManagedObject`` subclass.
    ///
    /// ```swift
    /// let run = EntityDescription(name: "Run", managedObjectClass: Run.self)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The entity's name.
    ///   - properties: Its own attributes and relationships.
    ///   - managedObjectClass: The class of its objects.
    public convenience init(name: String, properties: [PropertyDescription] = [], managedObjectClass: ManagedObject.Type) {
        self.init(name: name, properties: properties)
        self.managedObjectClass = managedObjectClass
    }

    /// The class instantiated for the entity's objects: ``ManagedObject`` or a typed subclass.
    public var managedObjectClass: ManagedObject.Type {
        get {
            guard let type = objectClassType else { return ManagedObject.self }
            // Safe: `objectClass.type` (`objectClassType`) is only ever written by this setter, from a `ManagedObject.Type`, and a
            // class metatype has the same one-pointer layout whatever its static type. The unchecked cast
            // keeps a dynamic cast off the path that instantiates every fetched object.
            return unsafeBitCast(type, to: ManagedObject.Type.self)
        }
        set {
            objectClass = newValue == ManagedObject.self
                ? .base : .init(type: newValue, keysWithValidationMethods: newValue.keysWithValidationMethods)
            ManagedObjectClassRegistry.noteBinding(newValue, to: self)
        }
    }
}
