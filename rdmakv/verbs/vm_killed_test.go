//go:build rdmavm && linux && cgo

package verbs

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// childEnv makes the test binary act as a bare server process for
// TestPeerKilled.
const childEnv = "VERBS_TEST_CHILD_SERVER"

// TestMain lets the binary double as that child.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		childServer()
		return
	}
	os.Exit(m.Run())
}

// childServer listens, prints "addr raddr rkey" and waits to be killed.
func childServer() {
	l, err := network{}.Listen(os.Getenv("RDMAKV_ADDR")+":0", testConfig(transport.PollEvent),
		func(transport.Conn) transport.Handler { return sink{} })
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	r, err := l.Register(1<<20, transport.AccessRemoteRead)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(l.Addr(), r.Addr(), r.RKey())
	select {}
}

// TestPeerKilled: the server process is killed (no orderly disconnect from
// its code) while reads are in flight; every read fails, the connection
// reports Closed with an error, nothing hangs.
func TestPeerKilled(t *testing.T) {
	vmAddr(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var addr string
	var raddr uint64
	var rkey uint32
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscan(line, &addr, &raddr, &rkey); err != nil {
		t.Fatalf("child said %q: %v", line, err)
	}
	rec := newRecorder(false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := network{}.Dial(ctx, addr, testConfig(transport.PollEvent), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	local, err := c.Register(1<<20, transport.AccessLocal)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if err := c.Read(local, 0, 4096, raddr, rkey); err != nil {
		t.Fatalf("read before the kill: %v", err)
	}
	guard(t, 60*time.Second, func() {
		errs := make(chan error, 4)
		for w := 0; w < 4; w++ {
			go func() {
				for {
					if err := c.Read(local, 0, 1<<18, raddr, rkey); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		time.Sleep(100 * time.Millisecond) // reads in flight; not a measurement
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		for w := 0; w < 4; w++ {
			err := <-errs
			if err == nil {
				t.Fatal("read from a killed peer succeeded")
			}
			t.Logf("read %d: %v", w, err)
		}
		if err := <-rec.closed; err == nil {
			t.Fatal("Closed reported nil for a killed peer")
		} else {
			t.Logf("closed: %v", err)
		}
	})
}
