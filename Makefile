# formdesk build. `make` builds ./formdesk; `make check` builds everything under
# AddressSanitizer and UndefinedBehaviorSanitizer and runs every test; `make run` installs
# missing Debian packages, builds and opens the simulator; `make bench` prints the speed
# figures.

PKGS := libcjson libutf8proc sndfile samplerate speexdsp webrtc-audio-processing sqlite3 \
	ncursesw portaudio-2.0 espeak-ng sox libcurl libcrypto
CFLAGS_PKG := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS_PKG := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_PKGS := cmocka libmicrohttpd

CC ?= cc
CXX ?= c++
WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wstrict-prototypes
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -I. $(CFLAGS_PKG) -MMD -MP
BASE_CXXFLAGS := -std=c++17 -Wall -Wextra -Werror -I. $(CFLAGS_PKG) -MMD -MP
# -fsanitize=undefined leaves out float -> integer overflow (gcc and clang alike); it is
# named here so a number from outside converted without a range check stops the test.
SAN := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined,float-cast-overflow
LDLIBS := $(LIBS_PKG) -lm -lpthread

LIB_C := $(sort $(wildcard base/*.c agent/*/*.c audio/*.c sessions/*/*.c annotations/*.c tui/*.c cli/*.c))
LIB_CXX := $(sort $(wildcard audio/*.cc))
TEST_C := $(sort $(wildcard tests/test_*.c))
TEST_SUPPORT := $(sort $(wildcard tests/support/*.c))

OBJ := $(LIB_C:%.c=build/rel/%.o) $(LIB_CXX:%.cc=build/rel/%.o)
SAN_OBJ := $(LIB_C:%.c=build/san/%.o) $(LIB_CXX:%.cc=build/san/%.o)
SAN_SUPPORT := $(TEST_SUPPORT:%.c=build/san/%.o)
TEST_BIN := $(TEST_C:tests/%.c=build/san/tests/%)
FUZZ_C := $(sort $(wildcard tests/fuzz/fuzz_*.c))
BENCH_C := $(sort $(wildcard tests/bench_*.c))
BENCH_BIN := $(BENCH_C:tests/%.c=build/rel/tests/%)

.PHONY: all check run bench clean deps corpora layers fuzz killtest FORCE
all: formdesk corpora

# formdesk's version, recorded with every run (sessions/calls/runs.c): git describe, rewritten
# only when it changes, so only what includes it is rebuilt.
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
build/version.h: FORCE
	@mkdir -p build
	@echo '#define FORMDESK_VERSION "$(VERSION)"' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
build/rel/sessions/calls/runs.o build/san/sessions/calls/runs.o build/fuzz/sessions/calls/runs.o: build/version.h

deps:
	@scripts/deps.sh

# Dependencies point one way (DESIGN.md): fails naming the file and line of a wrong-way
# #include.
layers:
	@scripts/layers.sh

formdesk: build/rel/formdesk.o $(OBJ)
	@echo '  LINK    $@'
	@$(CXX) -o $@ $^ $(LDLIBS)

build/san/formdesk: build/san/formdesk.o $(SAN_OBJ)
	@echo '  LINK    $@'
	@$(CXX) $(SAN) -o $@ $^ $(LDLIBS)

build/rel/%.o: %.c
	@mkdir -p $(dir $@)
	@echo '  CC      $<'
	@$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<
build/rel/%.o: %.cc
	@mkdir -p $(dir $@)
	@echo '  CXX     $<'
	@$(CXX) $(BASE_CXXFLAGS) $(CFLAGS) -c -o $@ $<
build/san/%.o: %.c
	@mkdir -p $(dir $@)
	@echo '  CC san  $<'
	@$(CC) $(BASE_CFLAGS) -O1 -g $(SAN) $(shell pkg-config --cflags $(TEST_PKGS)) -c -o $@ $<
build/san/%.o: %.cc
	@mkdir -p $(dir $@)
	@echo '  CXX san $<'
	@$(CXX) $(BASE_CXXFLAGS) -O1 -g $(SAN) -c -o $@ $<

build/san/tests/%: build/san/tests/%.o $(SAN_OBJ) $(SAN_SUPPORT)
	@echo '  LINK    $@'
	@$(CXX) $(SAN) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs $(TEST_PKGS))

# The saved fuzz inputs run through the targets' entry functions, without libFuzzer.
build/san/tests/test_fuzz: $(FUZZ_C:%.c=build/san/%.o)

# The failing-allocation run: the loaders, the rule layer and the store compiled with an
# allocator that fails the Nth allocation (tests/support/failalloc.h), linked instead of
# their usual objects.
FAILALLOC_SRC := agent/rules/form.c agent/rules/flow.c agent/rules/decision.c agent/rules/validate.c agent/rules/normalize.c \
	agent/rules/extraction.c agent/stages/provider.c sessions/store/store.c base/file.c base/vec.c
FAILALLOC_OBJ := $(FAILALLOC_SRC:%.c=build/san/failalloc/%.o)
build/san/failalloc/%.o: %.c
	@mkdir -p $(dir $@)
	@echo '  CC fail $<'
	@$(CC) $(BASE_CFLAGS) -O1 -g $(SAN) -include tests/support/failalloc.h -c -o $@ $<
build/san/tests/test_failalloc: build/san/tests/test_failalloc.o $(FAILALLOC_OBJ) \
		$(filter-out $(FAILALLOC_SRC:%.c=build/san/%.o),$(SAN_OBJ)) $(SAN_SUPPORT)
	@echo '  LINK    $@'
	@$(CXX) $(SAN) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs $(TEST_PKGS))

build/rel/tests/%: build/rel/tests/%.o $(OBJ) $(TEST_SUPPORT:%.c=build/rel/%.o)
	@echo '  LINK    $@'
	@$(CXX) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs $(TEST_PKGS))

# The bundled corpora: the demo corpus's audio is synthesized by espeak-ng at build time
# (marked synthetic, never committed); the real-speech corpus is laid out from the RESPIN
# clips. See corpus/README.md.
corpora: formdesk
	@scripts/build-corpora.sh

# The layering check (scripts/layers.sh) runs first: a wrong-way #include fails the check.
# The benchmark programs are built (not run) too, so they cannot fall behind the code.
check: deps layers
	@$(MAKE) --no-print-directory formdesk corpora build/san/formdesk $(TEST_BIN) $(BENCH_BIN)
	@scripts/run-tests.sh $(TEST_BIN)

# kill -9 at KILL_MOMENTS random moments (default 50; make check runs 12) of a headless
# run and of a live typed call, seeded by KILL_SEED (tests/e2e_kill.sh), and of a
# microphone call's recordings (tests/e2e_kill_audio.sh; make check runs 6) and of a
# bench, each resumed (tests/e2e_kill_bench.sh; make check runs 3).
KILL_MOMENTS ?= 50
KILL_SEED ?= 18
killtest: deps
	@$(MAKE) --no-print-directory formdesk corpora build/san/formdesk
	@KILL_MOMENTS=$(KILL_MOMENTS) KILL_SEED=$(KILL_SEED) FORMDESK_WORDS=$(CURDIR)/agent/words \
		bash tests/e2e_kill.sh
	@KILL_MOMENTS=$(KILL_MOMENTS) KILL_SEED=$(KILL_SEED) FORMDESK_WORDS=$(CURDIR)/agent/words \
		bash tests/e2e_kill_audio.sh
	@KILL_MOMENTS=$(KILL_MOMENTS) KILL_SEED=$(KILL_SEED) FORMDESK_WORDS=$(CURDIR)/agent/words \
		bash tests/e2e_kill_bench.sh

run: deps
	@$(MAKE) --no-print-directory formdesk corpora
	./formdesk

bench: deps
	@$(MAKE) --no-print-directory formdesk corpora $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

# Fuzzing (tests/fuzz/README.md): every target under libFuzzer (clang), FUZZ_SECONDS
# each (default 60); prints executions and findings per target and saves each finding
# under tests/fuzz/regress/TARGET/, where `make check` runs it from then on.
FUZZ_CC ?= clang
FUZZ_CXX ?= clang++
FUZZ_SECONDS ?= 60
# -Wno-error: clang warns where gcc (the build of record) does not; the fuzz build says so
# but goes on.
FUZZ_SAN := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined,float-cast-overflow -Wno-error
FUZZ_TARGETS := form corpus chat anthropic stt extract audio callimport
FUZZ_OBJ := $(LIB_C:%.c=build/fuzz/%.o) $(LIB_CXX:%.cc=build/fuzz/%.o) $(FUZZ_C:%.c=build/fuzz/%.o)
FUZZ_BIN := $(FUZZ_TARGETS:%=build/fuzz/bin/fuzz_%)
.SECONDARY: $(FUZZ_OBJ)

build/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	@echo '  CC fuzz $<'
	@$(FUZZ_CC) $(BASE_CFLAGS) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $@ $<
build/fuzz/%.o: %.cc
	@mkdir -p $(dir $@)
	@echo '  CXX fuzz $<'
	@$(FUZZ_CXX) $(BASE_CXXFLAGS) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $@ $<
build/fuzz/bin/fuzz_%: tests/fuzz/libfuzzer.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	@echo '  LINK    $@'
	@$(FUZZ_CXX) -x c $(BASE_CFLAGS) -MF /dev/null -DFUZZ_FN=fuzz_$* -O1 -g $(FUZZ_SAN) \
		-fsanitize=fuzzer -o $@ tests/fuzz/libfuzzer.c -x none $(FUZZ_OBJ) $(LDLIBS)

fuzz: deps
	@scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZ_TARGETS)

clean:
	rm -rf build formdesk

-include $(shell find build -name '*.d' 2>/dev/null)
