import QuireCore
import QuireStores
/// Records changes as groups of actions that undo them, and replays them backwards and forwards
/// (`NSUndoManager`, which Foundation on Linux does not have).
///
/// ```swift
/// let undoManager = UndoManager()
/// context.undoManager = undoManager
/// note.setValue("Draft", forKey: "title")       // registers an action that sets the old title back
/// undoManager.setActionName("Rename")
/// undoManager.undo()                             // the old title again; redo() sets "Draft" again
/// ```
///
/// With ``groupsByEvent`` (the default) the first action registered outside any group opens a group that
/// stays open until the current event ends. Linux has no run loop to end events, so an event ends with
/// ``endEvent()``, a context's `processPendingChanges()` or `save()`, or ``undo()`` itself. Explicit
/// ``beginUndoGrouping()`` / ``endUndoGrouping()`` pairs group and nest as on the Mac.
///
/// Not `Sendable`: an undo manager belongs to its context's queue, like the context.
public final class UndoManager {
    private final class Group {
        var actions: [Action] = []
        var actionName = ""
        /// The position the group's changes lead to (see ``UndoManager/changePosition``); a group undone and
        /// redone keeps its position.
        var position = 0
    }

    private struct Action {
        weak var target: AnyObject?
        let handler: (AnyObject) -> Void
    }

    private enum State {
        case idle
        case undoing
        case redoing
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    private var openGroups: [Group] = []
    private var eventGroupIsOpen = false
    private var state = State.idle
    private var disableCount = 0
    /// The position with nothing left to undo: 0, or the position of the last group trimmed away.
    private var basePosition = 0
    /// The last position handed to a new group.
    private var lastPosition = 0

    /// Whether the first action registered outside a group opens a group for the current event (default `true`).
    public var groupsByEvent = true
    /// The most groups kept for undo; 0 (the default) keeps every group. The oldest go first.
    public var levelsOfUndo = 0 {
        didSet { trim() }
    }

    /// Creates an undo manager with nothing to undo.
    public init() {}

    // MARK: State

    /// How many groups are open (0 outside any group).
    public var groupingLevel: Int { openGroups.count }
    /// Whether actions are being undone.
    public var isUndoing: Bool { state == .undoing }
    /// Whether actions are being redone.
    public var isRedoing: Bool { state == .redoing }
    /// Whether registrations are recorded (see ``disableUndoRegistration()``).
    public var isUndoRegistrationEnabled: Bool { disableCount == 0 }
    /// Whether ``undo()`` would do something.
    public var canUndo: Bool { !undoStack.isEmpty || openGroups.first.map { !$0.actions.isEmpty } == true }
    /// Whether ``redo()`` would do something.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// Where the undo history stands: a number that changes with every group of changes recorded, undone or
    /// redone, and comes back to an earlier value when undo and redo come back to that state. A document
    /// remembers it when it is saved and is edited while it differs (what `NSDocument`'s change count does
    /// with `updateChangeCount(_:)`). Actions registered in a group still open are not counted: see
    /// ``hasOpenChanges``.
    public var changePosition: Int { undoStack.last?.position ?? basePosition }

    /// Whether a group still open (the current event's) has actions recorded.
    public var hasOpenChanges: Bool { openGroups.contains { !$0.actions.isEmpty } }

    /// Stops recording registrations until a matching ``enableUndoRegistration()``; calls nest.
    public func disableUndoRegistration() { disableCount += 1 }

    /// Resumes recording registrations.
    public func enableUndoRegistration() {
        precondition(disableCount > 0, "enableUndoRegistration() without a matching disableUndoRegistration().")
        disableCount -= 1
    }

    // MARK: Grouping

    /// Opens a group; the actions registered until the matching ``endUndoGrouping()`` are undone together.
    public func beginUndoGrouping() {
        openGroups.append(Group())
    }

    /// Closes the innermost open group: a top-level group joins the undo stack (unless empty), a nested one
    /// joins its parent.
    public func endUndoGrouping() {
        precondition(!openGroups.isEmpty, "endUndoGrouping() without an open undo group.")
        let group = openGroups.removeLast()
        guard let parent = openGroups.last else {
            eventGroupIsOpen = false
            commit(group)
            return
        }
        parent.actions += group.actions
        if parent.actionName.isEmpty { parent.actionName = group.actionName }
    }

    /// Ends the current event: closes the group that ``groupsByEvent`` opened, if one is open.
    public func endEvent() {
        if eventGroupIsOpen && openGroups.count == 1 { endUndoGrouping() }
    }

    private func commit(_ group: Group) {
        guard !group.actions.isEmpty else { return }
        switch state {
        case .undoing:
            redoStack.append(group)
        case .redoing:
            undoStack.append(group)
            trim()
        case .idle:
            lastPosition += 1
            group.position = lastPosition
            undoStack.append(group)
            trim()
        }
    }

    private func trim() {
        if levelsOfUndo > 0 && undoStack.count > levelsOfUndo {
            basePosition = undoStack[undoStack.count - levelsOfUndo - 1].position
            undoStack.removeFirst(undoStack.count - levelsOfUndo)
        }
        if levelsOfUndo > 0 && redoStack.count > levelsOfUndo { redoStack.removeFirst(redoStack.count - levelsOfUndo) }
    }

    // MARK: Registering

    /// Records an action that undoes a change: `handler` is called with `target` on ``undo()``, and registers
    /// the opposite action itself, which ``redo()`` then replays. The target is held weakly; an action whose
    /// target is gone is skipped.
    ///
    /// A registration outside undo and redo clears what could be redone.
    ///
    /// - Parameters:
    ///   - target: The object the action works on.
    ///   - handler: The action.
    public func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        if openGroups.isEmpty {
            precondition(groupsByEvent, "registerUndo needs an open undo group when groupsByEvent is false.")
            beginUndoGrouping()
            eventGroupIsOpen = true
        }
        if state == .idle { redoStack.removeAll() }
        openGroups[openGroups.count - 1].actions.append(
            Action(target: target) { object in
                if let target = object as? Target { handler(target) }
            })
    }

    /// Names the action of the open group (or, with none open, of the group ``undo()`` would undo), for
    /// menu titles such as "Undo Rename".
    public func setActionName(_ name: String) {
        if let group = openGroups.first {
            group.actionName = name
        } else {
            undoStack.last?.actionName = name
        }
    }

    /// The name of the action ``undo()`` would undo ("" when unnamed).
    public var undoActionName: String { openGroups.first?.actionName ?? undoStack.last?.actionName ?? "" }
    /// The name of the action ``redo()`` would redo.
    public var redoActionName: String { redoStack.last?.actionName ?? "" }
    /// "Undo" followed by the action's name.
    public var undoMenuItemTitle: String { undoActionName.isEmpty ? "Undo" : "Undo \(undoActionName)" }
    /// "Redo" followed by the action's name.
    public var redoMenuItemTitle: String { redoActionName.isEmpty ? "Redo" : "Redo \(redoActionName)" }

    // MARK: Undoing

    /// Undoes the last group (closing the event's group first), recording its opposite for ``redo()``.
    ///
    /// Calling it while an explicit group is open is a programmer error.
    public func undo() {
        endEvent()
        undoNestedGroup()
    }

    /// Undoes the last group on the undo stack.
    public func undoNestedGroup() {
        precondition(state == .idle, "undo() called while undoing or redoing.")
        precondition(openGroups.isEmpty, "undo() called with an open undo group; end the group first.")
        guard let group = undoStack.popLast() else { return }
        replay(group, as: .undoing)
    }

    /// Redoes the last undone group, recording its opposite for ``undo()``.
    public func redo() {
        precondition(state == .idle, "redo() called while undoing or redoing.")
        endEvent()
        precondition(openGroups.isEmpty, "redo() called with an open undo group; end the group first.")
        guard let group = redoStack.popLast() else { return }
        replay(group, as: .redoing)
    }

    private func replay(_ group: Group, as replayState: State) {
        state = replayState
        let collector = Group()
        collector.actionName = group.actionName
        // Undoing a group leads back to the position below it; its redo leads to the group's position again.
        collector.position = group.position
        openGroups = [collector]
        for action in group.actions.reversed() {
            if let target = action.target { action.handler(target) }
        }
        openGroups = []
        commit(collector)
        state = .idle
    }

    /// Forgets everything that could be undone or redone, and any open group.
    public func removeAllActions() {
        basePosition = changePosition
        undoStack = []
        redoStack = []
        openGroups = []
        eventGroupIsOpen = false
    }

    /// Forgets the actions registered with a target.
    public func removeAllActions(withTarget target: AnyObject) {
        let position = changePosition
        defer {
            // The state the changes led to stays where it was.
            if let top = undoStack.last { top.position = position } else { basePosition = position }
        }
        for group in undoStack + redoStack + openGroups { group.actions.removeAll { $0.target === target } }
        undoStack.removeAll { $0.actions.isEmpty }
        redoStack.removeAll { $0.actions.isEmpty }
    }
}

@available(*, unavailable)
extension UndoManager: Sendable {}
