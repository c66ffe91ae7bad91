# posgpt - build, test, demo.
#   make              ./posgpt                     make test           the test suite
#   make demo         the short demo               make data           data/kjv.txt, data/fortunes.txt (corpora)
#   make data CORPUS=file  any text as the corpus instead of the King James Bible (copied to data/kjv.txt)
#   make test-sanitize  the suite built with AddressSanitizer + UndefinedBehaviorSanitizer
#   make test-kernels   the numeric tests under several OpenBLAS kernels (KERNELS="Haswell SkylakeX";
#                       KERNEL_TESTS=all: the whole suite)
#   make test-clang     the test binaries and fast shell tests built with clang (build/clang/)
#   make test-onednn  with BLAS=onednn (build/onednn/): test_core, test_grad_d and test_onednn.sh
#   make test-arm64     cross-built for arm64 (build/aarch64-linux-gnu/), under qemu: test_core, the gradient
#                       checks of ARM64_SCHEMES, a checkpoint trained on arm64 evaluated on x86 (test_cross.sh)
#   make fuzz         200,000 damaged checkpoints, 100,000 damaged CSVs and 100,000 damaged fonts (plot), 100,000
#                     damaged task files, under ASan + UBSan
#   make bench        training / evaluation speed and memory (tools/bench.sh)
#   make valgrind     short train + eval + sample + plot under valgrind memcheck
#   make MPI=1        ./posgpt-mpi, the same program with data-parallel training over MPI (OpenMPI:
#                     libopenmpi-dev); mpirun -np 2 ./posgpt-mpi train ...  (README "Several processes")
# Toolchains and libraries (docs/install.md):
#   CLANG=1           build with clang into build/clang/ (build/clang/posgpt)
#   CROSS=aarch64-linux-gnu  cross-build with aarch64-linux-gnu-gcc into build/aarch64-linux-gnu/
#   BLAS_CFLAGS, BLAS_LIBS   OpenBLAS (default: pkg-config openblas, openblas-openmp, openblaso or
#                     openblas-pthread; without one, Debian's openblas-openmp folder)
#   STB_CFLAGS        where stb_image_write.h and stb_truetype.h are (default: the first of
#                     /usr/include/stb, /usr/local/include/stb, /opt/homebrew/include/stb that has them)
#   OMP_CFLAGS, OMP_LIBS     OpenMP (default -fopenmp; macOS: Homebrew's libomp)
#   BLAS=onednn       the float products through oneDNN's dnnl_sgemm (Debian: libdnnl-dev; gcc only), built
#                     into build/onednn/ (build/onednn/posgpt; with MPI=1, SAN=1: build/mpi-onednn/, ...);
#                     OpenBLAS stays linked (the double-precision checks, POSGPT_BLAS=openblas)
#   DNNL_CFLAGS, DNNL_LIBS   oneDNN (default: pkg-config dnnl, else -ldnnl)
#   PORTABLE=1 drops -march=native.  V=1 prints the full compiler command lines.
CC      ?= gcc
PKG_CONFIG ?= pkg-config
ifdef CROSS
CC      := $(CROSS)-gcc
PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/$(CROSS)/pkgconfig:/usr/share/pkgconfig pkg-config
PORTABLE := 1
TOOL    := $(CROSS)
else ifdef CLANG
CC      := clang
TOOL    := clang
# (clang warns "loop not vectorized" where an omp simd loop cannot be)
WARN_CC := -Wno-pass-failed
endif
ARCH    := $(if $(PORTABLE),,-march=native)
WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wno-missing-field-initializers -Werror=implicit-function-declaration $(WARN_CC)
ifdef MPI
B       := build/mpi
OPT     := -O3 $(ARCH) -g -DPOSGPT_MPI $(shell mpicc --showme:compile 2>/dev/null || echo MPI-NOT-FOUND)
BIN     := posgpt-mpi
MPILIBS := $(shell mpicc --showme:link 2>/dev/null)
else ifdef SAN
B       := build/san$(TOOL:%=-%)
# -O2 (the sanitizers want -O1 or more): a sanitized training run (rope, 2 layers, d 64, 20 steps,
# posgpt's sgemm) took 23 s of CPU at -O1 and 13 s at -O2, and the suite trains hundreds of runs
OPT     := -O2 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
BIN     := $(B)/posgpt
else ifdef TOOL
B       := build/$(TOOL)
OPT     := -O3 $(ARCH) -g
BIN     := $(B)/posgpt
else
B       := build
OPT     := -O3 $(ARCH) -g
BIN     := posgpt
endif
, := ,

# oneDNN (BLAS=onednn): its own build folder, beside the one the other settings picked
ifeq ($(BLAS),onednn)
ifdef CLANG
$(error BLAS=onednn: Debian's oneDNN runs on GNU OpenMP (libgomp) and clang's builds use LLVM's; build it with gcc (drop CLANG=1))
endif
B       := $(if $(filter build,$(B)),build/onednn,$(B)-onednn)
BIN     := $(B)/$(notdir $(BIN))
DNNL_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags dnnl 2>/dev/null)
DNNL_LIBS ?= $(or $(shell $(PKG_CONFIG) --libs dnnl 2>/dev/null),-ldnnl)
ONEDNN  := -DPOSGPT_ONEDNN $(DNNL_CFLAGS)
else ifneq ($(filter-out openblas,$(BLAS)),)
$(error BLAS=$(BLAS): unknown; give BLAS=onednn (oneDNN's sgemm) or leave it out (OpenBLAS))
endif

# OpenMP: Apple's clang has no -fopenmp of its own; Homebrew's libomp gives the runtime
ifeq ($(shell uname -s),Darwin)
LIBOMP  ?= $(shell brew --prefix libomp 2>/dev/null)
OMP_CFLAGS ?= -Xpreprocessor -fopenmp -I$(LIBOMP)/include
OMP_LIBS ?= -L$(LIBOMP)/lib -Wl,-rpath,$(LIBOMP)/lib -lomp
SYS_CFLAGS := -D_DARWIN_C_SOURCE
PKG_CONFIG := PKG_CONFIG_PATH=$(shell brew --prefix openblas 2>/dev/null)/lib/pkgconfig:$$PKG_CONFIG_PATH $(PKG_CONFIG)
else
OMP_CFLAGS ?= -fopenmp
OMP_LIBS ?= -fopenmp
endif

# OpenBLAS: pkg-config's first known name, else Debian's openblas-openmp folder; the library's
# folder is also the run-time search path, so the OpenMP build is the one that loads
ifndef BLAS_LIBS
BLAS_PC := $(firstword $(foreach p,openblas openblas-openmp openblaso openblas-pthread,$(shell $(PKG_CONFIG) --exists $p 2>/dev/null && echo $p)))
ifneq ($(BLAS_PC),)
BLAS_LIBS := $(shell $(PKG_CONFIG) --libs $(BLAS_PC))
ifndef BLAS_CFLAGS
BLAS_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(BLAS_PC))
endif
else
MULTIARCH := $(or $(shell $(CC) -print-multiarch 2>/dev/null),x86_64-linux-gnu)
BLAS_LIBS := -L/usr/lib/$(MULTIARCH)/openblas-openmp -lopenblas
BLAS_CFLAGS ?= -I/usr/include/$(MULTIARCH)/openblas-openmp
endif
endif
BLAS_RPATH := $(patsubst -L%,-Wl$(,)-rpath$(,)%,$(filter -L%,$(BLAS_LIBS)))
ifndef STB_CFLAGS
STB_CFLAGS := $(patsubst %/,-I%,$(firstword $(dir $(wildcard $(addsuffix /stb_image_write.h,/usr/include/stb /usr/local/include/stb /opt/homebrew/include/stb)))))
endif

CFLAGS  ?= $(OPT)
ALLCFLAGS = -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L $(SYS_CFLAGS) $(OMP_CFLAGS) -fno-math-errno $(WARN) $(CFLAGS) $(ONEDNN) $(BLAS_CFLAGS) $(STB_CFLAGS) -Imodel -Imodel/pos -Itrain -Itrain/tasks -Itools/plot
LDLIBS  = $(if $(SAN),-fsanitize=address$(,)undefined) $(MPILIBS) $(DNNL_LIBS) $(BLAS_LIBS) $(BLAS_RPATH) $(OMP_LIBS) -lz -lm

# quiet build lines ("CC model/gpt.c", "LD posgpt"); V=1 prints the commands themselves
ifneq ($(V),1)
Q       := @
say      = @printf '  %-3s %s\n' '$(1)' '$(2)';
endif

MODEL_SRC := $(wildcard model/*.c model/pos/*.c)
APP_SRC   := $(filter-out train/main.c,$(wildcard train/*.c train/tasks/*.c tools/plot/*.c))
MODEL_OBJ := $(MODEL_SRC:%.c=$(B)/f/%.o)
MODEL_DBL := $(MODEL_SRC:%.c=$(B)/d/%.o)
APP_OBJ   := $(APP_SRC:%.c=$(B)/f/%.o)
HDRS      := $(wildcard model/*.h model/pos/*.h train/*.h train/tasks/*.h tools/plot/*.h)

.PHONY: all test test-build test-kernels test-sanitize test-clang test-onednn test-arm64 fuzz valgrind bench demo data deps clean
all: $(BIN)

$(BIN): $(B)/f/train/main.o $(APP_OBJ) $(MODEL_OBJ)
	$(call say,LD,$@)$(CC) -o $@ $^ $(LDLIBS)

$(B)/f/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(ALLCFLAGS) -c -o $@ $<

# the exchange between MPI processes, timed (make MPI=1 build/mpi/exchange_bench)
$(B)/exchange_bench: tools/exchange_bench.c $(B)/f/train/dist.o $(B)/f/model/common.o $(HDRS)
	$(call say,LD,$@)$(CC) $(ALLCFLAGS) -o $@ $< $(B)/f/train/dist.o $(B)/f/model/common.o $(LDLIBS)

# the same model sources in double precision, for the gradient checks
$(B)/d/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(call say,CC,$< (double))$(CC) $(ALLCFLAGS) -DPOSGPT_DOUBLE -c -o $@ $<

# tests: test_*_d.c link the double model, test_*.c the float one (plus the app code)
TEST_D := $(patsubst tests/%.c,$(B)/tests/%,$(wildcard tests/test_*_d.c))
TEST_F := $(patsubst tests/%.c,$(B)/tests/%,$(filter-out $(wildcard tests/test_*_d.c),$(wildcard tests/test_*.c)))

# (and the position sampler, which the gradient checks draw positions with)
$(TEST_D): $(B)/tests/%: tests/%.c $(wildcard tests/*.h) $(MODEL_DBL) $(B)/d/train/positions.o $(HDRS)
	@mkdir -p $(B)/tests
	$(call say,LD,$@)$(CC) $(ALLCFLAGS) -DPOSGPT_DOUBLE -Itests -o $@ $< $(MODEL_DBL) $(B)/d/train/positions.o $(LDLIBS)

$(TEST_F): $(B)/tests/%: tests/%.c $(wildcard tests/*.h) $(MODEL_OBJ) $(APP_OBJ) $(HDRS)
	@mkdir -p $(B)/tests
	$(call say,LD,$@)$(CC) $(ALLCFLAGS) -Itests -o $@ $< $(APP_OBJ) $(MODEL_OBJ) $(LDLIBS)

# (and ./posgpt-mpi when OpenMPI is installed: tests/test_mpi.sh runs it)
test-build: $(BIN) $(TEST_D) $(TEST_F)
	@if [ -z "$(SAN)$(MPI)$(TOOL)$(ONEDNN)" ] && command -v mpicc > /dev/null; then $(MAKE) --no-print-directory MPI=1 posgpt-mpi; fi

test: deps
	@$(MAKE) --no-print-directory test-build
	@tools/run_tests.sh

# test-kernels: under each kernel, the tests whose results pass through the products (the core and
# gradient checks, decoding, the shift test, bf16, the thread-count, resume and sgemm byte-identity
# tests, the bias tables, the context extensions); the tests of the command line, the files, the
# plots and the pipelines run once, in `make test` (CI's time). KERNEL_TESTS=all: the whole suite
KERNEL_C_TESTS     ?= test_core test_grad_d test_model_d test_decode test_shift test_bf16 test_pos_lr
KERNEL_SHELL_TESTS ?= test_threads.sh test_sgemm.sh test_resume.sh test_bf16.sh test_bias.sh test_extension.sh
test-kernels: deps
	@$(MAKE) --no-print-directory test-build
	@$(if $(filter all,$(KERNEL_TESTS)),,C_TESTS="$(KERNEL_C_TESTS)" SHELL_TESTS="$(KERNEL_SHELL_TESTS)") tools/test_kernels.sh

# test-sanitize leaves out (SAN_SKIP_TESTS) two tests that add little sanitized code: test_mpi.sh
# trains with ./posgpt-mpi, which is not built sanitized (its calls of posgpt are a task gen, an
# info and three refusals), and test_study.sh is study2.sh's shell logic over the train and eval
# calls the other tests make (with test_mpi.sh, 482 s of the suite's 1836 under the sanitizers)
SAN_SKIP_TESTS ?= test_mpi.sh test_study.sh
test-sanitize: deps
	@$(MAKE) --no-print-directory SAN=1 test-build
	@POSGPT=build/san/posgpt TESTDIR=build/san/tests ASAN_OPTIONS=detect_leaks=1 SKIP_TESTS="$(SAN_SKIP_TESTS)" tools/run_tests.sh

# clang (Debian: clang, libomp-dev): the core tests, the gradient checks and the shell tests that
# take seconds (CI's time: the whole suite runs three times with gcc already)
CLANG_C_TESTS     ?= test_core test_grad_d test_decode test_shift test_pos_lr test_fuzz_run
CLANG_SHELL_TESTS ?= test_outputs.sh test_resume.sh test_hostile.sh
test-clang:
	@tools/deps.sh clang
	@$(MAKE) --no-print-directory CLANG=1 test-build
	@POSGPT=build/clang/posgpt TESTDIR=build/clang/tests C_TESTS="$(CLANG_C_TESTS)" SHELL_TESTS="$(CLANG_SHELL_TESTS)" tools/run_tests.sh

# oneDNN (Debian: libdnnl-dev): the core tests (gemm against a double loop, the same bits on 1, 2,
# 5 threads), the gradient checks (double: still OpenBLAS) and test_onednn.sh (the banner names
# oneDNN; training on 1, 2, 3 threads writes the same bytes)
ONEDNN_C_TESTS ?= test_core test_grad_d
test-onednn:
	@tools/deps.sh onednn
	@$(MAKE) --no-print-directory BLAS=onednn build/onednn/posgpt $(ONEDNN_C_TESTS:%=build/onednn/tests/%)
	@POSGPT=build/onednn/posgpt TESTDIR=build/onednn/tests C_TESTS="$(ONEDNN_C_TESTS)" SHELL_TESTS="test_onednn.sh" tools/run_tests.sh

# arm64, cross-built, its tests run under qemu (CI's arm64 stage; docs/testing.md): the core tests,
# the layer gradient checks for the schemes in ARM64_SCHEMES (one of each kind of hook; all of
# them emulated take over 7 minutes, test_model_d far longer), and tests/test_cross.sh: a tiny
# model trained by the arm64 build loads in the x86 build (./posgpt) and evaluates to the same
# loss, and the other way round. Where qemu cannot run arm64 programs it says so and stops,
# passing, unless POSGPT_REQUIRE_ARM64=1 (CI) makes that a failure.
ARM64         := aarch64-linux-gnu
ARM64_TESTS   ?= test_core test_grad_d
ARM64_SCHEMES ?= alibi,t5,rope,learned,shaw
ARM64_SHELL_TESTS ?= test_cross.sh
# -L /: the arm64 loader and libc of Debian's multiarch packages (libc6:arm64, which the arm64
# libraries pull in). The cross compiler's own /usr/aarch64-linux-gnu holds another glibc build,
# whose loader, beside the multiarch libc.so.6 it then finds, hangs in the first pthread_create
QEMU          ?= qemu-aarch64 -L /
# (its threads sleep between parallel regions, as the whole suite's did before tools/run_tests.sh
# chose by the load: spinning emulated is not measured)
test-arm64:
	@tools/deps.sh arm64
	@$(MAKE) --no-print-directory CROSS=$(ARM64) build/$(ARM64)/posgpt $(ARM64_TESTS:%=build/$(ARM64)/tests/%)
	@$(MAKE) --no-print-directory posgpt
	@d=$$(mktemp -d); err=$$(timeout 120 $(QEMU) build/$(ARM64)/posgpt train --data Makefile --pos nope --layers 1 --d-model 8 \
	  --heads 1 --seq-len 8 --batch 2 --steps 1 --threads 2 --out $$d/probe 2>&1 >/dev/null); rc=$$?; rm -rf $$d; \
	if [ $$rc -ne 0 ]; then \
	  echo "posgpt: test-arm64 skipped: $(QEMU) cannot run build/$(ARM64)/posgpt here (one training step on 2 threads:" \
	    "$$([ $$rc = 124 ] && echo "no end in 120 s" || echo "exit $$rc$${err:+: $$(echo "$$err" | tail -1)}"))"; \
	  [ "$${POSGPT_REQUIRE_ARM64:-0}" != 1 ]; exit; fi; \
	OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-PASSIVE} POSGPT_TEST_SCHEMES="$(ARM64_SCHEMES)" POSGPT_CROSS="$(QEMU) build/$(ARM64)/posgpt" RUNNER="$(QEMU)" \
	  TESTDIR=build/$(ARM64)/tests C_TESTS="$(ARM64_TESTS)" SHELL_TESTS="$(ARM64_SHELL_TESTS)" tools/run_tests.sh

fuzz: deps
	@$(MAKE) --no-print-directory SAN=1 build/san/tests/test_fuzz build/san/tests/test_fuzz_csv build/san/tests/test_fuzz_font build/san/tests/test_fuzz_tasks
	build/san/tests/test_fuzz 200000 1
	build/san/tests/test_fuzz_csv 100000 1
	build/san/tests/test_fuzz_font 100000 1
	build/san/tests/test_fuzz_tasks 100000 1

# the benchmark: training and long-context evaluation tokens/s, peak RSS, GFLOP/s (tools/bench.sh);
# its model is built with the per-op timing hooks (POSGPT_PROFILE: bench scaling), off unless asked for
MODEL_PROF := $(MODEL_SRC:%.c=$(B)/p/%.o)
$(B)/p/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(ALLCFLAGS) -DPOSGPT_PROFILE -c -o $@ $<
$(B)/bench: tools/bench.c $(MODEL_PROF) $(APP_OBJ) $(HDRS)
	$(call say,LD,$@)$(CC) $(ALLCFLAGS) -DPOSGPT_PROFILE -o $@ $< $(APP_OBJ) $(MODEL_PROF) $(LDLIBS)

bench: deps
	@$(MAKE) --no-print-directory $(B)/bench
	@tools/bench.sh

valgrind: deps
	@tools/valgrind.sh

deps:
	@tools/deps.sh

# CORPUS=file: that text is the corpus the demo and the studies read (data/kjv.txt), copied
# anew on each make; the King James Bible and the fortunes are not fetched
data: data/kjv.txt $(if $(CORPUS),,data/fortunes.txt)
ifdef CORPUS
.PHONY: data/kjv.txt
data/kjv.txt:
	@[ -f "$(CORPUS)" ] && [ -r "$(CORPUS)" ] || { echo "posgpt: error: CORPUS=$(CORPUS): no such readable file; give a text file" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(Q)cp "$(CORPUS)" $@.tmp
	$(Q)mv $@.tmp $@
	@echo "wrote $@ ($$(wc -c < $@) bytes, from $(CORPUS))"
else
data/kjv.txt:
	@tools/deps.sh kjv
	bible gen1:1-rev22:21 > $@.tmp
	mv $@.tmp $@
	@echo "wrote $@ ($$(wc -c < $@) bytes)"
endif

# the second corpus (tools/study.sh): Debian's fortunes, every file in name order, the % lines
# between fortunes made blank and overstrikes (X backspace Y) reduced to what they print (Y)
data/fortunes.txt:
	@tools/deps.sh fortunes
	cd /usr/share/games/fortunes && for f in $$(ls | grep -v '\.\(dat\|u8\)$$' | LC_ALL=C sort); do \
	  sed -e ':a' -e 's/[^\x08]\x08//' -e 'ta' -e 's/\x08//g' -e 's/^%$$//' "$$f"; done > $(CURDIR)/$@.tmp
	mv $@.tmp $@
	@echo "wrote $@ ($$(wc -c < $@) bytes, fortunes $$(dpkg-query -W -f='$${Version}' fortunes))"

demo: deps
	@$(MAKE) --no-print-directory posgpt data/kjv.txt
	@tools/demo.sh

clean:
	rm -rf build posgpt posgpt-mpi
