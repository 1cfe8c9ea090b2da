# cellar — plain GNU make, pkg-config, explicit layers.
#
#   make            build ./cellar (release flags)
#   make check      build the debug variant and run every test (ends "N passed, M failed")
#   make check-long the same with the long randomized runs
#   make asan       the whole suite under AddressSanitizer + UBSan
#   make bench      build tests/bench/ with release flags and print the figures
#   make run        build and start the console on the embedded default
#   make check-man  the man pages against the command table, and their examples
#   make check-papers the paper tier alone: tests/papers/ (also part of check)
#   make fuzz       libFuzzer on the command grammar (clang), FUZZ_TIME seconds
#   make install    the binary, both man pages and the systemd unit under DESTDIR/PREFIX
#
# Missing Debian -dev packages are installed when run as root; otherwise the
# exact apt-get line is printed.

PKGS    := ncursesw libedit sqlite3 yaml-0.1
DEBPKGS := pkg-config libncurses-dev libedit-dev libsqlite3-dev libyaml-dev
# Slurm and munge: t0625 runs a real slurmctld and two slurmds on loopback;
# strace: t0402 turns a store's fsyncs into SIGKILLs.
# gnuplot-nox: anomaly and compare --figure draw through gnuplot (t0725).
TESTPKGS := mandoc tmux openssh-server openssh-client strace gnuplot-nox \
            munge slurmctld slurmd slurm-client slurm-wlm-basic-plugins

CC      ?= cc
ifeq ($(origin CC),default)
CC      := gcc
endif

# One variant per build directory; the top-level targets re-enter make with
# VARIANT set so objects of different flags never mix.
VARIANT ?= rel
B       := build/$(VARIANT)
# The top-level targets' build dir: B= from the command line (parallel
# worktrees, side-by-side builds) reaches the sub-make through MAKEFLAGS, so
# the tests must run that dir's binaries too, not build/VARIANT's.
BDIR     = $(if $(filter command line,$(origin B)),$(B),build/$(1))

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wpointer-arith -Wformat=2 -Wno-format-nonliteral
# -pthread: the replay's store writer (src/cmd/replay-db.c) is a thread.
BASE    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Isrc -I. -MMD -MP -pthread
ifeq ($(VARIANT),rel)
OPT     := -O2 -g
else ifeq ($(VARIANT),dbg)
OPT     := -O1 -g -DCELLAR_DEBUG
else ifeq ($(VARIANT),asan)
OPT     := -O1 -g -DCELLAR_DEBUG -fsanitize=address,undefined -fno-omit-frame-pointer \
           -fno-sanitize-recover=undefined
LDASAN  := -fsanitize=address,undefined
else ifeq ($(VARIANT),tsan)
# ThreadSanitizer, by hand: make VARIANT=tsan variant-tests (not in check).
OPT     := -O1 -g -DCELLAR_DEBUG -fsanitize=thread -fno-omit-frame-pointer
LDASAN  := -fsanitize=thread
else ifeq ($(VARIANT),fuzz)
# clang only: everything instrumented for libFuzzer, which links the target.
OPT     := -O1 -g -DCELLAR_DEBUG -fsanitize=fuzzer-no-link,address,undefined \
           -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDASAN  := -fsanitize=address,undefined
endif
CFLAGS  ?=
CFLAGS  += $(BASE) $(WARN) $(OPT)

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LDLIBS     = $(PKG_LIBS) -lm -pthread $(LDASAN)

# Layers. Each directory's sources are listed by wildcard; main.c sees all.
SRC_CORE   := $(wildcard src/core/*.c)
SRC_SPEC   := $(wildcard src/spec/*.c)
SRC_ENGINE := $(wildcard src/engine/*.c)
SRC_JOB    := $(wildcard src/job/*.c)
SRC_POLICY := $(wildcard src/policy/*.c)
SRC_SIM    := $(wildcard src/sim/*.c)
SRC_BACKEND := $(wildcard src/backend/*.c)
SRC_IPC    := $(wildcard src/ipc/*.c)
SRC_CLUSTER := $(wildcard src/cluster/*.c)
SRC_LIVE   := $(wildcard src/live/*.c)
SRC_CMD    := $(wildcard src/cmd/*.c) src/serve.c src/serve-client.c
SRC_DASH   := $(wildcard src/dash/*.c)
SRC_UI     := $(wildcard ui/*.c)
SRC_STORE  := $(wildcard store/*.c)
SRC_LIB    := $(SRC_CORE) $(SRC_SPEC) $(SRC_ENGINE) $(SRC_JOB) $(SRC_POLICY) $(SRC_SIM) \
              $(SRC_BACKEND) $(SRC_IPC) $(SRC_CLUSTER) $(SRC_LIVE) $(SRC_CMD) $(SRC_DASH) \
              $(SRC_UI) $(SRC_STORE)
GEN_SRC    := $(B)/gen/default-spec.c
GEN_DEMO   := $(B)/gen/demo-trace.c
GEN_STORE  := $(B)/gen/store-schema.c
OBJ_LIB    := $(SRC_LIB:%.c=$(B)/%.o) $(GEN_SRC:.c=.o) $(GEN_STORE:.c=.o) $(GEN_DEMO:.c=.o)
OBJ_MAIN   := $(B)/src/main.o

TEST_SRC   := $(wildcard tests/unit/t*.c)
TEST_BIN   := $(TEST_SRC:%.c=$(B)/%)
BENCH_SRC  := $(wildcard tests/bench/*.c)
BENCH_BIN  := $(BENCH_SRC:%.c=$(B)/%)
# Helpers the scenario scripts run (tests/helpers: sqlexec, for the store's
# fault tests; snapcheck, for its concurrency test; they may link the
# project's objects).
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:%.c=$(B)/%)
# The fuzz target, driven deterministically in every test build.
FUZZ_DRIVER := $(B)/tests/fuzz/fuzz-main
FUZZ_TARGET := $(B)/tests/fuzz/fuzz-cmdline
FUZZ_TIME  ?= 60
FUZZ_FLAGS ?=

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
DESTDIR ?=
INSTALL ?= install
INSTALL_BIN ?= build/rel/cellar

# Only these objects see the outside libraries' headers (the layer check
# enforces that nobody else includes them).
$(B)/ui/%.o $(B)/store/%.o $(B)/src/spec/spec-yaml.o: CFLAGS += $(PKG_CFLAGS)

.PHONY: all run check check-long asan bench clean deps test-deps mutate variant-all variant-tests variant-bench lint-man \
        check-man check-papers fuzz variant-fuzz install install-files
all: deps
	@$(MAKE) --no-print-directory VARIANT=rel variant-all
	@ln -sf $(call BDIR,rel)/cellar cellar

run: all
	./cellar

check: test-deps
	@$(MAKE) --no-print-directory VARIANT=dbg variant-tests
	@CELLAR_BUILD=$(call BDIR,dbg) sh tests/run.sh

check-long: test-deps
	@$(MAKE) --no-print-directory VARIANT=dbg variant-tests
	@CELLAR_BUILD=$(call BDIR,dbg) CELLAR_LONG=1 sh tests/run.sh

asan: test-deps
	@$(MAKE) --no-print-directory VARIANT=asan variant-tests
	@CELLAR_BUILD=$(call BDIR,asan) ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 sh tests/run.sh

bench: deps
	@$(MAKE) --no-print-directory VARIANT=rel variant-bench
	@for b in $(BENCH_SRC:%.c=$(call BDIR,rel)/%); do echo "== $$b"; $$b || exit 1; done

# The seed papers' claims, one script each (tests/papers/README.md); make
# check runs them too.
check-papers: test-deps
	@$(MAKE) --no-print-directory VARIANT=dbg variant-tests
	@CELLAR_BUILD=$(call BDIR,dbg) sh tests/run.sh papers

# The mutation tier (tests/mutate/run.sh): each mutation of
# tests/mutate/mutations, in a copy of the tree, must fail a test.
mutate: test-deps
	@$(MAKE) --no-print-directory VARIANT=dbg variant-tests
	@MUTATE_DIR=$(call BDIR,dbg)/../mutate sh tests/mutate/run.sh $(MUTATE)

# The manual against the command table (t0050), its examples run (t0055),
# and the lint; fails on the first "not ok".
check-man: test-deps
	@$(MAKE) --no-print-directory VARIANT=dbg variant-tests
	@for t in tests/manlint.sh tests/scenarios/t0050-help-vs-man.sh \
	    tests/scenarios/t0055-man-examples.sh; do \
	  CELLAR=$$(pwd)/$(call BDIR,dbg)/cellar sh $$t; \
	done >$(call BDIR,dbg)/check-man.log 2>&1; cat $(call BDIR,dbg)/check-man.log; \
	! grep -q '^not ok' $(call BDIR,dbg)/check-man.log

# libFuzzer: new inputs go to build/fuzz/corpus, crashes to build/fuzz/crash-*;
# tests/fuzz/corpus is the seed corpus (add a crash there once it is fixed).
fuzz: deps
	@$(MAKE) --no-print-directory VARIANT=fuzz CC=clang variant-fuzz
	@mkdir -p build/fuzz/corpus
	build/fuzz/tests/fuzz/fuzz-cmdline -max_total_time=$(FUZZ_TIME) \
	    -dict=tests/fuzz/cmdline.dict -max_len=4096 -timeout=10 \
	    -artifact_prefix=build/fuzz/ $(FUZZ_FLAGS) build/fuzz/corpus tests/fuzz/corpus

install: all
	@$(MAKE) --no-print-directory install-files

# What install copies; INSTALL_BIN names the binary (tests install theirs).
install-files:
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(UNITDIR)
	$(INSTALL) -m 755 $(INSTALL_BIN) $(DESTDIR)$(BINDIR)/cellar
	$(INSTALL) -m 644 man/cellar.1 $(DESTDIR)$(MANDIR)/man1/cellar.1
	$(INSTALL) -m 644 man/cellar-spec.5 $(DESTDIR)$(MANDIR)/man5/cellar-spec.5
	sed 's|@BINDIR@|$(BINDIR)|' specs/systemd/cellar.service >$(DESTDIR)$(UNITDIR)/cellar.service
	chmod 644 $(DESTDIR)$(UNITDIR)/cellar.service

variant-all: $(B)/cellar
variant-tests: $(B)/cellar $(TEST_BIN) $(FUZZ_DRIVER) $(HELPER_BIN)
variant-bench: $(B)/cellar $(BENCH_BIN)
variant-fuzz: $(FUZZ_TARGET)

$(B)/cellar: $(OBJ_MAIN) $(OBJ_LIB)
	$(CC) $(CFLAGS) -o $@ $(filter %.c %.o,$^) $(LDLIBS)

# Unit tests link only the layers below them, by name prefix, so each layer
# builds and tests on its own: tcore-*, tspec-*, tengine-*, anything else
# links the whole library.
OBJ_CORE   := $(SRC_CORE:%.c=$(B)/%.o)
OBJ_SPEC   := $(OBJ_CORE) $(SRC_SPEC:%.c=$(B)/%.o) $(GEN_SRC:.c=.o)
OBJ_ENGINE := $(OBJ_SPEC) $(SRC_ENGINE:%.c=$(B)/%.o)
$(B)/tests/unit/tcore-%: tests/unit/tcore-%.c $(OBJ_CORE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $(filter %.c %.o,$^) -lm $(LDASAN)
$(B)/tests/unit/tspec-%: tests/unit/tspec-%.c $(OBJ_SPEC)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $(filter %.c %.o,$^) $(LDLIBS)
$(B)/tests/unit/tengine-%: tests/unit/tengine-%.c $(OBJ_ENGINE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $(filter %.c %.o,$^) $(LDLIBS)
$(B)/tests/unit/%: tests/unit/%.c $(OBJ_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itests/unit -o $@ $< $(OBJ_LIB) $(LDLIBS)

$(B)/tests/helpers/%: tests/helpers/%.c $(OBJ_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(OBJ_LIB) $(LDLIBS)

$(FUZZ_DRIVER): tests/fuzz/fuzz-main.c tests/fuzz/fuzz-cmdline.c $(OBJ_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ tests/fuzz/fuzz-main.c tests/fuzz/fuzz-cmdline.c $(OBJ_LIB) $(LDLIBS)

$(FUZZ_TARGET): tests/fuzz/fuzz-cmdline.c $(OBJ_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(OBJ_LIB) $(LDLIBS)

$(B)/tests/bench/%: tests/bench/%.c $(OBJ_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(OBJ_LIB) $(LDLIBS)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

# The default spec is compiled in so the console starts anywhere.
$(B)/gen/default-spec.c: specs/default.yaml
	@mkdir -p $(@D)
	@{ echo '/* generated from specs/default.yaml by the Makefile; do not edit */'; \
	   echo '#include <stddef.h>'; \
	   echo 'const char default_spec_yaml[] = {'; \
	   od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	   echo '0x00 };'; \
	   echo 'const size_t default_spec_yaml_len = sizeof default_spec_yaml - 1;'; } > $@

$(B)/gen/default-spec.o: $(B)/gen/default-spec.c
	$(CC) $(filter-out -Wmissing-prototypes,$(CFLAGS)) -c -o $@ $<

# The dashboard's demo workload: a scripted opening, then a Philly sample
# (see specs/README.md), two C strings.
$(B)/gen/demo-trace.c: specs/demo-opening.csv specs/demo-philly.csv
	@mkdir -p $(@D)
	@{ echo '/* generated from specs/demo-opening.csv and specs/demo-philly.csv by the Makefile; do not edit */'; \
	   echo 'const char dash_demo_opening[] = {'; \
	   od -An -v -tx1 specs/demo-opening.csv | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	   echo '0x00 };'; \
	   echo 'const unsigned long dash_demo_opening_len = sizeof dash_demo_opening - 1;'; \
	   echo 'const char dash_demo_trace[] = {'; \
	   od -An -v -tx1 specs/demo-philly.csv | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	   echo '0x00 };'; \
	   echo 'const unsigned long dash_demo_trace_len = sizeof dash_demo_trace - 1;'; } > $@

$(B)/gen/demo-trace.o: $(B)/gen/demo-trace.c
	$(CC) $(filter-out -Wmissing-prototypes,$(CFLAGS)) -c -o $@ $<

# The store's schema, the same way: store/schema.sql as one C string.
$(B)/gen/store-schema.c: store/schema.sql
	@mkdir -p $(@D)
	@{ echo '/* generated from store/schema.sql by the Makefile; do not edit */'; \
	   echo 'const char store_schema_sql[] = {'; \
	   od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	   echo '0x00 };'; } > $@

$(B)/gen/store-schema.o: $(B)/gen/store-schema.c
	$(CC) $(filter-out -Wmissing-prototypes,$(CFLAGS)) -c -o $@ $<

# Install what is missing (as root) or say exactly what to run. `deps`
# is what cellar needs to build and run (make, make install); `test-deps`
# adds the tools and daemons the tests drive (sshd, munge, Slurm, tmux ...),
# for the test targets only: an operator's `make install` never installs
# a daemon.
deps:
	@missing=""; \
	for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing=1; done; \
	command -v pkg-config >/dev/null 2>&1 || missing=1; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing build dependencies: $(DEBPKGS)"; \
	    (apt-get install -y -q $(DEBPKGS) >/dev/null 2>&1 || \
	     (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $(DEBPKGS))) || exit 1; \
	  else \
	    echo "missing build dependencies; run:"; \
	    echo "  sudo apt-get install -y $(DEBPKGS)"; exit 1; \
	  fi; \
	fi

test-deps: deps
	@if ! command -v mandoc >/dev/null 2>&1 || ! command -v tmux >/dev/null 2>&1 || \
	   [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null 2>&1 || \
	   ! command -v strace >/dev/null 2>&1 || ! command -v gnuplot >/dev/null 2>&1 || \
	   [ ! -x /usr/sbin/munged ] || [ ! -x /usr/sbin/slurmctld ] || \
	   [ ! -x /usr/sbin/slurmd ] || ! command -v sbatch >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing test tools: $(TESTPKGS)"; \
	    (apt-get install -y -q $(TESTPKGS) >/dev/null 2>&1 || \
	     (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $(TESTPKGS))) >/dev/null || \
	     echo "some test tools did not install (their tests fail)"; \
	  else \
	    echo "some test tools are missing (their tests fail); run:"; \
	    echo "  sudo apt-get install -y $(TESTPKGS)"; \
	  fi; \
	fi

clean:
	rm -rf build cellar

-include $(shell find build -name '*.d' 2>/dev/null)
