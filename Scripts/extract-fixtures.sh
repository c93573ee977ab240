#!/bin/sh
# Regenerates the facts Tests/QuireTests/Fixtures/CoreData/CompiledModels holds about the corpus's SQLite stores
# (see the SOURCES.md there): for every store of /work/shared/coredata-corpus/stores (`*.sqlite`, `*.moody`),
#   ModelCache/<store>.modelcache  its Z_MODELCACHE.Z_CONTENT blob, byte for byte (when it has one);
#   Stores/<store>.schema.json     its Z_PRIMARYKEY rows, every table's columns (PRAGMA table_info order), and the
#                                  NSStoreModelVersionHashes (hex) and NSStoreModelVersionIdentifiers of Z_METADATA.
# A maintainer's tool, not part of the build: it needs sqlite3 and python3 (for the binary plist). The stores are
# read from copies, so that SQLite never touches the corpus's -shm files.
#
# Usage: Scripts/extract-fixtures.sh [corpus-folder]
set -eu

corpus=${1:-/work/shared/coredata-corpus}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/Tests/QuireTests/Fixtures/CoreData/CompiledModels"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

find "$corpus/stores" -type f \( -name '*.sqlite' -o -name '*.moody' \) | sort | while IFS= read -r store; do
    name=$(basename "$store")
    name=${name%.*}
    cp "$store" "$work/store"
    chmod u+w "$work/store"
    if [ "$(sqlite3 "$work/store" "SELECT COUNT(*) FROM sqlite_master WHERE name = 'Z_MODELCACHE'")" = 1 ]; then
        sqlite3 "$work/store" "SELECT writefile('$work/cache', Z_CONTENT) FROM Z_MODELCACHE LIMIT 1" > /dev/null
        cp "$work/cache" "$out/ModelCache/$name.modelcache"
    fi
    python3 - "$work/store" "$out/Stores/$name.schema.json" <<'EOF'
import json, plistlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
entities = [{"ent": e, "name": n, "super": s} for e, n, s in db.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")]
tables = {}
for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
    tables[table] = [row[1] for row in db.execute('PRAGMA table_info("%s")' % table.replace('"', '""'))]
plist = plistlib.loads(db.execute("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1").fetchone()[0])
facts = {
    "entities": entities,
    "tables": tables,
    "versionHashes": {name: bytes(value).hex() for name, value in plist.get("NSStoreModelVersionHashes", {}).items()},
    "versionIdentifiers": list(plist.get("NSStoreModelVersionIdentifiers", [])),
}
with open(sys.argv[2], "w") as file:
    json.dump(facts, file, indent=1, sort_keys=True)
EOF
    echo "$name"
done
