package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
)

// Without KVBENCH_TRANSPORT the library dials tcp outright, as kvbench
// does, instead of settling auto: auto would take verbs wherever a device
// is usable and then fail against the tcp server kvserver runs by default.
func TestEnvDefaultTransport(t *testing.T) {
	t.Setenv("KVBENCH_TRANSPORT", "")
	opts, _, err := envOptions()
	if err != nil {
		t.Fatal(err)
	}
	logs := &logbuf.Buffer{}
	opts = append(opts, rdmakv.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	c, err := rdmakv.Dial(context.Background(), serve(t, nil), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.Info().Transport; got != rdmakv.TransportTCP {
		t.Errorf("transport %q, want tcp", got)
	}
	if strings.Contains(logs.String(), "transport auto") {
		t.Errorf("the default went through auto:\n%s", logs.String())
	}
}

// An unknown KVBENCH_TRANSPORT is refused at kv_open, naming the variable
// and what it may be.
func TestEnvUnknownTransport(t *testing.T) {
	t.Setenv("KVBENCH_TRANSPORT", "carrier-pigeon")
	_, _, err := envOptions()
	if err == nil || !strings.Contains(err.Error(), "KVBENCH_TRANSPORT") || !strings.Contains(err.Error(), "want tcp, verbs or auto") {
		t.Fatalf("err %v: want KVBENCH_TRANSPORT refused with the names it takes", err)
	}
}
