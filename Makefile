# Election Lab — the two entry points are `make serve` and `make test`.
# Each installs what it needs on a fresh machine (only package registries are used) and skips
# what is already there. Versions are pinned; the comments below say why each pin exists.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PORT ?= 8080
TRUNK_VERSION := 0.21.14
# The guide (docs/guide). 0.5.4 builds on rustc 1.95 with --locked; only its `search` feature
# (no `serve`/`watch`: `make serve` serves the guide with the app), as a debug build like Trunk.
MDBOOK_VERSION := 0.5.4
# wasm-bindgen-cli must equal the wasm-bindgen in Cargo.lock.
WASM_BINDGEN_VERSION := $(shell sed -n '/^name = "wasm-bindgen"$$/{n;s/version = "\(.*\)"/\1/p;q}' Cargo.lock)
CARGO_BIN := $(HOME)/.cargo/bin
NODE_BIN := $(CURDIR)/www/node_modules/.bin
export PATH := $(NODE_BIN):$(CARGO_BIN):$(PATH)
export CHROMEDRIVER := /usr/bin/chromedriver
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: offline scorm help serve test build setup setup-build setup-test bench bench-stateright callgrind screenshot clean \
        lint test-native test-wasm test-e2e test-docs docs fuzz

help:
	@echo "make serve   build the app and serve it on http://127.0.0.1:$(PORT)/ (PORT=... to change)"
	@echo "make test    run every test: native, wasm in headless Chromium, end-to-end in Chromium"
	@echo "make offline one self-contained HTML file for a course: dist-offline/election-lab.html"
	@echo "make scorm   the course as SCORM 1.2 and 2004 packages for an LMS: dist-scorm/ (LESSON=bully: one lesson)"
	@echo "make docs    build the user guide: docs/guide/book/ (also published with the app under /guide/)"
	@echo "make bench   engine and browser benchmarks (figures for docs/performance.md)"
	@echo "make bench-stateright   the exhaustive checker beside Stateright's Raft example (network)"
	@echo "make fuzz    fuzz every reader in release, FUZZ_CASES per reader (default 1000000)"
	@echo "make screenshot   regenerate docs/screenshot.jpg"

# ---------- set-up (idempotent) ----------

setup-build:
	@rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
	@trunk --version 2>/dev/null | grep -qF "$(TRUNK_VERSION)" || cargo install --locked --debug trunk --version $(TRUNK_VERSION)
	@mdbook --version 2>/dev/null | grep -qF "v$(MDBOOK_VERSION)" || cargo install --locked --debug mdbook --version $(MDBOOK_VERSION) --no-default-features --features search
	@wasm-bindgen --version 2>/dev/null | grep -qF "$(WASM_BINDGEN_VERSION)" || cargo install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION)
	@[ www/node_modules/.stamp -nt www/package-lock.json ] || { (cd www && npm ci --no-audit --no-fund) && touch www/node_modules/.stamp; }
	@cargo fetch --locked

setup-test: setup-build
	@[ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium chromium-driver; }
	@# jq, for the guide's command examples (crate/tests/guide.rs runs them).
	@command -v jq >/dev/null || { $(SUDO) apt-get update && $(SUDO) apt-get install -y jq; }
	@# A CJK font, so that screenshots of the Chinese interface show real glyphs.
	@[ -d /usr/share/fonts/opentype/noto ] && ls /usr/share/fonts/opentype/noto | grep -q CJK || { $(SUDO) apt-get update && $(SUDO) apt-get install -y fonts-noto-cjk; }
	@# Real clusters for crate/tests/real_clusters.rs (3 etcd members, 3 ZooKeeper servers on
	@# loopback): Debian's etcd 3.4 and ZooKeeper 3.8 with a headless JRE.
	@command -v etcd >/dev/null && command -v etcdctl >/dev/null || { $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server etcd-client; }
	@[ -f /usr/share/java/zookeeper.jar ] && command -v java >/dev/null || { $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends zookeeper default-jre-headless; }
	@# Redis Sentinel for crate/tests/real_clusters.rs (a master, two replicas, three Sentinels): Debian's Redis 7.0.
	@command -v redis-server >/dev/null && command -v redis-sentinel >/dev/null || { $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server redis-sentinel; }
	@# A one-node Slurm cluster for crate/tests/slurm.rs (scripts/slurm-local.sh): Debian's Slurm 22.05 and munge.
	@command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null && command -v munged >/dev/null || { $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge; }
	@# pdflatex with TikZ for the figures' TikZ export (www/src/export/tikz.rs compiles them), and
	@# pdftoppm to look at the PDFs: Debian's TeX Live, base and pictures only.
	@command -v pdflatex >/dev/null && kpsewhich tikz.sty >/dev/null && command -v pdftoppm >/dev/null || { $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends texlive-latex-base texlive-pictures poppler-utils; }

setup: setup-test

# ---------- build and serve ----------

build: setup-build
	trunk build --release --offline

serve: setup-build
	trunk serve --release --offline --port $(PORT)

# The user guide alone (make build and make serve publish it under dist/guide/ through the
# post-build hook in Trunk.toml).
docs: setup-build
	mdbook build docs/guide

# One self-contained HTML file (wasm, JS, CSS and the course inlined) that works opened from disk
# and uploaded to a course platform: dist-offline/election-lab.html. Reuses the release build.
offline: build
	node scripts/offline.mjs dist dist-offline/election-lab.html

# SCORM 1.2 and SCORM 2004 packages (imsmanifest.xml, the offline file, one launch page per
# lesson reporting completion and score to the LMS): the course, or LESSON=<id> alone, in
# dist-scorm/. Reuses the release build (which also publishes the course's pair under dist/scorm/).
scorm: build
	node scripts/scorm.mjs --dist dist --out dist-scorm $(if $(LESSON),--lesson $(LESSON))

# ---------- tests ----------

# The tree stays tidy by itself: one format (rustfmt.toml) and no clippy warning, in every target.
lint:
	cargo fmt --all --check
	@# cargo fmt sees only the modules it can reach from a crate root; rustfmt reads every tracked file.
	rustfmt --check --edition 2021 $$(git ls-files '*.rs')
	cargo clippy --workspace --all-targets --locked --offline -- -D warnings
	cargo clippy -p election-lab-www --features workbench,grade --all-targets --locked --offline -- -D warnings
	@# A family's player as it is built: one family's algorithms, no lesson player (`lessons`, a
	@# default feature); and the protocols crate holding one family (its own tests only).
	cargo clippy -p election-lab-www --no-default-features --features family-bully --lib --bins --locked --offline -- -D warnings
	cargo clippy -p election-lab-protocols --features family-bully --all-targets --locked --offline -- -D warnings
	@# The build's native tool that draws the first frames (Yew's server renderer).
	cargo clippy -p election-lab-www --features first-frames --lib --bins --tests --locked --offline -- -D warnings

test-native:
	cargo test --workspace --locked --offline
	@# The worker's jobs (check, grade) compile only with the worker's features; the workbench's
	@# own state (the editor, slices, log mappings) only with its feature.
	cargo test -p election-lab-www --features grade --lib --locked --offline
	cargo test -p election-lab-www --features workbench,grade --lib --locked --offline
	@# Without the lesson player: what asks for a lesson goes to another bundle.
	cargo test -p election-lab-www --no-default-features --lib --locked --offline
	@# The core alone has the player's texts only: a workbench text there reads as a marker.
	cargo test -p election-lab-core --lib --locked --offline meta::
	@# A family's build: its registry holds exactly the family, and its algorithms' tests pass in it.
	cargo test -p election-lab-protocols --features family-bully --locked --offline
	@# The first frames: every preset's, in both languages, drawn natively.
	cargo test -p election-lab-www --features first-frames --lib --locked --offline first_frames

test-wasm:
	cargo test -p election-lab-www --target wasm32-unknown-unknown --locked --offline

# The guide builds, and crate/tests/guide.rs checks its links and anchors and runs the commands it
# shows (that test is also part of test-native; alone it takes a few seconds).
test-docs: setup-build
	mdbook build docs/guide
	cargo test -p election-lab --test guide --locked --offline

test-e2e: build
	cd www && node --test --test-concurrency=1 tests/e2e/

# Every reader fed mutated inputs (crate/tests/fuzz.rs), at release speed with overflow checks
# and debug assertions on (profile.fuzz); `make test` runs 300 cases per reader.
FUZZ_CASES ?= 1000000
fuzz:
	FUZZ_CASES=$(FUZZ_CASES) cargo test -p election-lab --profile fuzz --locked --offline --test fuzz -- --test-threads=1

test: setup-test
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory test-native
	$(MAKE) --no-print-directory test-docs
	$(MAKE) --no-print-directory test-wasm
	$(MAKE) --no-print-directory test-e2e

# ---------- benchmarks ----------

bench: setup-test
	cargo bench -p election-lab --locked --offline
	cargo build --release -p election-lab --locked --offline
	$(MAKE) --no-print-directory build
	cd www && node tests/bench/browser.mjs && node tests/bench/first-load.mjs
	cargo test -p election-lab-www --target wasm32-unknown-unknown --profile wasm-release --locked --offline --test script_bench

callgrind:
	bash scripts/callgrind.sh

# The exhaustive checker beside Stateright 0.31's Raft example at the same bounds, in one run:
# bench/stateright, a crate outside the workspace whose only dev-dependency is Stateright (fetched
# from crates.io by its own Cargo.lock; not part of `make bench` or `make test`, which are offline).
# DEPTH=8 is Stateright's target depth (the checker's is one less).
bench-stateright:
	cd bench/stateright && cargo fetch --locked && cargo bench --locked --offline --bench side_by_side -- $(or $(DEPTH),8)

# Regenerates docs/screenshot.jpg (the README's picture).
screenshot: setup-test build
	cd www && node tests/screenshot.mjs

clean:
	cargo clean
	rm -rf dist docs/guide/book
