// Command benchtable prints the bench-rdma results side by side: kvbench's
// cases against the perftest figures taken in the same guest run, as ratios.
//
//	benchtable DIR
//
// DIR holds the files guest-bench.sh writes: perftest client reports
// (ib_send_lat-64.txt, ib_read_lat-65536.txt, ib_write_bw-1048576.txt) and
// one directory per case (kvbench-<case>) holding a kvbench run directory
// per draw, with draws.txt saying how many draws make a round.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: benchtable DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}
