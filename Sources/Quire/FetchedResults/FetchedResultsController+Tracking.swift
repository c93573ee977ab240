import QuireCore
import QuireStores
import Foundation

extension FetchedResultsController {
    /// Brings the results up to date with one objects-did-change round of the context and reports the
    /// difference.
    func contextDidChange(_ change: ObjectsDidChange) {
        guard let oldSections = sections else { return }
        // Without a delegate or a stream reading the changes, the controller does not track them (Core Data's
        // "no tracking" mode): its results stay those of the last fetch.
        guard delegate != nil || !streams.isEmpty else { return }
        let old = oldSections.flatMap(\.objects)
        if change.invalidatedAll {
            // Every object left the context: fetch again; every old object is reported deleted.
            let objects = (try? managedObjectContext.fetch(fetchRequest)) ?? []
            apply(makeSections(objects), replacing: oldSections, changed: [])
            return
        }
        var removed = Set<ObjectIdentifier>()
        for object in change.deleted.union(change.invalidated) where positions[ObjectIdentifier(object)] != nil {
            removed.insert(ObjectIdentifier(object))
        }
        var added: [Result] = []
        var changed = Set<ObjectIdentifier>()
        for candidate in [change.inserted, change.updated, change.refreshed] {
            for object in candidate where resultEntities.contains(ObjectIdentifier(object.entity)) {
                guard let result = object as? Result else { continue }
                let id = ObjectIdentifier(object)
                guard !removed.contains(id) else { continue }
                let matches = object.managedObjectContext === managedObjectContext && !object.isDeleted && !object.recordIsMissing
                    && ((try? fetchRequest.predicate.map { try InMemoryMatcher.matches(object, $0) } ?? true) ?? false)
                if positions[id] != nil {
                    if matches { changed.insert(id) } else { removed.insert(id) }
                } else if matches, !added.contains(where: { $0 === result }) {
                    added.append(result)
                }
            }
        }
        guard !removed.isEmpty || !added.isEmpty || !changed.isEmpty else { return }
        let kept = old.filter { !removed.contains(ObjectIdentifier($0)) } + added
        let sorted = ((try? ObjectSorter.sort(kept, by: fetchRequest.sortDescriptors)) ?? kept).compactMap { $0 as? Result }
        apply(makeSections(sorted), replacing: oldSections, changed: changed)
    }

    /// Installs new sections and reports how they differ from the old ones: objects only in the old are
    /// deleted, only in the new inserted; a changed object whose section or place among the unchanged objects
    /// differs is moved, any other changed object updated.
    private func apply(
        _ newSections: [FetchedResultsSectionInfo<Result>], replacing oldSections: [FetchedResultsSectionInfo<Result>],
        changed: Set<ObjectIdentifier>
    ) {
        let oldPositions = positions
        install(newSections)
        let newPositions = positions
        var changes = FetchedResultsChangeSet()
        var sectionReports: [(FetchedResultsSectionInfo<Result>, Int, FetchedResultsChangeType)] = []
        var objectReports: [(Result, IndexPath?, FetchedResultsChangeType, IndexPath?)] = []

        let newNames = Set(newSections.map(\.name))
        let oldNames = Set(oldSections.map(\.name))
        for (index, section) in oldSections.enumerated() where !newNames.contains(section.name) {
            sectionReports.append((section, index, .delete))
        }
        for (index, section) in newSections.enumerated() where !oldNames.contains(section.name) {
            sectionReports.append((section, index, .insert))
        }
        let old = oldSections.flatMap(\.objects)
        let new = newSections.flatMap(\.objects)
        for object in old where newPositions[ObjectIdentifier(object)] == nil {
            objectReports.append((object, oldPositions[ObjectIdentifier(object)], .delete, nil))
        }
        for object in new where oldPositions[ObjectIdentifier(object)] == nil {
            objectReports.append((object, nil, .insert, newPositions[ObjectIdentifier(object)]))
        }
        let moved = movedObjects(old: old, new: new, changed: changed, oldPositions: oldPositions, oldSections: oldSections)
        var updates: [(Result, IndexPath?, FetchedResultsChangeType, IndexPath?)] = []
        for object in new {
            let id = ObjectIdentifier(object)
            guard changed.contains(id), let from = oldPositions[id], let to = newPositions[id] else { continue }
            if moved.contains(id) {
                objectReports.append((object, from, .move, to))
            } else {
                updates.append((object, from, .update, to))
            }
        }
        objectReports += updates
        guard !sectionReports.isEmpty || !objectReports.isEmpty else { return }

        for (section, index, type) in sectionReports {
            changes.sectionChanges.append(.init(type: type, name: section.name, sectionIndex: index))
        }
        for (object, from, type, to) in objectReports {
            changes.objectChanges.append(.init(type: type, objectID: object.objectID, indexPath: from, newIndexPath: to))
        }
        if let delegate = self.delegate {
            let reloaded = updates.map { $0.0.objectID }
            if tellSnapshot(to: delegate, reloading: reloaded) {
                // The snapshot said it all.
            } else if sectionNameKeyPath == nil, tellDifference(to: delegate, changes, old: old) {
                // So did the difference.
            } else {
                delegate.controllerWillChangeContent(self)
                for (section, index, type) in sectionReports {
                    delegate.controller(self, didChange: section, atSectionIndex: index, for: type)
                }
                for (object, from, type, to) in objectReports {
                    delegate.controller(self, didChange: object, at: from, for: type, newIndexPath: to)
                }
                delegate.controllerDidChangeContent(self)
            }
        }
        streams.yield(changes)
        if cacheName != nil, let coordinator = managedObjectContext.persistentStoreCoordinator { writeCache(coordinator) }
    }

    /// Tells the delegate a round's changes as a difference of object IDs (one section: item indexes are
    /// offsets); false when it does not implement the difference callback.
    private func tellDifference(
        to delegate: any FetchedResultsControllerDelegate<Result>, _ changes: FetchedResultsChangeSet, old: [Result]
    ) -> Bool {
        let kind = ObjectIdentifier(type(of: delegate))
        guard !typesLackingDifference.contains(kind) else { return false }
        var steps: [CollectionDifference<ObjectID>.Change] = []
        for change in changes.objectChanges {
            let paired = change.type == .move || change.type == .update
            if let from = change.indexPath {
                steps.append(.remove(offset: from.item, element: change.objectID, associatedWith: paired ? change.newIndexPath?.item : nil))
            }
            if let to = change.newIndexPath {
                steps.append(.insert(offset: to.item, element: change.objectID, associatedWith: paired ? change.indexPath?.item : nil))
            }
        }
        // The reports describe one valid edit of the old list; should they not, the two lists are compared.
        let difference = CollectionDifference(steps)
            ?? (fetchedObjects ?? []).map(\.objectID).difference(from: old.map(\.objectID)).inferringMoves()
        delegateLacksCallback = false
        delegate.controller(self, didChangeContentWith: difference)
        if delegateLacksCallback { typesLackingDifference.insert(kind) }
        return !delegateLacksCallback
    }

    /// The changed objects in both lists whose section changed, or whose place among the unchanged objects
    /// changed, or whose order among changed objects in the same place changed (fewest such moves).
    private func movedObjects(
        old: [Result], new: [Result], changed: Set<ObjectIdentifier>, oldPositions: [ObjectIdentifier: IndexPath],
        oldSections: [FetchedResultsSectionInfo<Result>]
    ) -> Set<ObjectIdentifier> {
        guard !changed.isEmpty else { return [] }
        let newPositions = positions
        let survivors = { (object: Result) in
            oldPositions[ObjectIdentifier(object)] != nil && newPositions[ObjectIdentifier(object)] != nil
        }
        // Each changed object's slot: how many unchanged survivors come before it.
        func slots(_ list: [Result]) -> [ObjectIdentifier: Int] {
            var slots: [ObjectIdentifier: Int] = [:]
            var unchangedBefore = 0
            for object in list where survivors(object) {
                let id = ObjectIdentifier(object)
                if changed.contains(id) { slots[id] = unchangedBefore } else { unchangedBefore += 1 }
            }
            return slots
        }
        let oldSlots = slots(old)
        let newSlots = slots(new)
        var oldOrder: [ObjectIdentifier: Int] = [:]
        for (index, object) in old.enumerated() { oldOrder[ObjectIdentifier(object)] = index }
        var moved = Set<ObjectIdentifier>()
        var stayed: [Int: [ObjectIdentifier]] = [:]
        for object in new {
            let id = ObjectIdentifier(object)
            guard let oldSlot = oldSlots[id], let newSlot = newSlots[id], let from = oldPositions[id],
                let to = newPositions[id]
            else { continue }
            if oldSlot != newSlot || oldSections[from.section].name != sections?[to.section].name {
                moved.insert(id)
            } else {
                stayed[newSlot, default: []].append(id)
            }
        }
        // Within one slot, the changed objects out of their old order: all but a longest increasing run move.
        for group in stayed.values where group.count > 1 {
            let keep = Self.longestIncreasingRun(group.map { oldOrder[$0] ?? 0 })
            for (index, id) in group.enumerated() where !keep.contains(index) { moved.insert(id) }
        }
        return moved
    }

    /// The indices of a longest strictly increasing subsequence of `values`.
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result = Set<Int>()
        var index = tails.last ?? -1
        while index >= 0 {
            result.insert(index)
            index = previous[index]
        }
        return result
    }
}
