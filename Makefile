# kvbench: `make run` does the quickstart end to end, `make test` runs every
# test (host tests, short fuzzing, and the verbs tests inside a Soft-RoCE VM).
GO       ?= go
BIN      ?= bin
WORKLOAD ?= workloads/quickstart.yaml
FUZZTIME ?= 5s
VMDIR    ?= $(CURDIR)/.rdma-vm
# The revision results and plots name; "-dirty" when the tree has
# uncommitted changes, so a figure never claims a commit it was not made by.
REVISION := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
LDFLAGS  := -X github.com/kvbench/kvbench/internal/cli.revision=$(REVISION)

DURATION ?= 10m

.PHONY: all setup setup-mpi setup-baselines setup-memtier setup-browser build build-mpi lib run test test-go test-slurm soak soak-short fuzz bench lint clean distortion adaptive-tcp

all: build

# setup installs the rdma-core headers cgo needs (Debian; needs root once);
# setup-mpi adds Open MPI, which only the MPI build, lint and tests need, so
# the quickstart does not wait for it; setup-baselines adds redis-server and
# memcached, which the tests drive; setup-memtier what building
# memtier_benchmark for make distortion needs; setup-browser chromium, in
# which the tests of the HTML pages open them.
setup:
	@scripts/setup.sh

setup-mpi:
	@scripts/setup.sh mpi

setup-baselines:
	@scripts/setup.sh baselines

setup-memtier:
	@scripts/setup.sh memtier

setup-browser:
	@scripts/setup.sh browser

build: setup
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/kvbench ./cmd/kvbench
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/kvserver ./cmd/kvserver

# lib: rdmakv's client as a C library with the API of include/kv.h, shared
# and static; link with -lkvclient (the static one also with -lpthread
# -libverbs -lrdmacm).
lib: setup
	$(GO) build -buildmode=c-shared -o lib/libkvclient.so ./cmd/libkvclient
	$(GO) build -buildmode=c-archive -o lib/libkvclient.a ./cmd/libkvclient
	rm -f lib/libkvclient.h

# run: the quickstart workload against an embedded server, then its plots.
# build-mpi: kvbench with MPI support (the mpi build tag, over Open MPI),
# for mpirun -np N bin/kvbench run ... and srun --mpi=pmix.
build-mpi: setup-mpi
	$(GO) build -tags mpi -ldflags '$(LDFLAGS)' -o $(BIN)/kvbench ./cmd/kvbench
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/kvserver ./cmd/kvserver

# test-slurm: kvbench as an MPI job under srun --mpi=pmix on a one-node
# Slurm cluster set up for the test (needs root; installs Slurm when missing).
test-slurm: build-mpi
	test/slurm/srun-test.sh $(BIN)/kvbench $(BIN)/kvserver test/slurm/srun.yaml

run: build
	$(BIN)/kvbench run $(WORKLOAD) -o results
	$(BIN)/kvbench plot results/latest -o plots

# distortion: does kvbench distort the baselines? kvbench against
# redis-benchmark on one redis-server and against memtier_benchmark on one
# memcached, side by side, alternating, 64 B GETs at 1 and 64 connections,
# the references thread-matched; and kvserver over TCP against that Redis,
# both through kvbench. Prints medians and ratios (ROUNDS=5, MEASURE=5
# seconds). About 7 minutes, and a minute the first time to build memtier
# (MEMTIER=path to use one). Figures: docs/MEASUREMENTS.md.
distortion: setup-baselines setup-memtier
	GO=$(GO) test/baselines/distortion.sh

# adaptive-tcp: the adaptive policy beside the fixed thresholds over TCP
# on this host (an embedded server on loopback): tune on the weighted mix
# of 64 B to 1 MiB at 1, 4 and 16 connections, 5 interleaved rounds, about
# 15 minutes. Published in plots/adaptive-tcp: tune.txt, tune.json,
# tune.html, profile.json, the figures of the measurements that pass their
# checks, checks.txt and build.txt. Its ratios are what it is for: run it
# on a quiet host.
ADAPTIVE_TCP_DIR := $(VMDIR)/adaptive-tcp
adaptive-tcp: build
	rm -rf $(ADAPTIVE_TCP_DIR)
	$(BIN)/kvbench tune test/rdma-vm/workloads/adaptive-mixed.yaml --transport tcp --connections 1,4,16 -o $(ADAPTIVE_TCP_DIR)
	rm -rf plots/adaptive-tcp
	mkdir -p plots/adaptive-tcp
	$(BIN)/kvbench version >plots/adaptive-tcp/build.txt
	KVBENCH=$(BIN)/kvbench bash -c '. test/rdma-vm/collect-lib.sh && publishtune plots/adaptive-tcp $$(ls -d $(ADAPTIVE_TCP_DIR)/tune-*-*-* | tail -n 1)'

test: lint test-go test-slurm soak-short fuzz test-rdma

# The race detector's shadow memory would swamp the per-connection memory
# figures, so that test runs in a plain build as well. rdmakv and its TCP
# transport run again with every client on a blocking socket (-blocking),
# and with the conformance suite again with every socket read and written
# through net.Conn rather than raw system calls (-netconn), the path off
# Linux.
test-go: setup-mpi setup-baselines setup-browser
	$(GO) test -race -count=1 ./...
	$(GO) test -race -count=1 ./rdmakv ./rdmakv/tcp -args -blocking
	$(GO) test -race -count=1 ./rdmakv ./rdmakv/tcp ./rdmakv/kvtest -args -netconn
	$(GO) test -count=1 -v -run='^TestConnectionMemory$$' ./rdmakv

# soak: kvserver over TCP under verified load and faults for DURATION
# (kvsoak; make soak-rdma runs it over verbs in the guest).
soak: build
	$(GO) build -o $(BIN)/kvsoak ./test/soak
	$(BIN)/kvsoak -duration $(DURATION) -bin $(BIN)

soak-short:
	$(MAKE) soak DURATION=60s

# fuzz runs every fuzz target briefly; run one longer by hand with
#   go test -run='^$$' -fuzz=FuzzDecode -fuzztime=10m ./rdmakv/wire
fuzz: setup
	GO=$(GO) scripts/fuzz.sh $(FUZZTIME)

bench: setup
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=2000x ./rdmakv/... ./internal/bench/...

# lint also vets the module without cgo and off Linux, where rdmakv's TCP
# transport reads and writes through net.Conn and verbs is a stub.
lint: setup-mpi
	@out=$$(gofmt -l $$(git ls-files '*.go') $$(git ls-files --others --exclude-standard '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags mpi ./internal/mpi ./internal/cli
	CGO_ENABLED=0 $(GO) vet ./...
	GOOS=darwin CGO_ENABLED=0 $(GO) vet ./...
	GOOS=freebsd CGO_ENABLED=0 $(GO) vet ./rdmakv/...

clean:
	rm -rf $(BIN) $(VMDIR) lib

include test/rdma-vm/rdma.mk
