package main

import (
	"strings"
	"testing"
)

func TestStuckLinesKeepsTheStuckFourTuple(t *testing.T) {
	out := "State Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n" +
		"SYN-SENT 0 1 127.0.0.1:50000 127.0.0.1:7471 timer:(on,1.2s,2)\n" +
		"\t cubic rto:1000 backoff:2\n" +
		"TIME-WAIT 0 0 127.0.0.1:7471 127.0.0.1:50000 timer:(timewait,40s,0)\n" +
		"ESTAB 0 0 127.0.0.1:50002 127.0.0.1:7471\n" +
		"\t cubic rtt:0.1\n" +
		"TIME-WAIT 0 0 127.0.0.1:7471 127.0.0.1:5000 timer:(timewait,40s,0)\n"
	got := stuckLines(out, "7471")
	for _, want := range []string{"SYN-SENT", "backoff:2", "TIME-WAIT 0 0 127.0.0.1:7471 127.0.0.1:50000"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"50002", "rtt:0.1", "127.0.0.1:5000 timer"} {
		if strings.Contains(got, not) {
			t.Errorf("kept %q:\n%s", not, got)
		}
	}
	if got := stuckLines("ESTAB 0 0 127.0.0.1:50002 127.0.0.1:7471\n", "7471"); !strings.Contains(got, "no socket in SYN-SENT") {
		t.Errorf("without a SYN-SENT socket: %s", got)
	}
}
