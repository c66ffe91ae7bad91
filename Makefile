# posgpt - build, test, demo.
#   make              ./posgpt                     make test           the test suite
#   make demo         the short demo               make data           data/kjv.txt, data/fortunes.txt (corpora)
#   make test-sanitize  the suite built with AddressSanitizer + UndefinedBehaviorSanitizer
#   make test-kernels   the suite under several OpenBLAS kernels (KERNELS="Haswell SkylakeX")
#   make fuzz         200,000 damaged checkpoints, 100,000 damaged CSVs and 100,000 damaged fonts (plot), under ASan + UBSan
#   make bench        training / evaluation speed and memory (tools/bench.sh)
#   make valgrind     short train + eval + sample + plot under valgrind memcheck
#   make MPI=1        ./posgpt-mpi, the same program with data-parallel training over MPI (OpenMPI:
#                     libopenmpi-dev); mpirun -np 2 ./posgpt-mpi train ...  (README "Several processes")
# PORTABLE=1 drops -march=native.
CC      ?= gcc
BLASDIR ?= /usr/lib/x86_64-linux-gnu/openblas-openmp
BLASINC ?= /usr/include/x86_64-linux-gnu/openblas-openmp
ARCH    := $(if $(PORTABLE),,-march=native)
WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wno-missing-field-initializers
ifdef MPI
B       := build/mpi
OPT     := -O3 $(ARCH) -g -DPOSGPT_MPI $(shell mpicc --showme:compile 2>/dev/null || echo MPI-NOT-FOUND)
BIN     := posgpt-mpi
MPILIBS := $(shell mpicc --showme:link 2>/dev/null)
else ifdef SAN
B       := build/san
OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
BIN     := $(B)/posgpt
else
B       := build
OPT     := -O3 $(ARCH) -g
BIN     := posgpt
endif
CFLAGS  ?= $(OPT)
ALLCFLAGS = -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -fopenmp -fno-math-errno $(WARN) $(CFLAGS) -I$(BLASINC) -Imodel -Imodel/pos -Itrain -Itrain/tasks -Itools/plot
LDLIBS  = $(if $(SAN),-fsanitize=address$(,)undefined) $(MPILIBS) -L$(BLASDIR) -Wl,-rpath,$(BLASDIR) -lopenblas -fopenmp -lz -lm
, := ,

MODEL_SRC := $(wildcard model/*.c model/pos/*.c)
APP_SRC   := $(filter-out train/main.c,$(wildcard train/*.c train/tasks/*.c tools/plot/*.c))
MODEL_OBJ := $(MODEL_SRC:%.c=$(B)/f/%.o)
MODEL_DBL := $(MODEL_SRC:%.c=$(B)/d/%.o)
APP_OBJ   := $(APP_SRC:%.c=$(B)/f/%.o)
HDRS      := $(wildcard model/*.h model/pos/*.h train/*.h train/tasks/*.h tools/plot/*.h)

.PHONY: all test test-build test-kernels test-sanitize fuzz valgrind bench demo data deps clean
all: $(BIN)

$(BIN): $(B)/f/train/main.o $(APP_OBJ) $(MODEL_OBJ)
	$(CC) -o $@ $^ $(LDLIBS)

$(B)/f/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -c -o $@ $<

# the exchange between MPI processes, timed (make MPI=1 build/mpi/exchange_bench)
$(B)/exchange_bench: tools/exchange_bench.c $(B)/f/train/dist.o $(B)/f/model/common.o $(HDRS)
	$(CC) $(ALLCFLAGS) -o $@ $< $(B)/f/train/dist.o $(B)/f/model/common.o $(LDLIBS)

# the same model sources in double precision, for the gradient checks
$(B)/d/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -DPOSGPT_DOUBLE -c -o $@ $<

# tests: test_*_d.c link the double model, test_*.c the float one (plus the app code)
TEST_D := $(patsubst tests/%.c,$(B)/tests/%,$(wildcard tests/test_*_d.c))
TEST_F := $(patsubst tests/%.c,$(B)/tests/%,$(filter-out $(wildcard tests/test_*_d.c),$(wildcard tests/test_*.c)))

# (and the position sampler, which the gradient checks draw positions with)
$(TEST_D): $(B)/tests/%: tests/%.c $(wildcard tests/*.h) $(MODEL_DBL) $(B)/d/train/positions.o $(HDRS)
	@mkdir -p $(B)/tests
	$(CC) $(ALLCFLAGS) -DPOSGPT_DOUBLE -Itests -o $@ $< $(MODEL_DBL) $(B)/d/train/positions.o $(LDLIBS)

$(TEST_F): $(B)/tests/%: tests/%.c $(wildcard tests/*.h) $(MODEL_OBJ) $(APP_OBJ) $(HDRS)
	@mkdir -p $(B)/tests
	$(CC) $(ALLCFLAGS) -Itests -o $@ $< $(APP_OBJ) $(MODEL_OBJ) $(LDLIBS)

# (and ./posgpt-mpi when OpenMPI is installed: tests/test_mpi.sh runs it)
test-build: $(BIN) $(TEST_D) $(TEST_F)
	@if [ -z "$(SAN)$(MPI)" ] && command -v mpicc > /dev/null; then $(MAKE) --no-print-directory MPI=1 posgpt-mpi; fi

test: deps
	@$(MAKE) --no-print-directory test-build
	@tools/run_tests.sh

test-kernels: deps
	@$(MAKE) --no-print-directory test-build
	@tools/test_kernels.sh

test-sanitize: deps
	@$(MAKE) --no-print-directory SAN=1 test-build
	@POSGPT=build/san/posgpt TESTDIR=build/san/tests ASAN_OPTIONS=detect_leaks=1 tools/run_tests.sh

fuzz: deps
	@$(MAKE) --no-print-directory SAN=1 build/san/tests/test_fuzz build/san/tests/test_fuzz_csv build/san/tests/test_fuzz_font
	build/san/tests/test_fuzz 200000 1
	build/san/tests/test_fuzz_csv 100000 1
	build/san/tests/test_fuzz_font 100000 1

# the benchmark: training and long-context evaluation tokens/s, peak RSS, GFLOP/s (tools/bench.sh);
# its model is built with the per-op timing hooks (POSGPT_PROFILE: bench scaling), off unless asked for
MODEL_PROF := $(MODEL_SRC:%.c=$(B)/p/%.o)
$(B)/p/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -DPOSGPT_PROFILE -c -o $@ $<
$(B)/bench: tools/bench.c $(MODEL_PROF) $(APP_OBJ) $(HDRS)
	$(CC) $(ALLCFLAGS) -DPOSGPT_PROFILE -o $@ $< $(APP_OBJ) $(MODEL_PROF) $(LDLIBS)

bench: deps
	@$(MAKE) --no-print-directory $(B)/bench
	@tools/bench.sh

valgrind: deps
	@tools/valgrind.sh

deps:
	@tools/deps.sh

data: data/kjv.txt data/fortunes.txt
data/kjv.txt:
	@tools/deps.sh kjv
	bible gen1:1-rev22:21 > $@.tmp
	mv $@.tmp $@
	@echo "wrote $@ ($$(wc -c < $@) bytes)"

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
