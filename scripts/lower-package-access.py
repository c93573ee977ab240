#!/usr/bin/env python3
"""Lowers `package` declarations of one target that no other target names to `internal` (issue 31, item 4).

A declaration needs `package` access only when another target of the package (or a test that imports the
target without `@testable`) names it. This script lists each `package` declaration of the target, looks its
name up among the identifiers of every Swift file outside the target (Sources/, Tests/, Fuzz/, Examples/), and
drops the modifier (internal is the default) where the name appears nowhere else; members of a type that is
lowered are lowered with it. It is conservative: a name used anywhere outside keeps every declaration of that
name, and `init`s, subscripts, `package(set)` and anything marked `@inlinable` / `@usableFromInline` stay.

Then `--fix` builds the target (only it: build everything afterwards) and puts `package` back on each declaration the compiler says must stay visible
(a `package` member whose type, default argument or signature uses a lowered type), until it builds.

    python3 scripts/lower-package-access.py QuireStores          # lower, print counts
    python3 scripts/lower-package-access.py QuireStores --fix    # then build and restore until it builds
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODIFIERS = r"(?:(?:static|final|nonisolated|override|convenience|required|mutating|nonmutating|lazy|indirect|weak|unowned|dynamic|class)\s+)*"
DECL = re.compile(
    r"^(?P<indent>\s*)(?P<attrs>(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*)package\s+" + MODIFIERS
    + r"(?P<kind>struct|class|enum|protocol|typealias|actor|func|var|let|init|subscript|case)\b\s*(?P<name>`?[A-Za-z_][A-Za-z0-9_]*`?)?")
TYPE_OPEN = re.compile(
    r"^(?P<indent>\s*)(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*"
    r"(?P<kind>struct|class|enum|protocol|actor|extension)\s+(?P<name>[A-Za-z_][A-Za-z0-9_.]*)")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TYPE_KINDS = {"struct", "class", "enum", "protocol", "typealias", "actor"}


def swift_files(folder):
    for base, _, names in os.walk(folder):
        if "/.build" in base or "/.git" in base:
            continue
        for name in names:
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def outside_identifiers(target):
    inside = os.path.join(ROOT, "Sources", target) + os.sep
    found = set()
    for top in ("Sources", "Tests", "Fuzz", "Examples"):
        for path in swift_files(os.path.join(ROOT, top)):
            if path.startswith(inside):
                continue
            with open(path, encoding="utf-8") as handle:
                found.update(IDENT.findall(handle.read()))
    return found


def declarations(target):
    """Every `package` declaration: (path, line index, kind, name, enclosing type name or None, attributes)."""
    result = []
    for path in sorted(swift_files(os.path.join(ROOT, "Sources", target))):
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        stack = []  # (indent, type name)
        previous = ""
        for index, line in enumerate(lines):
            stripped = line.strip()
            while stack and stripped.startswith("}") and len(line) - len(line.lstrip()) <= stack[-1][0]:
                stack.pop()
                break
            match = DECL.match(line)
            if match:
                attrs = match.group("attrs") + (previous if previous.startswith("@") else "")
                name = (match.group("name") or "").strip("`")
                result.append((path, index, match.group("kind"), name, stack[-1][1] if stack else None, attrs))
            opened = TYPE_OPEN.match(line)
            if opened and line.rstrip().endswith("{"):
                stack.append((len(opened.group("indent")), opened.group("name").split(".")[-1]))
            if stripped and not stripped.startswith("//"):
                previous = stripped
    return result


def declarations_of(originals):
    """The lowered declarations (as `declarations` lists them), from their original lines."""
    result = []
    by_file = {}
    for (path, index) in originals:
        by_file.setdefault(path, set()).add(index)
    for path, indexes in by_file.items():
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        stack = []
        for index, line in enumerate(lines):
            stripped = line.strip()
            if stack and stripped.startswith("}") and len(line) - len(line.lstrip()) <= stack[-1][0]:
                stack.pop()
            text = originals.get((path, index), line)
            if index in indexes:
                match = DECL.match(text)
                if match:
                    name = (match.group("name") or "").strip("`")
                    result.append((path, index, match.group("kind"), name, stack[-1][1] if stack else None, match.group("attrs")))
            opened = TYPE_OPEN.match(line)
            if opened and line.rstrip().endswith("{"):
                stack.append((len(opened.group("indent")), opened.group("name").split(".")[-1]))
    return result


def lower(target):
    outside = outside_identifiers(target)
    decls = declarations(target)
    lowered_types = {name for (_, _, kind, name, _, _) in decls if kind in TYPE_KINDS and name not in outside}
    # A subclass of a class that stays `package` stays `package` too: an internal subclass of one made the
    # compiler warn of an infinite recursion at the subclass (CustomAtomicStore: AtomicStore).
    classes = {name for (_, _, kind, name, _, _) in decls if kind == "class"}
    for path, index, kind, name, _, _ in decls:
        if kind != "class" or name not in lowered_types:
            continue
        with open(path, encoding="utf-8") as handle:
            line = handle.read().split("\n")[index]
        parent = re.search(r"class\s+" + re.escape(name) + r"\s*:\s*([A-Za-z_][A-Za-z0-9_]*)", line)
        if parent and parent.group(1) in classes and parent.group(1) not in lowered_types:
            lowered_types.discard(name)
    edits = {}
    for path, index, kind, name, enclosing, attrs in decls:
        if "@inlinable" in attrs or "@usableFromInline" in attrs or kind == "case":
            continue
        if kind in TYPE_KINDS:
            drop = name in lowered_types
        elif kind in ("init", "subscript"):
            drop = enclosing in lowered_types
        else:
            drop = bool(name) and (name not in outside or enclosing in lowered_types)
        if drop:
            edits.setdefault(path, []).append(index)
    count = 0
    for path, indexes in edits.items():
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        for index in indexes:
            new = re.sub(r"\bpackage\s+", "", lines[index], count=1)
            if new != lines[index]:
                lines[index] = new
                count += 1
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines))
    return count, len(decls)


def restore_line(path, index, original):
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    lines[index] = original
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))


def fix(target, originals):
    """Builds the target, restoring `package` where the compiler needs it, until it builds."""
    error = re.compile(r"^(/[^:]+\.swift):(\d+):\d+: (error|note): (.*)$")
    for round_number in range(1, 40):
        # The target alone: the others name none of what was lowered, so its own errors are the ones to fix
        # (build everything afterwards).
        run = subprocess.run(["swift", "build", "--target", target, "-Xswiftc", "-diagnostic-style=llvm"], cwd=ROOT, capture_output=True, text=True)
        if run.returncode == 0:
            print(f"builds after {round_number} round(s)")
            return True
        restored = 0
        names = set()
        current_file, last_number = None, None
        for line in (run.stdout + run.stderr).split("\n"):
            # The compiler's snippets: `  7 | final class X {` then `| `- note: type declared here` under it.
            snippet = re.match(r"^\s*(\d+) \| ", line)
            if snippet:
                last_number = int(snippet.group(1))
            elif current_file and last_number and "`- note:" in line and "declared here" in line:
                key = (os.path.realpath(current_file), last_number - 1)
                if key in originals:
                    restore_line(key[0], key[1], originals.pop(key))
                    restored += 1
            match = error.match(line)
            if not match:
                continue
            current_file, last_number = match.group(1), None
            # An error at a lowered declaration, or a note pointing at one ("type declared here"): it stays package.
            if match.group(3) == "error":
                names.update(re.findall(r"'([A-Za-z_][A-Za-z0-9_]*)(?:\(|')", match.group(4)))
            key = (os.path.realpath(match.group(1)), int(match.group(2)) - 1)
            if key in originals:
                restore_line(key[0], key[1], originals.pop(key))
                restored += 1
        # A lowered declaration an error names (a type, a member, a function) gets `package` back too.
        for (path, index), original in list(originals.items()):
            match = DECL.match(original)
            if match and (match.group("name") or "").strip("`") in names:
                restore_line(path, index, originals.pop((path, index)))
                restored += 1
        print(f"round {round_number}: restored {restored}")
        if restored == 0:
            print(run.stdout[-4000:] + run.stderr[-4000:])
            return False
    return False


def main():
    target = sys.argv[1]
    snapshot = {}
    for path in swift_files(os.path.join(ROOT, "Sources", target)):
        with open(path, encoding="utf-8") as handle:
            for index, line in enumerate(handle.read().split("\n")):
                if DECL.match(line):
                    snapshot[(os.path.realpath(path), index)] = line
    count, total = lower(target)
    print(f"{target}: {total} package declarations found, {count} lowered to internal")
    if "--fix" in sys.argv:
        originals = {}
        for (path, index), line in snapshot.items():
            with open(path, encoding="utf-8") as handle:
                if handle.read().split("\n")[index] != line:
                    originals[(path, index)] = line
        if not fix(target, originals):
            sys.exit(1)
        # A member lowered with its type, whose type the compiler then needed as `package`, is `package` again
        # when another target names it; then the target is built once more.
        outside = outside_identifiers(target)
        still_lowered = {name for (path, index, kind, name, _, _) in declarations_of(originals) if kind in TYPE_KINDS}
        again = 0
        for (path, index, kind, name, enclosing, _) in declarations_of(originals):
            if kind not in TYPE_KINDS and name in outside and enclosing not in still_lowered:
                restore_line(path, index, originals.pop((path, index)))
                again += 1
        print(f"restored {again} members named elsewhere whose type stays package")
        if again and not fix(target, originals):
            sys.exit(1)
        print(f"{target}: {len(originals)} declarations stay lowered")


if __name__ == "__main__":
    main()
