import QuireCore

/// What lets `ManagedObject(entity:insertInto:)` make an object of the entity's own class: Swift class
/// initializers cannot return an instance of a subclass, initializers of a protocol extension can (they assign
/// `self`). ``ManagedObject`` is the only type that conforms; there is nothing to implement.
public protocol ManagedObjectInstantiating {}

extension ManagedObject: ManagedObjectInstantiating {}

extension ManagedObjectInstantiating where Self: ManagedObject {
    /// Creates an object of an entity and inserts it into a context when one is given
    /// (`init(entity:insertInto:)`). Its attributes start at their defaults.
    ///
    /// The object is an instance of the entity's ``EntityDescription/managedObjectClass`` when that class is
    /// this class or a subclass of it, so `ManagedObject(entity: runEntity, insertInto: context)` makes a
    /// `Run` whose `awakeFromInsert()`, `willSave()`, `validateForInsert()` and `prepareForDeletion()`
    /// overrides run; otherwise it is an instance of this class.
    ///
    /// - Parameters:
    ///   - entity: The object's entity. It must not be abstract.
    ///   - context: The context to insert it into, or `nil` to insert it later with
    ///     ``ManagedObjectContext/insert(_:)``.
    public init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self = Self.instantiate(entity)
        if let context {
            context.insert(self)
        } else if entity.isFrozen {
            // Kept by the application outside any context: the object's ID keeps the entity's model alive.
            objectID = .unassigned(for: entity, keepingAlive: true)
        }
    }

    /// An object of the entity's class when it is `Self` or a subclass of it, else of `Self`, in no context.
    private static func instantiate(_ entity: EntityDescription) -> Self {
        let objectClass = entity.managedObjectClass
        if objectClass != Self.self, let subclass = objectClass as? Self.Type {
            return subclass.init(entity: entity)
        }
        return Self(entity: entity)
    }
}

extension EntityDescription {
    /// Creates an object of the named entity of the context's model, of the entity's
    /// ``managedObjectClass``, and inserts it (`NSEntityDescription.insertNewObject(forEntityName:into:)`).
    ///
    /// ```swift
    /// let run = EntityDescription.insertNewObject(forEntityName: "Run", into: context) as! Run
    /// ```
    ///
    /// An entity name the model lacks is a programmer error, as in Core Data (which raises): it traps naming
    /// the entity. For a name that comes from input (a file, an argument), look the entity up in the model's
    /// `entitiesByName` and use `ManagedObject(entity:insertInto:)`. The context must have a coordinator
    /// or a parent.
    ///
    /// - Parameters:
    ///   - entityName: The entity's name.
    ///   - context: The context to insert the object into.
    /// - Returns: The inserted object.
    @discardableResult
    public static func insertNewObject(forEntityName entityName: String, into context: ManagedObjectContext) -> ManagedObject {
        guard let entity = context.coordinatorOrFail().managedObjectModel.entitiesByName[entityName] else {
            preconditionFailure("The context's model has no entity named '\(entityName)'.")
        }
        return ManagedObject(entity: entity, insertInto: context)
    }
}
