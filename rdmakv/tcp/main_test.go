package tcp

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run if connection goroutines outlive their tests:
// every test closes what it opened, so readers, responders and accept loops
// must all be gone.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := waitForLeaks(); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines left running:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

func waitForLeaks() string {
	var leaked string
	for deadline := time.Now().Add(hangGuard); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		leaked = ""
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "rdmakv/tcp.(*") && !strings.Contains(g, "waitForLeaks") {
				leaked += g + "\n\n"
			}
		}
		if leaked == "" {
			return ""
		}
	}
	return leaked
}
