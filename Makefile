# posgpt - build, test, demo. `make` builds ./posgpt; `make test` runs the test suite;
# `make demo` runs the train-short / evaluate-long demo. PORTABLE=1 drops -march=native.
CC      ?= gcc
BLASDIR ?= /usr/lib/x86_64-linux-gnu/openblas-openmp
BLASINC ?= /usr/include/x86_64-linux-gnu/openblas-openmp
ARCH    := $(if $(PORTABLE),,-march=native)
WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wno-missing-field-initializers
CFLAGS  ?= -O3 $(ARCH) -g
ALLCFLAGS = -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -fopenmp $(WARN) $(CFLAGS) -I$(BLASINC) -Imodel -Itrain
LDLIBS  = -L$(BLASDIR) -Wl,-rpath,$(BLASDIR) -lopenblas -fopenmp -lm

MODEL_SRC := $(wildcard model/*.c)
APP_SRC   := $(filter-out train/main.c,$(wildcard train/*.c))
MODEL_OBJ := $(MODEL_SRC:%.c=build/f/%.o)
MODEL_DBL := $(MODEL_SRC:%.c=build/d/%.o)
APP_OBJ   := $(APP_SRC:%.c=build/f/%.o)
HDRS      := $(wildcard model/*.h train/*.h)

.PHONY: all test test-build demo data deps clean
all: posgpt

posgpt: build/f/train/main.o $(APP_OBJ) $(MODEL_OBJ)
	$(CC) -o $@ $^ $(LDLIBS)

build/f/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -c -o $@ $<

# the same model sources in double precision, for the gradient checks
build/d/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -DPOSGPT_DOUBLE -c -o $@ $<

# tests: test_*_d.c link the double model, test_*.c the float one (plus the app code)
TEST_D := $(patsubst tests/%.c,build/tests/%,$(wildcard tests/test_*_d.c))
TEST_F := $(patsubst tests/%.c,build/tests/%,$(filter-out $(wildcard tests/test_*_d.c),$(wildcard tests/test_*.c)))

$(TEST_D): build/tests/%: tests/%.c tests/check.h $(MODEL_DBL) $(HDRS)
	@mkdir -p build/tests
	$(CC) $(ALLCFLAGS) -DPOSGPT_DOUBLE -Itests -o $@ $< $(MODEL_DBL) $(LDLIBS)

$(TEST_F): build/tests/%: tests/%.c tests/check.h $(MODEL_OBJ) $(APP_OBJ) $(HDRS)
	@mkdir -p build/tests
	$(CC) $(ALLCFLAGS) -Itests -o $@ $< $(APP_OBJ) $(MODEL_OBJ) $(LDLIBS)

test-build: posgpt $(TEST_D) $(TEST_F)

test: deps
	@$(MAKE) --no-print-directory test-build
	@tools/run_tests.sh

deps:
	@tools/deps.sh

data: data/kjv.txt
data/kjv.txt:
	@tools/deps.sh kjv
	bible gen1:1-rev22:21 > $@.tmp
	mv $@.tmp $@
	@echo "wrote $@ ($$(wc -c < $@) bytes)"

demo: deps
	@$(MAKE) --no-print-directory posgpt data/kjv.txt
	@tools/demo.sh

clean:
	rm -rf build posgpt
