package transport_test

import (
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// A program that imports no transport is told which import it lacks.
func TestLookupNamesTheMissingImport(t *testing.T) {
	_, err := transport.Lookup("tcp")
	if err == nil || !strings.Contains(err.Error(), `import _ "github.com/kvbench/kvbench/rdmakv/tcp"`) {
		t.Fatalf("Lookup(tcp) in a program without it: %v", err)
	}
	if _, err := transport.Lookup("pigeon"); err == nil || !strings.Contains(err.Error(), `"pigeon" is not linked`) {
		t.Fatalf("Lookup(pigeon): %v", err)
	}
}

func TestPollText(t *testing.T) {
	for _, p := range []transport.Poll{transport.PollEvent, transport.PollBusy} {
		b, err := p.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var q transport.Poll
		if err := q.UnmarshalText(b); err != nil || q != p || p.String() != string(b) {
			t.Fatalf("%v round-trips as %q to %v (%v)", p, b, q, err)
		}
	}
	if _, err := transport.Poll(7).MarshalText(); err == nil {
		t.Error("Poll(7) marshals")
	}
	var q transport.Poll
	if err := q.UnmarshalText([]byte("spin")); err == nil || !strings.Contains(err.Error(), `"spin"`) {
		t.Errorf("UnmarshalText(spin): %v", err)
	}
}
