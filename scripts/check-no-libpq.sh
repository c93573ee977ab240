#!/usr/bin/env bash
# Proves that an application depending on Quire alone never links libpq (issue 31): builds the small application
# in scripts/no-libpq-app (`import Quire`, an SQLite store, nothing of QuirePostgres) in a temporary folder,
#   1. with libpq's pkg-config file hidden (PKG_CONFIG_LIBDIR names a folder holding every other .pc file):
#      libpq's header lives in /usr/include/postgresql, which only pkg-config adds, so any target of the build
#      that imports CLibPQ fails to compile;
#   2. then checks with ldd that the executable links no libpq, and runs it: it saves and reads an SQLite store,
#      and asks for a PostgreSQL store by type and by URL, which must fail naming the QuirePostgres module.
# Run by .ci/run after `make test` (which has resolved the package's dependencies into SwiftPM's shared cache;
# the root's Package.resolved is reused, so the build resolves to the same versions). SWIFT names swift.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
swift="${SWIFT:-swift}"
work="$(mktemp -d "${TMPDIR:-/tmp}/quire-no-libpq.XXXXXX")"
trap 'rm -rf "$work"' EXIT

cp -R "$root/scripts/no-libpq-app" "$work/app"
if [ -f "$root/Package.resolved" ]; then cp "$root/Package.resolved" "$work/app/"; fi

# Every pkg-config file of the system but libpq's.
mkdir "$work/pkgconfig"
IFS=: read -r -a folders <<< "$(pkg-config --variable pc_path pkg-config)"
for folder in "${folders[@]}"; do
    for pc in "$folder"/*.pc; do
        [ -e "$pc" ] || continue
        name="$(basename "$pc")"
        [ "$name" = "libpq.pc" ] || [ -e "$work/pkgconfig/$name" ] || ln -s "$pc" "$work/pkgconfig/$name"
    done
done
if PKG_CONFIG_LIBDIR="$work/pkgconfig" PKG_CONFIG_PATH="" pkg-config --exists libpq; then
    echo "check-no-libpq: libpq's pkg-config file could not be hidden" >&2
    exit 1
fi

echo "== check-no-libpq: building an application that depends on Quire alone, with libpq's pkg-config file hidden"
start=$(date +%s)
status=0
(cd "$work/app" && QUIRE_PATH="$root" PKG_CONFIG_LIBDIR="$work/pkgconfig" PKG_CONFIG_PATH="" \
    "$swift" build --scratch-path "$work/build" --product app) > "$work/build.log" 2>&1 || status=$?
if [ "$status" -ne 0 ] || [ ! -x "$work/build/debug/app" ]; then
    tail -n 40 "$work/build.log" >&2
    echo "check-no-libpq: the application did not build without libpq (see above)" >&2
    exit 1
fi
echo "built in $(( $(date +%s) - start )) s"

if ldd "$work/build/debug/app" | grep -i "libpq"; then
    echo "check-no-libpq: the application links libpq" >&2
    exit 1
fi
echo "ldd: no libpq"
"$work/build/debug/app"
echo "check-no-libpq: OK"
