import Foundation
import QuireSupport

extension ManagedObjectModel {
    /// The one frozen model of this content in the process: the first model interned with the same serialized
    /// representation (``serializedRepresentation()``), or this one, frozen, when it is the first.
    ///
    /// A frozen model lives for the rest of the process (object IDs refer to its entities without retaining
    /// them), so what reads a model from each store it opens (`quire`, ``ObjectGraphDump``,
    /// ``StoreVerification``, conversions, automatic migration) interns it: reading the same model from
    /// 100,000 documents keeps one.
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` when the model cannot be frozen.
    package func interned() throws -> ManagedObjectModel {
        if InternedModels.shared.contains(self) { return self }
        let content = try serializedRepresentation()
        return try InternedModels.shared.intern(self, content: content)
    }
}

/// The interned models of the process, by serialized content (see ``ManagedObjectModel/interned()``).
package final class InternedModels: Sendable {
    /// The table of the process.
    package static let shared = InternedModels()

    private struct State {
        var byContent: [Data: ManagedObjectModel] = [:]
        var identities: Set<ObjectIdentifier> = []
    }

    private let state = LockedValue(State())

    private init() {}

    /// Whether `model` is an interned model.
    func contains(_ model: ManagedObjectModel) -> Bool {
        state.withLock { $0.identities.contains(ObjectIdentifier(model)) }
    }

    /// The model interned for `content`, or `model` frozen and interned for it.
    func intern(_ model: ManagedObjectModel, content: Data) throws -> ManagedObjectModel {
        if let existing = state.withLock({ $0.byContent[content] }) { return existing }
        try model.freeze()
        return state.withLock { state in
            if let existing = state.byContent[content] { return existing }
            state.byContent[content] = model
            state.identities.insert(ObjectIdentifier(model))
            return model
        }
    }

    /// How many models are interned; for tests and benchmarks.
    package var count: Int { state.withLock { $0.byContent.count } }
}
