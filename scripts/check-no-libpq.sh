#!/usr/bin/env bash
# Proves that an application depending on Quire alone never links libpq (issue 31): builds the small application
# in scripts/no-libpq-app (`import Quire`, an SQLite store, nothing of QuirePostgres) in a temporary folder,
#   1. with every file of libpq (libpq-dev's headers, pkg-config file and libraries, libpq5's library) hidden in
#      a private mount namespace, so that any target of the build that needs libpq fails (SwiftPM reads .pc files
#      itself, so PKG_CONFIG_PATH alone cannot hide libpq.pc);
#   2. checks that no command of the build names libpq's module, headers or library, and with ldd that the
#      executable does not link libpq;
#   3. runs it: it saves and reads an SQLite store, and asks for a PostgreSQL store by type and by URL, which must
#      fail naming the QuirePostgres module.
# Run by .ci/run after `make test` (which has resolved the package's dependencies into SwiftPM's shared cache;
# the root's Package.resolved is reused, so the build resolves to the same versions). SWIFT names swift.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
swift="${SWIFT:-swift}"
work="$(mktemp -d "${TMPDIR:-/tmp}/quire-no-libpq.XXXXXX")"
trap 'rm -rf "$work"' EXIT

cp -R "$root/scripts/no-libpq-app" "$work/app"
if [ -f "$root/Package.resolved" ]; then cp "$root/Package.resolved" "$work/app/"; fi

# libpq's files, as libpq-dev and libpq5 install them (headers, pkg-config file, libraries).
libpq_files=()
if command -v dpkg >/dev/null; then
    while IFS= read -r path; do
        case "$path" in /usr/include/*|/usr/lib/*) ;; *) continue ;; esac
        if [ -f "$path" ] && [ ! -d "$path" ]; then libpq_files+=("$path"); fi
    done < <(dpkg -L libpq-dev libpq5 2>/dev/null | sort -u)
fi

build=(env QUIRE_PATH="$root" "$swift" build -v --package-path "$work/app" --scratch-path "$work/build" --product app)
echo "== check-no-libpq: building an application that depends on Quire alone"
start=$(date +%s)
status=0
# In a mount namespace of its own, every file of libpq is hidden (/dev/null mounted over it), so the build sees
# no libpq at all: a target of the build that needs its header, pkg-config file or library fails. Where no mount
# namespace can be made (not root, user namespaces off), the check of the build's commands below stands alone.
if [ "${#libpq_files[@]}" -gt 0 ] && unshare -rm true 2>/dev/null; then
    echo "(libpq's ${#libpq_files[@]} files hidden in a private mount namespace)"
    hide='for f in "${@:2:$1}"; do mount --bind /dev/null "$f" || exit 97; done; shift $(( $1 + 1 )); exec "$@"'
    unshare -rm bash -c "$hide" \
        hide "${#libpq_files[@]}" "${libpq_files[@]}" "${build[@]}" > "$work/build.log" 2>&1 || status=$?
else
    echo "(libpq's files could not be hidden here: no mount namespace; checking the build's commands only)"
    "${build[@]}" > "$work/build.log" 2>&1 || status=$?
fi
if [ "$status" -ne 0 ] || [ ! -x "$work/build/debug/app" ]; then
    { grep -E "^/.*error:" "$work/build.log" || true; } | sort -u | head -n 10 >&2
    tail -n 5 "$work/build.log" >&2
    echo "check-no-libpq: the application did not build without libpq (status $status)" >&2
    exit 1
fi
# No command of the build names libpq's module, headers or library.
if grep -E -- "CLibPQ|include/postgresql|-lpq( |$)" "$work/build.log" | head -n 5 | cut -c 1-300; then
    echo "check-no-libpq: the build used libpq (above)" >&2
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
