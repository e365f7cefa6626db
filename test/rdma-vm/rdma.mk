# rdma.mk: verbs tests and benchmarks on a real kernel RDMA stack
# (Soft-RoCE) inside a throw-away qemu guest. Included by the top Makefile.
#
#   make test-rdma    verbs device tests + kvserver with kvperf, kvbench and the C API end to end (pass/fail)
#   make bench-rdma   perftest baselines + kvbench cases, printed side by side
#   make soak-rdma    kvsoak over verbs for DURATION (default 10m)
#   make sweep-rdma   kvbench's threshold, mixed-size and connections sweeps and five tunes over verbs
#   make adaptive-rdma   the adaptive policy beside fixed thresholds (tune on mixed sizes and ETC, settling)
#   make baselines-rdma   workloads/baselines.yaml against rdmakv (verbs and tcp), Redis and memcached in one boot; plots/baselines-rdma
#   make rdma-vm-selftest   prove the rig itself (traffic, failure, timeout)
#
# Needs root the first time (setup.sh installs packages and caches Debian's
# kernel under KVBENCH_VM_CACHE, default /var/cache/kvbench-rdma-vm).
# RDMA_VM_FLAGS=--kvm uses hardware virtualisation where it works.

GO ?= go
VMDIR ?= $(CURDIR)/.rdma-vm
RDMA_VM_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
RDMA_VM_FLAGS ?=
RDMA_VM_TIMEOUT ?= 1500
# Guest memory: the conformance suite's clients each register a 64 MiB
# staging region (pinned by rxe), so 1G can run out under Concurrency.
RDMA_VM_MEM ?= 4G
# Rounds of perftest and kvbench in bench-rdma; the table shows medians.
# A round takes about a minute under emulation; the guest's bound grows
# with them.
RDMA_BENCH_ROUNDS ?= 3
# 1 pins every server to CPU 1 and every client to CPU 0, perftest's and
# rdmakv's alike (guest-bench.sh says why); 0 leaves placement to the guest.
RDMA_BENCH_PIN ?= 1
# Draws per round: each compared case runs this many times as fresh process
# pairs, and the table keeps each side's fastest (guest-bench.sh says why).
RDMA_BENCH_DRAWS ?= 3
RDMA_BENCH_TIMEOUT ?= $(shell echo $$((120 + 90 * $(RDMA_BENCH_ROUNDS) * $(RDMA_BENCH_DRAWS))))
RDMA_VM_SHARE := $(VMDIR)/share
RDMA_VERBS_PKG ?= ./rdmakv/verbs
RDMA_KVSERVER_PKG ?= ./cmd/kvserver
RDMA_KVPERF_PKG ?= ./test/rdma-vm/kvperf
RDMA_KVBENCH_PKG ?= ./cmd/kvbench

.PHONY: test-rdma bench-rdma soak-rdma rdma-vm-setup rdma-vm-build rdma-vm-selftest

rdma-vm-setup:
	$(RDMA_VM_DIR)/setup.sh

# The share is rebuilt from scratch so no stale binary or result survives.
rdma-vm-build: rdma-vm-setup
	rm -rf $(RDMA_VM_SHARE)
	mkdir -p $(RDMA_VM_SHARE)/bench
	CGO_ENABLED=1 $(GO) test -c -tags rdmavm -o $(RDMA_VM_SHARE)/verbs.test $(RDMA_VERBS_PKG)
	CGO_ENABLED=1 $(GO) build -ldflags '$(LDFLAGS)' -o $(RDMA_VM_SHARE)/kvserver $(RDMA_KVSERVER_PKG)
	CGO_ENABLED=1 $(GO) build -o $(RDMA_VM_SHARE)/kvperf $(RDMA_KVPERF_PKG)
	CGO_ENABLED=1 $(GO) build -ldflags '$(LDFLAGS)' -o $(RDMA_VM_SHARE)/kvbench $(RDMA_KVBENCH_PKG)
	CGO_ENABLED=1 $(GO) build -o $(RDMA_VM_SHARE)/kvsoak ./test/soak
	$(GO) build -o $(RDMA_VM_SHARE)/flowcheck ./test/rdma-vm/flowcheck
	CGO_ENABLED=1 $(GO) build -buildmode=c-archive -o $(RDMA_VM_SHARE)/libkvclient.a ./cmd/libkvclient
	$(CC) -Wall -Iinclude examples/c/kvcheck.c $(RDMA_VM_SHARE)/libkvclient.a -lpthread -libverbs -lrdmacm \
		-o $(RDMA_VM_SHARE)/kvcheck
	rm -f $(RDMA_VM_SHARE)/libkvclient.a $(RDMA_VM_SHARE)/libkvclient.h
	cp $(RDMA_VM_DIR)/guest-lib.sh $(RDMA_VM_DIR)/guest-test.sh $(RDMA_VM_DIR)/guest-bench.sh \
		$(RDMA_VM_DIR)/guest-soak.sh $(RDMA_VM_DIR)/guest-flow.sh $(RDMA_VM_SHARE)/
	mkdir -p $(RDMA_VM_SHARE)/workloads/traces
	cp $(RDMA_VM_DIR)/workloads/*.yaml $(RDMA_VM_SHARE)/workloads/
	cp workloads/traces/twitter-synthetic.csv.zst $(RDMA_VM_SHARE)/workloads/traces/

test-rdma: rdma-vm-build
	$(RDMA_VM_DIR)/run.sh $(RDMA_VM_FLAGS) --mem $(RDMA_VM_MEM) --timeout $(RDMA_VM_TIMEOUT) $(RDMA_VM_SHARE) -- ./guest-test.sh

bench-rdma: rdma-vm-build
	$(RDMA_VM_DIR)/run.sh $(RDMA_VM_FLAGS) --mem $(RDMA_VM_MEM) --timeout $(RDMA_BENCH_TIMEOUT) $(RDMA_VM_SHARE) -- ./guest-bench.sh $(RDMA_BENCH_ROUNDS) $(RDMA_BENCH_PIN) $(RDMA_BENCH_DRAWS)
	$(GO) build -C $(RDMA_VM_DIR)/benchtable -o $(VMDIR)/benchtable .
	$(VMDIR)/benchtable $(RDMA_VM_SHARE)/bench | tee $(VMDIR)/bench-rdma.txt

# The guest's bound must cover DURATION plus about ten minutes of boot and
# set-up: raise RDMA_SOAK_TIMEOUT (seconds) for a DURATION above 20m.
RDMA_SOAK_TIMEOUT ?= 1800
soak-rdma: rdma-vm-build
	$(RDMA_VM_DIR)/run.sh $(RDMA_VM_FLAGS) --mem $(RDMA_VM_MEM) --timeout $(RDMA_SOAK_TIMEOUT) \
		$(RDMA_VM_SHARE) -- ./guest-soak.sh $(DURATION)

rdma-vm-selftest:
	$(RDMA_VM_DIR)/selftest.sh $(RDMA_VM_FLAGS)

# sweep-rdma: the threshold sweep, the mixed-size sweep and ETC, tune (p50,
# a map over connections, server CPU, capacity under a p99 goal, ETC as a
# whole workload with --predict) and the connections sweep measured by
# kvbench over verbs in the guest (guest-sweep.sh), then their results and
# plots on the host under results/ and plots/*-rdma (sweep-collect.sh),
# which prints each value size and protocol's p50 spread across thresholds.
# Phases are shortened so the whole run takes about an hour and a half
# under emulation.
RDMA_SWEEP_WARMUP ?= 250ms
RDMA_SWEEP_MEASURE ?= 1500ms
RDMA_SWEEP_TUNE_MEASURE ?= 500ms
RDMA_SWEEP_TIMEOUT ?= 7200
# SWEEP_PARTS runs some of the parts alone (run mixed etc tune tune-map
# tune-cpu tune-slo tune-etc conns); each replaces its own published
# directory, whose build.txt names the build that made it.
SWEEP_PARTS ?= run mixed etc tune tune-map tune-cpu tune-slo tune-etc conns

.PHONY: sweep-rdma
sweep-rdma: rdma-vm-build build
	cp workloads/threshold-sweep.yaml workloads/connections-sweep.yaml workloads/mixed-sweep.yaml workloads/etc.yaml $(RDMA_VM_SHARE)/workloads/
	cp $(RDMA_VM_DIR)/guest-sweep.sh $(RDMA_VM_SHARE)/
	$(RDMA_VM_DIR)/run.sh $(RDMA_VM_FLAGS) --mem $(RDMA_VM_MEM) --timeout $(RDMA_SWEEP_TIMEOUT) $(RDMA_VM_SHARE) -- \
		./guest-sweep.sh $(RDMA_SWEEP_WARMUP) $(RDMA_SWEEP_MEASURE) $(RDMA_SWEEP_TUNE_MEASURE) "$(SWEEP_PARTS)"
	$(RDMA_VM_DIR)/sweep-collect.sh $(RDMA_VM_SHARE)/sweep $(BIN)/kvbench results plots

# adaptive-rdma: the adaptive policy beside the fixed thresholds over
# verbs in the guest (guest-adaptive.sh): tune on the weighted mix and on
# ETC at 1, 4 and 16 connections, and how long adaptive takes to settle on
# eager for gets that eager wins under Soft-RoCE. Results land in
# results/adaptive-rdma. ADAPTIVE_PARTS picks some of mixed, etc, single,
# settle and ramp; each part's files replace that part's alone, and its
# text names the build that made it.
RDMA_ADAPTIVE_TIMEOUT ?= 3600
ADAPTIVE_PARTS ?= mixed etc single settle ramp

.PHONY: adaptive-rdma
adaptive-rdma: rdma-vm-build build
	cp $(RDMA_VM_DIR)/guest-adaptive.sh $(RDMA_VM_SHARE)/
	$(RDMA_VM_DIR)/run.sh $(RDMA_VM_FLAGS) --mem $(RDMA_VM_MEM) --timeout $(RDMA_ADAPTIVE_TIMEOUT) $(RDMA_VM_SHARE) -- \
		./guest-adaptive.sh 20s "$(ADAPTIVE_PARTS)"
	mkdir -p results/adaptive-rdma
	cd $(RDMA_VM_SHARE)/adaptive && for f in *; do rm -rf "$(CURDIR)/results/adaptive-rdma/$$f"; cp -r "$$f" "$(CURDIR)/results/adaptive-rdma/"; done

# baselines-rdma: workloads/baselines.yaml against kvserver over verbs and
# over tcp, Redis and memcached, all served in one guest boot
# (guest-baselines.sh), RDMA_BASELINES_REPEATS rounds of the four stores in
# turn; then the runs under results/ and, in plots/baselines-rdma, the last
# round's overlay with each store's p50 spread across the rounds and the
# stores' p50 ratios (baselines-collect.sh), and the host's load average
# while the guest ran (host-load.sh). The host's redis-server and
# memcached run in the guest, their libraries added to the initramfs by
# run.sh as for every binary in the share. A round takes about three
# minutes under emulation; the guest's bound grows with the rounds.
RDMA_BASELINES_REPEATS ?= 3
RDMA_BASELINES_TIMEOUT ?= $(shell echo $$((300 + 300 * $(RDMA_BASELINES_REPEATS))))
RDMA_BASELINES_SERVERS ?= /usr/bin/redis-server /usr/bin/memcached

.PHONY: baselines-rdma
baselines-rdma: rdma-vm-build build
	cp workloads/baselines.yaml $(RDMA_VM_SHARE)/workloads/
	cp -L $(RDMA_BASELINES_SERVERS) $(RDMA_VM_SHARE)/
	cp $(RDMA_VM_DIR)/guest-baselines.sh $(RDMA_VM_SHARE)/
	$(RDMA_VM_DIR)/host-load.sh $(RDMA_VM_SHARE)/host-load.txt -- \
		$(RDMA_VM_DIR)/run.sh $(RDMA_VM_FLAGS) --mem $(RDMA_VM_MEM) --timeout $(RDMA_BASELINES_TIMEOUT) $(RDMA_VM_SHARE) -- \
		./guest-baselines.sh $(RDMA_BASELINES_REPEATS)
	mv $(RDMA_VM_SHARE)/host-load.txt $(RDMA_VM_SHARE)/baselines/
	$(RDMA_VM_DIR)/baselines-collect.sh $(RDMA_VM_SHARE)/baselines $(BIN)/kvbench results plots/baselines-rdma
