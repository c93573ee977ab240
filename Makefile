# Quire: the two commands of the quick start, plus helpers.
#   make demo   installs what is missing, builds, runs the main job on a sample document
#   make test   installs what is missing, builds, runs the whole suite
#   make tsan   the whole suite under the thread sanitizer (its own build folder, .build-tsan)
#   make check-no-libpq   an application depending on Quire alone builds and runs without libpq
#   make fuzz   the fuzz targets (libFuzzer + AddressSanitizer, .build-fuzz), FUZZ_SECONDS each
#   make example       builds and runs the Notebook, a GTK 4 app on Quire (Examples/Notebook)
#   make example-test  its tests, under Xvfb on a private session bus

SWIFT ?= swift
# What the library product Quire needs (an application that depends on Quire alone needs no more; see
# scripts/check-no-libpq.sh), then libpq's headers for what links the QuirePostgres product: the quire tool
# (which every target below builds, `make demo` included), quire-bench and the tests.
CORE_PACKAGES := libsqlite3-dev libarchive-dev zlib1g-dev pkg-config sqlite3
POSTGRES_PACKAGES := libpq-dev
APT_PACKAGES := $(CORE_PACKAGES) $(POSTGRES_PACKAGES)

.PHONY: demo test tsan deps build bench clean docs

# Installs the Debian packages the build needs, only those missing (apt-get update once, first).
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

# The demo converts a sample document (an SQLite package) to a zip archive with a $(DEMO_TYPE) store and back,
# then shows with `quire diff` that the object graph did not change.
DEMO_TYPE ?= xml
DEMO_DIR := .build/demo
QUIRE := .build/debug/quire

demo: deps
	$(SWIFT) build --product quire
	@rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	@echo "== quire info SampleDocuments/Library-sqlite.quiredoc"
	@$(QUIRE) info SampleDocuments/Library-sqlite.quiredoc
	@echo "== quire convert SampleDocuments/Library-sqlite.quiredoc $(DEMO_DIR)/Library.zip --type $(DEMO_TYPE)"
	@$(QUIRE) convert SampleDocuments/Library-sqlite.quiredoc $(DEMO_DIR)/Library.zip --type $(DEMO_TYPE)
	@echo "== quire convert $(DEMO_DIR)/Library.zip $(DEMO_DIR)/Library.quiredoc --package --type sqlite"
	@$(QUIRE) convert $(DEMO_DIR)/Library.zip $(DEMO_DIR)/Library.quiredoc --package --type sqlite
	@echo "== quire verify $(DEMO_DIR)/Library.quiredoc"
	@$(QUIRE) verify $(DEMO_DIR)/Library.quiredoc
	@echo "== quire diff SampleDocuments/Library-sqlite.quiredoc $(DEMO_DIR)/Library.quiredoc"
	@$(QUIRE) diff SampleDocuments/Library-sqlite.quiredoc $(DEMO_DIR)/Library.quiredoc

# make test also installs the PostgreSQL server (the PostgreSQL store's tests) and Tracker for TrackerExtractTests
# (tracker3 extract; about 40 s on Debian bookworm).
test: APT_PACKAGES += postgresql tracker tracker-extract dbus-daemon shared-mime-info graphviz
# The PostgreSQL store's tests run against a throwaway server scripts/with-postgres.sh starts and stops.
# It also draws the sample library's model with `quire model --graph` (Graphviz renders it) into
# $(MODEL_PNG), which the CLI article links to, and checks that the file is a PNG.
MODEL_PNG := .build/model/Library-model.png
test: deps
	$(SWIFT) build --build-tests
	scripts/with-postgres.sh $(SWIFT) test --skip-build
	@mkdir -p $(dir $(MODEL_PNG))
	$(QUIRE) model SampleDocuments/Library-sqlite.quiredoc --graph $(MODEL_PNG) --force
	@head -c 8 $(MODEL_PNG) | od -An -tx1 | tr -d ' \n' | grep -qx 89504e470d0a1a0a || { echo "$(MODEL_PNG) is not a PNG"; exit 1; }

# Proves that an application depending on Quire alone builds without libpq and does not link it: builds
# scripts/no-libpq-app against this checkout with libpq's pkg-config file hidden, checks its executable with ldd
# and runs it (.ci/run runs this after make test). Needs only the library's packages.
.PHONY: check-no-libpq
check-no-libpq: APT_PACKAGES := $(CORE_PACKAGES)
check-no-libpq: deps
	SWIFT=$(SWIFT) scripts/check-no-libpq.sh

# The thread sanitizer needs its own build: mixing sanitized and plain objects in .build would force full
# rebuilds each way. The whole suite, PostgreSQL included, but the document crash test (CrashTests), which kills
# 210 saving child processes at random moments by design: under the sanitizer each child starts and saves several
# times slower, so the kills land in other places than the test means to cover, and the run takes minutes more.
# TSAN_OPTIONS: halt_on_error=0 reports every race, and the exit status is 66 when any was reported.
# TSAN_SKIP: a test whose child `quire` runs under a 4 KiB file-size limit (RLIMIT_FSIZE): under the sanitizer's
# runtime that child dies of SIGBUS before Quire's own code answers EFBIG (no race is reported); the normal suite
# runs it.
TSAN_SKIP ?= --skip anOutputThatCannotBeFinishedIsNamedNotItsStagingFolder
tsan: APT_PACKAGES += postgresql
tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS="$(TSAN_OPTIONS) halt_on_error=0 exitcode=66" scripts/with-postgres.sh \
		$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --skip CrashTests $(TSAN_SKIP)

# The DocC catalog Sources/Quire/Quire.docc with the toolchain's own docc (no package plugin, so Quire's users get
# no extra dependency): the public symbol graphs of the library targets (QuirePostgres too), merged into the one
# module `import Quire` shows (Scripts/merge-symbol-graphs.swift), then `docc convert` with warnings as errors, into
# $(DOCS_DIR)/Quire.doccarchive (static hosting layout: serve the folder, open /documentation/quire).
DOCC ?= $(shell command -v docc 2>/dev/null || echo "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")/docc")
DOCS_DIR := .build/docs

docs: deps example-screenshots
	$(SWIFT) package dump-symbol-graph --minimum-access-level public
	$(SWIFT) Scripts/merge-symbol-graphs.swift "$$(dirname "$$($(SWIFT) build --show-bin-path)")/symbolgraph" $(DOCS_DIR)/symbol-graphs
	$(DOCC) convert Sources/Quire/Quire.docc --additional-symbol-graph-dir $(DOCS_DIR)/symbol-graphs \
		--fallback-display-name Quire --fallback-bundle-identifier org.quire.Quire --transform-for-static-hosting \
		--warnings-as-errors --output-path $(DOCS_DIR)/Quire.doccarchive

bench: deps
	$(SWIFT) run -c release quire-bench

clean:
	rm -rf .build .build-tsan .build-fuzz

# The document crash test at length: 3,000 SIGKILLs of a saving child process (make test runs 210).
.PHONY: crash-test-long
crash-test-long: deps
	$(SWIFT) build --build-tests
	QUIRE_CRASH_KILLS=3000 $(SWIFT) test --skip-build --filter CrashTests

# The fuzz targets (Fuzz/, a package of its own): one libFuzzer + AddressSanitizer build in .build-fuzz, then
# each reader for FUZZ_SECONDS from seeds made of SampleDocuments/ and the test fixtures. Fails when any target
# finds a crash, a hang (FUZZ_TIMEOUT seconds on one input) or a sanitizer report; the inputs are kept in
# $(FUZZ_DIR)/crashes/<target>/. FUZZ_TARGETS picks some of them. See Docs/Testing.md.
# The sanitizer flags come from Fuzz/toolset.json, which applies to the target build only: passed with -Xswiftc
# they would also reach the @ManagedProperty macro's host tool, whose own main does not link with libFuzzer's.
FUZZ_SECONDS ?= 180
FUZZ_TIMEOUT ?= 10
FUZZ_TARGETS ?= xml binary sqlite metadata zip tar package xcodemodel mom modelcache archive strings predicate record mappingmodel
FUZZ_DIR := .build-fuzz
FUZZ_BIN := $(FUZZ_DIR)/release/quire-fuzz

.PHONY: fuzz fuzz-build
fuzz-build: deps
	$(SWIFT) build -c release --package-path Fuzz --scratch-path $(CURDIR)/$(FUZZ_DIR) \
		--toolset $(CURDIR)/Fuzz/toolset.json

fuzz: fuzz-build
	@failed=""; \
	for t in $(FUZZ_TARGETS); do \
		rm -rf $(FUZZ_DIR)/seeds/$$t; mkdir -p $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/crashes/$$t; \
		ASAN_OPTIONS=detect_leaks=0 QUIRE_FUZZ_TARGET=$$t QUIRE_FUZZ_SEEDS=$(FUZZ_DIR)/seeds/$$t QUIRE_FUZZ_ROOT=$(CURDIR) $(FUZZ_BIN) || exit 1; \
		echo "== fuzz $$t for $(FUZZ_SECONDS) s"; \
		if ASAN_OPTIONS=detect_leaks=0 QUIRE_FUZZ_TARGET=$$t $(FUZZ_BIN) $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/seeds/$$t \
			-max_total_time=$(FUZZ_SECONDS) -timeout=$(FUZZ_TIMEOUT) -rss_limit_mb=2048 -detect_leaks=0 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_DIR)/crashes/$$t/ > $(FUZZ_DIR)/$$t.log 2>&1; then \
			tail -n 12 $(FUZZ_DIR)/$$t.log | grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done)" || true; \
		else \
			tail -n 40 $(FUZZ_DIR)/$$t.log; failed="$$failed $$t"; \
		fi; \
	done; \
	if [ -n "$$failed" ]; then \
		echo "Fuzzing found problems in:$$failed. Inputs: $(FUZZ_DIR)/crashes/<target>/, logs: $(FUZZ_DIR)/<target>.log"; \
		exit 1; \
	fi

# Installs quire, its man page (generated from the argument definitions), its bash, zsh and fish completion
# scripts, and the desktop files of Resources/freedesktop (the MIME type, a .desktop entry, the icon and the
# Tracker extract rule of the sample notebook type) under $(DESTDIR)$(PREFIX). Installs no packages (no
# apt-get): build first with `make build`, or name an executable already built (install-files QUIRE_BIN=path).
# INSTALL_CONFIG=debug installs the debug build (no second build). Without DESTDIR, the MIME database and the
# icon cache are refreshed when their tools are there.
PREFIX ?= /usr/local
INSTALL_CONFIG ?= release
FREEDESKTOP := Resources/freedesktop
.PHONY: install install-files uninstall
install:
	$(SWIFT) build -c $(INSTALL_CONFIG) --product quire
	$(MAKE) install-files QUIRE_BIN="$$($(SWIFT) build -c $(INSTALL_CONFIG) --show-bin-path)/quire"

install-files:
	@test -x "$(QUIRE_BIN)" || { echo "QUIRE_BIN must name the built quire executable"; exit 1; }
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" \
		"$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d" "$(DESTDIR)$(PREFIX)/share/mime/packages" \
		"$(DESTDIR)$(PREFIX)/share/applications" "$(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/mimetypes" \
		"$(DESTDIR)$(PREFIX)/share/tracker3-miners/extract-rules"
	install -m 755 "$(QUIRE_BIN)" "$(DESTDIR)$(PREFIX)/bin/quire"
	"$(QUIRE_BIN)" --generate-manual > "$(DESTDIR)$(PREFIX)/share/man/man1/quire.1"
	"$(QUIRE_BIN)" --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/quire"
	"$(QUIRE_BIN)" --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_quire"
	"$(QUIRE_BIN)" --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/quire.fish"
	install -m 644 $(FREEDESKTOP)/quire-notebook.xml "$(DESTDIR)$(PREFIX)/share/mime/packages/quire-notebook.xml"
	install -m 644 $(FREEDESKTOP)/org.quire.Quire.desktop "$(DESTDIR)$(PREFIX)/share/applications/org.quire.Quire.desktop"
	install -m 644 $(FREEDESKTOP)/application-x-quire-notebook.svg \
		"$(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/mimetypes/application-x-quire-notebook.svg"
	install -m 644 $(FREEDESKTOP)/10-quire-notebook.rule "$(DESTDIR)$(PREFIX)/share/tracker3-miners/extract-rules/10-quire-notebook.rule"
	install -m 644 $(FREEDESKTOP)/quire-record.xml "$(DESTDIR)$(PREFIX)/share/mime/packages/quire-record.xml"
	install -m 644 $(FREEDESKTOP)/10-quire-record.rule "$(DESTDIR)$(PREFIX)/share/tracker3-miners/extract-rules/10-quire-record.rule"
	@if [ -z "$(DESTDIR)" ]; then \
		command -v update-mime-database >/dev/null && update-mime-database "$(PREFIX)/share/mime" || true; \
		command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$(PREFIX)/share/icons/hicolor" || true; \
	fi

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/quire" "$(DESTDIR)$(PREFIX)/share/man/man1/quire.1" \
		"$(DESTDIR)$(PREFIX)/share/bash-completion/completions/quire" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_quire" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/quire.fish" \
		"$(DESTDIR)$(PREFIX)/share/mime/packages/quire-notebook.xml" "$(DESTDIR)$(PREFIX)/share/applications/org.quire.Quire.desktop" \
		"$(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/mimetypes/application-x-quire-notebook.svg" \
		"$(DESTDIR)$(PREFIX)/share/tracker3-miners/extract-rules/10-quire-notebook.rule" \
		"$(DESTDIR)$(PREFIX)/share/mime/packages/quire-record.xml" \
		"$(DESTDIR)$(PREFIX)/share/tracker3-miners/extract-rules/10-quire-record.rule"

# The Notebook example (Examples/Notebook): a GTK 4 document app in a package of its own that depends on Quire by
# path, so Quire itself never depends on GTK. It builds Quire again in its own .build (Examples/Notebook/.build).
# `make example` builds and runs it (on your display); `make example-test` runs its tests under Xvfb on a private
# session bus (dbus-run-session): the main-queue test, the user session driven over D-Bus (screenshots in
# Examples/Notebook/.build/notebook-test/), Tracker reading a saved notebook. Its tests need `quire` built in
# that package too. The Debian packages below are installed only for these targets.
EXAMPLE_DIR := Examples/Notebook
EXAMPLE_APT := libgtk-4-dev libglib2.0-bin xvfb xauth dbus-daemon fonts-dejavu-core adwaita-icon-theme \
	tracker tracker-extract shared-mime-info
.PHONY: example example-test
example: APT_PACKAGES += $(EXAMPLE_APT)
example: deps
	$(SWIFT) build --package-path $(EXAMPLE_DIR) --product notebook
	$(EXAMPLE_DIR)/.build/debug/notebook $(NOTEBOOK_FILES)

example-test: APT_PACKAGES += $(EXAMPLE_APT)
example-test: deps
	$(SWIFT) build --package-path $(EXAMPLE_DIR) --build-tests
	$(SWIFT) build --package-path $(EXAMPLE_DIR) --product quire
	dbus-run-session -- xvfb-run -a -s "-screen 0 1280x1024x24" $(SWIFT) test --package-path $(EXAMPLE_DIR) --skip-build
	mkdir -p $(EXAMPLE_SHOTS_DOCC)
	cp $(EXAMPLE_DIR)/.build/notebook-test/*.png $(EXAMPLE_SHOTS_DOCC)/

# The screenshots of the article "A desktop app" are the ones the example's test takes, copied into the catalog
# (git-ignored) where DocC finds them by name; `make docs` runs the example's tests when they are missing.
EXAMPLE_SHOTS_DOCC := Sources/Quire/Quire.docc/Resources/Screenshots
EXAMPLE_SHOTS := notebook-window.png notebook-editing.png notebook-read-only.png
.PHONY: example-screenshots
example-screenshots:
	@for f in $(EXAMPLE_SHOTS); do test -f $(EXAMPLE_SHOTS_DOCC)/$$f || { $(MAKE) example-test; break; }; done
