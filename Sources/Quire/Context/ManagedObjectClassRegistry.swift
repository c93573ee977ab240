import QuireCore
import QuireSupport
import Foundation

/// Binds the entities of models to ``ManagedObject`` subclasses by the class names the models give them
/// (`representedClassName` in an Xcode model, ``EntityDescription/managedObjectClassName`` in code), as Core Data
/// finds an entity's class by name.
///
/// A model made in Xcode names classes as `Module.Class` (or `Class` with no module). Register each class once,
/// before the model's first coordinator is made:
///
/// ```swift
/// ManagedObjectClassRegistry.register(Mood.self, Country.self, Continent.self)
/// let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)   // Mood entities are Moods
/// ```
///
/// A class registers under its module-qualified name (`MoodyModel.Mood`) and its bare name (`Mood`), so that a
/// model's `MoodyModel.Mood` finds it whatever module it is compiled in (a test target, a renamed module); a name
/// that matches neither can be given with ``register(_:forClassName:)``. A qualified name nobody registered is
/// still found when a class of that name exists in a loaded module (`NSClassFromString`), so an app whose module
/// has the model's module name needs no registration at all.
///
/// A ``PersistentStoreCoordinator`` binds its model when it is made: every entity whose class is still
/// ``ManagedObject`` and whose class name finds a class gets it as ``EntityDescription/managedObjectClass``
/// (a class set in code is kept). A model already frozen by an earlier coordinator keeps the classes it had.
/// The class must be ``ManagedObject`` or a subclass; ``ManagedObject/entity()`` then finds the entity.
public enum ManagedObjectClassRegistry {
    private struct State {
        var classesByName: [String: ManagedObject.Type] = [:]
        var entitiesByClass: [ObjectIdentifier: EntityDescription] = [:]
    }

    private static let state = LockedValue(State())

    /// Registers classes under their module-qualified and bare names (`MoodyModel.Mood` and `Mood`).
    ///
    /// - Parameter classes: `ManagedObject` subclasses.
    public static func register(_ classes: ManagedObject.Type...) {
        for type in classes {
            register(type, forClassName: String(reflecting: type))
            register(type, forClassName: String(describing: type))
        }
    }

    /// Registers a class under one class name, replacing any class registered under it.
    ///
    /// - Parameters:
    ///   - type: A `ManagedObject` subclass.
    ///   - className: The name a model gives the class (`representedClassName`).
    public static func register(_ type: ManagedObject.Type, forClassName className: String) {
        state.withLock { $0.classesByName[className] = type }
    }

    /// The class registered under a name; for a qualified name (`Module.Class`) that was not registered, the class
    /// registered under its last component, or else a `ManagedObject` subclass of that name in a loaded module.
    ///
    /// - Parameter className: A class name as a model gives it.
    /// - Returns: The class, or nil when none is known.
    public static func registeredClass(forClassName className: String) -> ManagedObject.Type? {
        let registered = state.withLock { state -> ManagedObject.Type? in
            if let type = state.classesByName[className] { return type }
            guard let dot = className.lastIndex(of: ".") else { return nil }
            return state.classesByName[String(className[className.index(after: dot)...])]
        }
        if let registered { return registered }
        guard className.contains(".") else { return nil }
        return NSClassFromString(className) as? ManagedObject.Type
    }

    /// The entity a class was last bound to (by a coordinator's model, or by setting
    /// ``EntityDescription/managedObjectClass``).
    static func entity(for type: ManagedObject.Type) -> EntityDescription? {
        state.withLock { $0.entitiesByClass[ObjectIdentifier(type)] }
    }

    /// Records that an entity's objects are of a class.
    static func noteBinding(_ type: ManagedObject.Type, to entity: EntityDescription) {
        guard type != ManagedObject.self else { return }
        state.withLock { $0.entitiesByClass[ObjectIdentifier(type)] = entity }
    }

    /// Gives the entities of an editable model the classes their class names find (those still of
    /// `ManagedObject`), and records every entity's class for ``ManagedObject/entity()``.
    static func bindClasses(of model: ManagedObjectModel) {
        for entity in model.entities {
            if entity.objectClassType == nil, !entity.isFrozen, let name = entity.managedObjectClassName,
                let type = registeredClass(forClassName: name)
            {
                entity.managedObjectClass = type
            }
            noteBinding(entity.managedObjectClass, to: entity)
        }
    }
}

extension ManagedObject {
    /// The entity whose objects are of this class (`entity()`): the one a coordinator's model bound it to (see
    /// ``ManagedObjectClassRegistry``) or that names it as its ``EntityDescription/managedObjectClass``.
    ///
    /// ```swift
    /// let request = FetchRequest<Mood>()
    /// request.entity = Mood.entity()
    /// ```
    ///
    /// A class no model's entity uses is a programmer error, as in Core Data: it traps naming the class.
    public class func entity() -> EntityDescription {
        guard let entity = ManagedObjectClassRegistry.entity(for: self) else {
            preconditionFailure("No entity of a model in use has the class \(String(reflecting: self)): register it "
                + "(ManagedObjectClassRegistry.register) or set the entity's managedObjectClass before the model's coordinator is made.")
        }
        return entity
    }
}

extension ManagedObjectInstantiating where Self: ManagedObject {
    /// A fetch request for the objects of this class's entity (`fetchRequest()`), typed by the class.
    ///
    /// ```swift
    /// let request: FetchRequest<Mood> = Mood.fetchRequest()
    /// ```
    public static func fetchRequest() -> FetchRequest<Self> {
        let request = FetchRequest<Self>()
        request.entity = entity()
        return request
    }
}
