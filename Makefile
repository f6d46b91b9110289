# foliobench: one flat GNU Makefile.  `make run` and `make test` are all a
# user needs; both install what is missing first (mk/deps.sh).

CC	?= cc
PKGS	:= sqlite3 libcjson hwloc libcurl fuse3 zlib
CFLAGS	?= -O2 -g
CFLAGS	+= -std=gnu11 -Wall -Wextra -Wshadow -Wno-missing-field-initializers \
	   -D_GNU_SOURCE -I. -Ibuild/gen -Ischema -MMD -MP
LDLIBS	+= -lm -lpthread

ifeq ($(SAN),1)
CFLAGS	+= -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=undefined \
	   -Wno-string-concatenation -Wno-unused-but-set-variable
LDFLAGS	+= -fsanitize=address,undefined
B	:= build/san
else
B	:= build
endif

ifneq ($(V),1)
Q	:= @
echo_cc	= @echo "  CC      $@";
echo_ld	= @echo "  LD      $@";
endif

# Flags are asked of pkg-config only once the packages are there.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)

LIB_SRC	:= $(filter-out bench/main.c,$(wildcard common/*.c runner/*.c \
	     workloads/*.c workloads/sys/*.c schema/*.c reports/*.c upload/*.c \
	     bench/*.c))
LIB_OBJ	:= $(LIB_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/schema_sql.o \
	   $(B)/obj/gen/vm_init.o $(B)/obj/gen/run_schema.o
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
SQL	:= $(sort $(wildcard schema/*.sql))

DB	?=
DBOPT	= $(if $(DB),--db $(DB)) $(if $(CONFIG),--config $(CONFIG))
CONFIG	?=
LABEL	?=
FORMAT	?= text

.PHONY: all deps run test test-unit test-bats compare compare-vm export report \
	clean bench-control bench-seqread bench-shmem bench-smalltrunc bench-shadow bench-scale probes install \
	bench-fill uninstall fuzz fuzz-build
.DEFAULT_GOAL := all

all: $(B)/bench

deps:
	$(Q)sh mk/deps.sh

$(B)/bench: $(B)/obj/bench/main.o $(LIB_OBJ)
	$(echo_ld)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

# The tool reports its own version; relink when it changes.
$(B)/obj/bench/main.o: CFLAGS += -DFB_VERSION='"$(VERSION)"'
# seq-read's timed loop calls read(2) through the GOT, not a PLT stub on a
# code page of its own: in a guest that loses user TLB entries at every
# system call, each page the loop touches costs ~0.9% of a 4K read
# (workloads/seq_read.c, read_loop).
$(B)/obj/workloads/seq_read.o: CFLAGS += -fno-plt
$(B)/obj/bench/main.o: $(B)/.version

$(B)/.version: FORCE
	@mkdir -p $(@D); echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
FORCE:

$(B)/libfb.a: $(LIB_OBJ)
	$(Q)rm -f $@; ar rcs $@ $^

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(echo_cc)$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

# The migrations are compiled in: build/gen/schema_sql.c holds them in order.
build/gen/schema_sql.c: $(SQL) mk/embed_sql.sh
	@mkdir -p $(@D)
	$(Q)sh mk/embed_sql.sh $(SQL) > $@.tmp && mv $@.tmp $@

$(B)/obj/gen/schema_sql.o: build/gen/schema_sql.c
	@mkdir -p $(@D)
	$(echo_cc)$(CC) $(CFLAGS) -c -o $@ $<

# A text file compiled in as one C string named $(1).
embed = { echo '/* generated from $<: do not edit */'; \
	  echo 'const char $(1)[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/\t"/; s/$$/\\n"/' $<; \
	  echo ';'; } > $@.tmp && mv $@.tmp $@

# The init of `bench vm` guests.
build/gen/vm_init.c: runner/vm_init.sh
	@mkdir -p $(@D)
	$(Q)$(call embed,vm_init_sh)

$(B)/obj/gen/vm_init.o: build/gen/vm_init.c
	@mkdir -p $(@D)
	$(echo_cc)$(CC) $(CFLAGS) -c -o $@ $<

# The run document's schema, compiled in as one string: what export --run
# and the json dashboard check a document against (reports/schema_check.c).
build/gen/run_schema.c: schema/run.schema.json
	@mkdir -p $(@D)
	$(Q)$(call embed,run_schema_json)

$(B)/obj/gen/run_schema.o: build/gen/run_schema.c
	@mkdir -p $(@D)
	$(echo_cc)$(CC) $(CFLAGS) -c -o $@ $<

$(B)/tests/%: tests/unit/%.c $(B)/libfb.a
	@mkdir -p $(@D)
	$(echo_ld)$(CC) $(CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libfb.a $(PKG_LIBS) $(LDLIBS)

# libFuzzer harnesses (clang): tests/fuzz/fuzz_*.c against the library
# (two clang warnings gcc does not give are off: a deliberate string
# concatenation in a table, a volatile sink that is only written)
# built with the fuzzer's coverage, ASan and UBSan, always under build/fuzz.
FUZZ_CC	?= clang
FUZZ_S	?= 60
FZ	:= build/fuzz
FUZZ_CFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -Wshadow \
	   -Wno-missing-field-initializers -D_GNU_SOURCE -I. -Ibuild/gen \
	   -Ischema -MMD -MP -fno-omit-frame-pointer \
	   -fsanitize=fuzzer-no-link,address,undefined \
	   -fno-sanitize-recover=undefined \
	   -Wno-string-concatenation -Wno-unused-but-set-variable
# struct db's error buffer is named only in schema/ (db.h poisons it
# elsewhere; the rest of the tree reads db_errmsg()).
$(B)/obj/schema/%.o: CFLAGS += -DFB_SCHEMA_OWN
$(FZ)/obj/schema/%.o: FUZZ_CFLAGS += -DFB_SCHEMA_OWN
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(FZ)/%)
FUZZ_OBJ := $(LIB_SRC:%.c=$(FZ)/obj/%.o) $(FZ)/obj/gen/schema_sql.o \
	    $(FZ)/obj/gen/vm_init.o $(FZ)/obj/gen/run_schema.o

$(FZ)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(echo_cc)$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(FZ)/obj/gen/schema_sql.o: build/gen/schema_sql.c
	@mkdir -p $(@D)
	$(echo_cc)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FZ)/obj/gen/vm_init.o: build/gen/vm_init.c
	@mkdir -p $(@D)
	$(echo_cc)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FZ)/obj/gen/run_schema.o: build/gen/run_schema.c
	@mkdir -p $(@D)
	$(echo_cc)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FZ)/libfb.a: $(FUZZ_OBJ)
	$(Q)rm -f $@; ar rcs $@ $^

$(FZ)/fuzz_%: tests/fuzz/fuzz_%.c $(FZ)/libfb.a
	$(echo_ld)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) \
		-o $@ $< $(FZ)/libfb.a $(PKG_LIBS) $(LDLIBS)

fuzz-build: $(FUZZ_BIN)

# Each harness for FUZZ_S seconds; a crash lands in build/fuzz/artifacts/
# and fails the target: copy it into tests/fuzz/corpus/NAME/ to keep it.
fuzz: deps
	$(Q)$(MAKE) --no-print-directory fuzz-build
	$(Q)sh mk/fuzz.sh $(FZ) $(FUZZ_S)

run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(B)/bench run $(DBOPT) $(if $(LABEL),--label $(LABEL))

test: deps
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BIN) $(FUZZ_BIN) $(PROBES)
	$(Q)sh mk/test.sh $(B)

test-unit: $(UNIT_BIN)
	$(Q)for t in $(UNIT_BIN); do $$t || exit 1; done

compare: all
	$(Q)$(B)/bench compare $(DBOPT) --format $(FORMAT) $(if $(STRICT),--strict) $(if $(AA),--aa '$(BASE)','$(BASE)' '$(PATCH)')

# Two kernels booted in turn in QEMU guests until the plan is met, then
# compared: make compare-vm BASE=KERNEL PATCH=KERNEL [BOOTS=4] [VMOPTS=...]
# (kernels as `bench vm` takes them: a release, a build tree, a .deb).
BOOTS	?= 4
VMOPTS	?=
compare-vm: all
	$(Q)$(B)/bench lab $(if $(DB),--db $(DB)) --boots $(BOOTS) $(VMOPTS) '$(BASE)' '$(PATCH)' $(if $(CONFIG),-- run --config $(CONFIG))

export: all
	$(Q)$(B)/bench export $(DBOPT) --format $(FORMAT) '$(LABEL)'

# One HTML page with a plot of every sample (PATCH may be left out).
OUT	?= report.html
report: all
	$(Q)$(B)/bench report $(DBOPT) -o '$(OUT)' '$(BASE)' $(if $(PATCH),'$(PATCH)')

# seq-read against fio and a bare read loop on one file (RUNTIME, SIZE, BS,
# ROUNDS from the environment or the command line); a benchmark, not a test.
bench-seqread: all
	$(Q)sh bench/seqread_vs_fio.sh $(B)/bench

# The bare probes the fidelity benchmarks hold the workloads against.
PROBES	:= $(B)/probe/bare_remove $(B)/probe/bare_truncate \
		   $(B)/probe/bare_shadow $(B)/probe/bare_fill
probes: $(PROBES)
$(B)/probe/%: bench/probe/%.c
	@mkdir -p $(@D)
	$(echo_ld)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)
-include $(PROBES:=.d)
# bare_shadow serves its own FUSE file system
$(B)/probe/bare_shadow: CFLAGS += $(shell pkg-config --cflags fuse3)
$(B)/probe/bare_shadow: LDLIBS += $(shell pkg-config --libs fuse3)

# shmem-remove, every op x folio at 2G and 8G, against the bare call
# (SIZES, CASES, ROUNDS, REPS, RT); small-truncate's p50 against a bare
# truncate loop (COUNT, PAGES, WSIZE, CASES, ROUNDS, REPS, RT).
# Benchmarks, not tests: neither is part of make test.
bench-shmem: all $(PROBES)
	$(Q)sh bench/shmem_vs_bare.sh $(B)/bench $(B)/probe

bench-smalltrunc: all $(PROBES)
	$(Q)sh bench/smalltrunc_vs_bare.sh $(B)/bench $(B)/probe

# shadow-truncate's timed truncate against the bare call on the same
# state (SIZE, DIR, ROUNDS, REPS, RT).  A benchmark, not a test.
bench-shadow: all $(PROBES)
	$(Q)sh bench/shadow_vs_bare.sh $(B)/bench $(B)/probe

# The positive controls of issue 26: the seeds' patches built into
# Linux 6.12 (SRC=, default Debian's linux-source-6.12), booted against the
# tree without them in counting guests (BOOTS= a kernel), the null control
# and the seeds once in timed TCG (TIMED_BOOTS=); CONTROLS= picks, OUT= is
# where the databases and tables go.  A benchmark, not a test: it builds
# four kernels (the first tens of minutes) and boots many guests.
bench-control: all
	$(Q)sh bench/control.sh $(B)/bench

# shadow-truncate's setup (the FUSE read into the page cache) against the
# bare FUSE read of the same file in the same cgroup and a bare fallocate
# of the same size on /dev/shm (SIZE, ROUNDS).  A benchmark, not a test.
bench-fill: all $(PROBES)
	$(Q)sh bench/fill_vs_bare.sh $(B)/bench $(B)/probe

# The reading commands on a lab's database of 10^4, 10^5 and 10^6 samples
# (made once under build/scale from real runs): a table of times and
# growth.  BENCH=another/bench times another binary on the same files;
# SIZES and REPEAT narrow it.
bench-scale: all
	$(Q)sh bench/scale.sh $(B)/bench build/scale $(BENCH)

# make install [PREFIX=/usr/local] [DESTDIR=] [SYSCONFDIR=/etc]: the binary,
# the example config, the man page and the systemd units.  The installed
# binary is linked apart: it looks for its config in
# $(SYSCONFDIR)/foliobench/config.json, then the installed example.
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
DATADIR	?= $(PREFIX)/share/foliobench
MANDIR	?= $(PREFIX)/share/man
UNITDIR	?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
INSTALL_DIRS := $(BINDIR):$(DATADIR):$(SYSCONFDIR)
# Data beside the example config: the guest kernels' config fragment
# (an installed bench finds it as FB_DATADIR "/kernel/guest.config",
# bench/main.c fb_kernel_fragment()), the
# seeds' patches and the controls' configs of make bench-control.
DATA_FILES := kernel/guest.config $(wildcard kernel/patches/*.patch) \
	$(wildcard bench/control/*.json)
INSTALLED := $(BINDIR)/bench $(DATADIR)/config.example.json \
	$(MANDIR)/man1/bench.1 $(UNITDIR)/foliobench-nightly.service \
	$(UNITDIR)/foliobench-nightly.timer $(addprefix $(DATADIR)/,$(DATA_FILES))

# The installed binary has its own main.o: it knows the installed paths
# (the config; the guest kernels' fragment, fb_kernel_fragment()).
$(B)/install/bench: $(B)/obj/install/main.o $(LIB_OBJ)
	@mkdir -p $(@D)
	$(echo_ld)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(B)/obj/install/main.o: bench/main.c $(B)/.install-dirs $(B)/.version
	@mkdir -p $(@D)
	$(echo_cc)$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -DFB_VERSION='"$(VERSION)"' \
		-DFB_SYSCONFDIR='"$(SYSCONFDIR)"' -DFB_DATADIR='"$(DATADIR)"' \
		-c -o $@ $<

$(B)/.install-dirs: FORCE
	@mkdir -p $(@D); echo '$(INSTALL_DIRS)' | cmp -s - $@ || \
		echo '$(INSTALL_DIRS)' > $@

install: all $(B)/install/bench
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(UNITDIR)
	$(Q)install -m 755 $(B)/install/bench $(DESTDIR)$(BINDIR)/bench
	$(Q)install -m 644 config.example.json $(DESTDIR)$(DATADIR)/
	$(Q)for f in $(DATA_FILES); do \
		install -D -m 644 $$f $(DESTDIR)$(DATADIR)/$$f || exit 1; done
	$(Q)install -m 644 packaging/bench.1 $(DESTDIR)$(MANDIR)/man1/
	$(Q)for u in foliobench-nightly.service foliobench-nightly.timer; do \
		sed 's|@BINDIR@|$(BINDIR)|g; s|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
			packaging/systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u && \
		chmod 644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; done
	@echo "installed under $(DESTDIR)$(PREFIX); config: $(SYSCONFDIR)/foliobench/config.json (else the example)"

# Removes what install put there, and the directories it made that are
# left empty: in a DESTDIR tree all of them, else only foliobench's own.
uninstall:
	$(Q)rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	$(Q)sh mk/rmdirs.sh '$(DESTDIR)' $(DATADIR)/kernel/patches \
		$(DATADIR)/kernel $(DATADIR)/bench/control $(DATADIR)/bench \
		$(if $(DESTDIR),$(BINDIR) $(DATADIR) $(MANDIR)/man1 \
		$(UNITDIR),$(DATADIR))

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
