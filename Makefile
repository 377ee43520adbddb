# gpusort - build, test, benchmark.  `make V=1` shows the commands.
# CUDA=auto (default: on when nvcc is found), CUDA=yes, CUDA=no.

PREFIX    ?= /usr/local
CC        ?= cc
CFLAGS    ?= -O3 -g
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
CUDA      ?= auto
# GPU code in the binary. Every GPU of compute capability 7.5 or later runs
# gpusort's kernels: machine code (SASS) for the GPUs of this machine, or
# for Hopper (sm_90, the project's benchmark GPU) when it has none, and PTX
# for compute_75 that the driver compiles (once, then cached) on any other
# GPU. Each SASS target adds about a minute to the 2-core build, so `make`
# builds one and `make deb` all of CUDA_ARCH_ALL; `make CUDA_ARCH=...` any.
# CUDA 13 dropped compute capability 7.0 (Volta): an older toolkit builds it
# with CUDA_ARCH='-gencode arch=compute_70,code=sm_70'.
GPU_CC    := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d . | sort -u)
# of those, the ones this nvcc can build for (CUDA 13 has no sm_70); an nvcc
# without --list-gpu-code is trusted with them all
NVCC_SM   := $(if $(GPU_CC),$(patsubst sm_%,%,$(filter sm_%,$(shell $(NVCC) --list-gpu-code 2>/dev/null))))
GPU_CC    := $(if $(NVCC_SM),$(filter $(NVCC_SM),$(GPU_CC)),$(GPU_CC))
sass       = $(foreach a,$(1),-gencode arch=compute_$(a),code=sm_$(a))
CUDA_PTX  := -gencode arch=compute_75,code=compute_75
CUDA_ARCH_ALL := $(call sass,75 80 86 89 90 100 120) $(CUDA_PTX)
CUDA_ARCH ?= $(call sass,$(or $(GPU_CC),90)) $(CUDA_PTX)
NVCCFLAGS ?= -O3 -std=c++17 $(CUDA_ARCH)

ifeq ($(CUDA),auto)
  CUDA := $(if $(NVCC),yes,no)
endif
ifeq ($(CUDA),yes)
  ifeq ($(NVCC),)
    $(error CUDA=yes but nvcc was not found; set NVCC= or CUDA_HOME=)
  endif
endif

ifeq ($(V),1)
  Q :=
  say = @true
else
  Q := @
  say = @printf '  %-6s %s\n'
endif

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers
ALLCFLAGS = -std=c11 $(WARN) $(CFLAGS) -pthread -MMD -MP -DGPUSORT_CUDA=$(if $(filter yes,$(CUDA)),1,0)
# liburing is linked statically so the binary runs where liburing is not installed
LIBURING := $(firstword $(wildcard /usr/lib/*/liburing.a /usr/lib/liburing.a /usr/local/lib/liburing.a))
LDLIBS   := $(if $(LIBURING),$(LIBURING),-l:liburing.a) -lm

# one object tree per configuration: switching CUDA= or CUDA_ARCH= rebuilds
# what depends on it
ARCH_TAG := $(if $(filter yes,$(CUDA)),-$(shell printf '%s' '$(NVCCFLAGS)' | cksum | cut -d' ' -f1))
B := build/cuda-$(CUDA)$(ARCH_TAG)
# io/io_fault.c (fault injection) is compiled into the test build only
IO_SRC  := $(filter-out io/io_fault.c,$(wildcard io/*.c))
SRC_OBJ := $(patsubst %.c,$(B)/%.o,$(filter-out src/main.c,$(wildcard src/*.c)) $(IO_SRC))
ifeq ($(CUDA),yes)
  KERN_OBJ := $(patsubst %.cu,$(B)/%.o,$(wildcard kernels/*.cu)) $(B)/kernels/gpu_errors.o
  # libstdc++ linked in: loading and relocating the shared one was ~0.4 ms
  # of every run (bench/results/h200-small-inputs-2026-11-29.md)
  LDLIBS   += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic
else
  KERN_OBJ := $(B)/kernels/gpu_stub.o $(B)/kernels/gpu_errors.o
endif
LIB_OBJ  := $(SRC_OBJ) $(KERN_OBJ)
TESTS    := $(patsubst tests/%.c,tests/bin/%,$(wildcard tests/test_*.c))
# built with CUDA: the GPU test runs in `make check` too, and says SKIP without a
# GPU; test_plan checks the bitonic planner on the host (no GPU needed)
GPU_TESTS := $(if $(filter yes,$(CUDA)),tests/gpu/test_gpu_sort tests/gpu/test_sorters tests/gpu/test_plan tests/gpu/abisort_replay tests/gpu/quick_pivot tests/gpu/test_capacity)

.PHONY: all config deps check check-gpu check-gnu check-sanitize bench bench-cpu bench-text install uninstall deb man clean

all: config gpusort bench/gen

config:
	@echo "gpusort: CUDA $(CUDA)$(if $(filter yes,$(CUDA)), ($(NVCC); GPU code: $(GPU_CODE)),)"
	@echo "gpusort: liburing $(if $(LIBURING),$(LIBURING) (static),not found: run 'make deps')"
comma := ,
GPU_CODE = $(patsubst code=%,%,$(filter code=%,$(subst $(comma), ,$(CUDA_ARCH))))

gpusort: $(B)/src/main.o $(LIB_OBJ) $(B)/.stamp
	$(say) LINK $@
	$(Q)$(CC) $(ALLCFLAGS) -o $@ $(B)/src/main.o $(LIB_OBJ) $(LDLIBS)

# the binary is relinked when the configuration changes
$(B)/.stamp:
	@mkdir -p $(B) && rm -f build/cuda-*/.stamp && touch $@

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(ALLCFLAGS) -c -o $@ $<

KERN_HDR := $(wildcard kernels/*.h kernels/*.cuh)
$(B)/kernels/%.o: kernels/%.cu $(KERN_HDR)
	@mkdir -p $(dir $@)
	$(say) NVCC $<
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -c -o $@ $<

bench/gen: bench/gen.c
	$(say) CC $@
	$(Q)$(CC) -std=c11 $(WARN) -O2 -o $@ $< -lm

# bench/experiments/: profiling and A/B tools, not part of `make bench`.
# iobench is linked with io/ for its `ring` mode (gpusort's io_uring path,
# fixed buffers or not)
IO_OBJ := $(patsubst %.c,$(B)/%.o,$(IO_SRC))
bench/experiments/iobench: bench/experiments/iobench.c io/io.h $(IO_OBJ)
	$(say) CC $@
	$(Q)$(CC) $(ALLCFLAGS) -o $@ $< $(IO_OBJ) $(LDLIBS)

tests/refsort: tests/refsort.c
	$(say) CC $@
	$(Q)$(CC) -std=c11 $(WARN) -O2 -o $@ $<

# The test build: src/ and io/ compiled with GPUSORT_TEST_HOOKS=1, where the
# CLI reads the GPUSORT_* path switches and fault injection (tests/README.md
# lists them). Never installed: ./gpusort reads no GPUSORT_* variable.
HB       := $(B)-hooks
HOOK_OBJ := $(patsubst %.c,$(HB)/%.o,$(filter-out src/main.c,$(wildcard src/*.c)) $(wildcard io/*.c)) $(KERN_OBJ)
$(HB)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC "$< (test hooks)"
	$(Q)$(CC) $(ALLCFLAGS) -DGPUSORT_TEST_HOOKS=1 -c -o $@ $<

tests/bin/gpusort-test: $(HB)/src/main.o $(HOOK_OBJ)
	@mkdir -p tests/bin
	$(say) LINK $@
	$(Q)$(CC) $(ALLCFLAGS) -o $@ $(HB)/src/main.o $(HOOK_OBJ) $(LDLIBS)

tests/bin/%: tests/%.c tests/unit.h tests/unit_keys.h $(HOOK_OBJ)
	@mkdir -p tests/bin
	$(say) CC $@
	$(Q)$(CC) $(ALLCFLAGS) -DGPUSORT_TEST_HOOKS=1 -Isrc -o $@ $< $(HOOK_OBJ) $(LDLIBS)

# Installs the build dependencies from Debian packages when they are missing.
deps:
	@missing=""; \
	test -f /usr/include/liburing.h || missing="$$missing liburing-dev"; \
	test -f /usr/include/xxhash.h || missing="$$missing libxxhash-dev"; \
	if [ -n "$$missing" ]; then \
	  echo "gpusort: installing$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$missing; \
	else echo "gpusort: dependencies present (liburing-dev, libxxhash-dev)"; fi

# the random cases of tests/text_diff.sh (text lines against GNU sort)
tests/bin/text_gen: tests/text_gen.c
	@mkdir -p tests/bin
	$(say) CC $@
	$(Q)$(CC) -std=c11 $(WARN) -O2 -o $@ $<

tests/checksorted: tests/checksorted.c
	$(say) CC $@
	$(Q)$(CC) -std=c11 $(WARN) -O2 -o $@ $<

# gpusort with tests/fake_gpu.c (a CPU stand-in for kernels/ that keeps the
# device-resident API's contract, copies carried out as late as it allows) in
# place of the GPU: src/ built as for CUDA, so that the CI runs the resident
# pipeline (resident.c, job.c, gpumerge.c) without a GPU (tests/fakegpu.sh)
FAKE_B    := build/fakegpu
FAKE_OBJ  := $(patsubst %.c,$(FAKE_B)/%.o,$(wildcard src/*.c) $(wildcard io/*.c) tests/fake_gpu.c kernels/gpu_errors.c)
FAKECFLAGS = $(filter-out -DGPUSORT_CUDA=%,$(ALLCFLAGS)) -DGPUSORT_CUDA=1 -DGPUSORT_TEST_HOOKS=1
$(FAKE_B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC "$< (fake GPU)"
	$(Q)$(CC) $(FAKECFLAGS) -c -o $@ $<

tests/bin/gpusort-fakegpu: $(FAKE_OBJ)
	@mkdir -p tests/bin
	$(say) LINK $@
	$(Q)$(CC) $(FAKECFLAGS) -o $@ $(FAKE_OBJ) $(filter-out -L% -lcudart_static -ldl -lrt -lstdc++ -Wl$(comma)-B%,$(LDLIBS))

tests/gpu/test_gpu_sort: tests/gpu/test_gpu_sort.cu tests/gpu/report.h $(KERN_HDR) $(KERN_OBJ)
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -o $@ $< $(KERN_OBJ)

# every sorter of the registry through the gs_sorter interface
tests/gpu/test_sorters: tests/gpu/test_sorters.cu tests/gpu/report.h $(KERN_HDR) $(KERN_OBJ)
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -o $@ $< $(KERN_OBJ)

# the chunk and merge capacities of every sorter, arithmetic only (no GPU)
tests/gpu/test_capacity: tests/gpu/test_capacity.cu tests/gpu/report.h src/plan.h $(KERN_HDR) $(KERN_OBJ)
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -o $@ $< $(KERN_OBJ)

# the adaptive bitonic merge replayed on the host, thread by thread (no GPU)
tests/gpu/abisort_replay: tests/gpu/abisort_replay.cu tests/gpu/report.h $(KERN_HDR)
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -o $@ $<

# GPU-Quicksort's phase-one cut (child_fraction, pivot_at) replayed on the host (no GPU)
tests/gpu/quick_pivot: tests/gpu/quick_pivot.cu tests/gpu/report.h kernels/quick_pivot.cuh
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -o $@ $<

# the bitonic planner and its configurations are host-only headers
tests/gpu/test_plan: tests/gpu/test_plan.cu tests/gpu/report.h kernels/bitonic_plan.h kernels/bitonic_tuning.cuh
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -o $@ $<

# in-device bitonic vs CUB radix sort, merge path vs bitonic (bench/gpu_bench.sh
# runs it); it includes bitonic.cu and merge_path.cu, so it builds from one file
bench/gpu_bench: bench/gpu_bench.cu bench/bench_cuda.cuh $(KERN_HDR) $(wildcard kernels/*.cu)
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -o $@ $<

# every sorter of the registry beside CUB radix sort and thrust::sort
# (bench/sorter_bench.sh runs it on the GPU machine)
bench/sorter_bench: bench/sorter_bench.cu bench/bench_cuda.cuh $(KERN_HDR) $(KERN_OBJ)
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -o $@ $< $(KERN_OBJ)

# the sample sorter's buckets against their bound; abisort's comparisons
# (counting build) and phase times: the papers' claims (bench/engines.sh)
bench/sample_buckets: bench/sample_buckets.cu bench/sorter_bench.cu bench/bench_cuda.cuh $(KERN_HDR) $(KERN_OBJ)
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -o $@ $< $(KERN_OBJ)

bench/abisort_count: bench/abisort_count.cu $(KERN_HDR) $(wildcard kernels/abisort*)
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -DGS_ABISORT_COUNT -o $@ $<

bench/abisort_phases: bench/abisort_count.cu $(KERN_HDR) $(wildcard kernels/abisort*)
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCCFLAGS) -Ikernels -o $@ $<

check: all tests/refsort tests/checksorted $(TESTS) $(GPU_TESTS) tests/bin/gpusort-fakegpu tests/bin/gpusort-test tests/bin/text_gen bench/gen_lines
	@sh tests/run.sh $(TESTS) $(GPU_TESTS) tests/fakegpu.sh tests/install.sh tests/options.sh tests/faults.sh tests/text_diff.sh tests/text_cli.sh

# `make check` with the host code under AddressSanitizer and UBSan
# (SANITIZE=address, the default) or ThreadSanitizer (SANITIZE=thread), in a
# copy of the tree under build/ (tests/sanitize_host.sh); not part of CI's run
SANITIZE ?= address
check-sanitize:
	@sh tests/sanitize_host.sh $(SANITIZE)

# GNU coreutils' own sort tests with gpusort as their sort (tests/gnu/check-gnu.sh:
# the source from `apt-get source coreutils`, built once under build/gnu/; the
# table of results is tests/GNU-SORT.md)
check-gnu: gpusort tests/bin/gpusort-test
	@sh tests/gnu/check-gnu.sh

# On a GPU machine: the kernels' tests, compute-sanitizer, GPU == CPU output,
# then every CLI test through the GPU engine (the default when a GPU is there).
check-gpu: all tests/refsort tests/checksorted tests/gpu/test_gpu_sort tests/gpu/test_sorters tests/bin/gpusort-test
	@if [ "$(CUDA)" != yes ]; then echo "gpusort: check-gpu needs a CUDA build (nvcc)"; exit 2; fi
	@sh tests/run.sh tests/gpu/test_gpu_sort tests/gpu/test_sorters tests/gpu/sanitize.sh tests/gpu/identity.sh

# bench/run.sh: gpusort next to cat, GNU sort, NumPy, CuPy (options at its top).
# bench/checkrec checks every tool's output, independently of gpusort's code.
bench/checkrec: bench/checkrec.c
	$(say) CC $@
	$(Q)$(CC) -std=c11 $(WARN) -O2 -pthread -o $@ $<

bench: all bench/checkrec bench/gen_lines
	@sh bench/run.sh
	@sh bench/text.sh

# the text workloads alone (bench/text.sh: CSV keys and gensort lines, 1 GiB;
# the GPU machine's 10 GiB: sh bench/text.sh --sizes "1 10")
bench-text: all bench/gen_lines
	@sh bench/text.sh

bench/gen_lines: bench/gen_lines.c
	$(say) CC $@
	$(Q)$(CC) -std=c11 $(WARN) -O2 -o $@ $<

# the issue's CPU target: 1 GiB of 100-byte records, gpusort --cpu vs GNU sort
bench-cpu: all bench/checkrec
	@sh bench/run.sh --cpu --workloads rec100 --sizes 1

man: man/gpusort.1
	@MANWIDTH=80 man -l man/gpusort.1

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 gpusort $(DESTDIR)$(PREFIX)/bin/gpusort
	install -m 644 man/gpusort.1 $(DESTDIR)$(PREFIX)/share/man/man1/gpusort.1

# the Debian package: gpusort built with the GPU code of every common
# architecture (CUDA_ARCH_ALL; several minutes on 2 cores), packaged by
# pkg/mkdeb.sh. `make deb DEB_CUDA_ARCH=...` packages another set.
VERSION      := $(shell sed -n 's/^\#define GPUSORT_VERSION "\(.*\)"/\1/p' src/main.c)
DEB_CUDA_ARCH ?= $(CUDA_ARCH_ALL)
DEB          := gpusort_$(VERSION)_$(shell dpkg --print-architecture 2>/dev/null).deb
deb:
	$(MAKE) CUDA_ARCH='$(DEB_CUDA_ARCH)' gpusort
	sh pkg/mkdeb.sh gpusort man/gpusort.1 $(VERSION) $(DEB)
	@echo "gpusort: $(DEB)"

# removes what install put there, and nothing else (directories stay: they
# may hold other programs' files)
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/gpusort $(DESTDIR)$(PREFIX)/share/man/man1/gpusort.1

clean:
	rm -rf build gpusort gpusort_*.deb bench/gen bench/gen_lines bench/gpu_bench bench/sorter_bench bench/sample_buckets bench/abisort_count bench/abisort_phases tests/refsort tests/checksorted tests/bin tests/gpu/test_gpu_sort tests/gpu/test_sorters tests/gpu/test_plan tests/gpu/abisort_replay tests/gpu/quick_pivot tests/gpu/test_capacity bench/checkrec bench/experiments/iobench bench/experiments/iobench.d

-include $(shell find build -name '*.d' 2>/dev/null)
