package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// defaultPort is where a servername without a port connects.
const defaultPort = "7471"

// dialTarget is servername as host:port, the port defaulting to 7471.
func dialTarget(servername string) (string, error) {
	if servername == "" {
		return "", fmt.Errorf("empty server name")
	}
	if _, _, err := net.SplitHostPort(servername); err == nil {
		return servername, nil
	}
	return net.JoinHostPort(servername, defaultPort), nil
}

// envOptions turns the KVBENCH_* environment into Dial options and the
// connect timeout.
func envOptions() ([]rdmakv.Option, time.Duration, error) {
	transport := "auto"
	if v := os.Getenv("KVBENCH_TRANSPORT"); v != "" {
		transport = v
	}
	switch transport {
	case "auto", "tcp", "verbs":
	default:
		return nil, 0, fmt.Errorf("KVBENCH_TRANSPORT=%q: want tcp, verbs or auto", transport)
	}
	opts := []rdmakv.Option{rdmakv.WithTransport(transport)}
	if v := os.Getenv("KVBENCH_EAGER_THRESHOLD"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, 0, fmt.Errorf("KVBENCH_EAGER_THRESHOLD=%q: want a byte count of 0 or more", v)
		}
		opts = append(opts, rdmakv.WithEagerThreshold(n))
	}
	timeout := rdmakv.DefaultTimeout
	if v := os.Getenv("KVBENCH_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, 0, fmt.Errorf("KVBENCH_TIMEOUT=%q: want a positive duration such as 5s", v)
		}
		timeout = d
		opts = append(opts, rdmakv.WithTimeout(d))
	}
	if v := os.Getenv("KVBENCH_AUTH_FILE"); v != "" {
		secret, err := rdmakv.ReadSecret(v)
		if err != nil {
			return nil, 0, fmt.Errorf("KVBENCH_AUTH_FILE: %w", err)
		}
		opts = append(opts, rdmakv.WithAuth(secret))
	}
	return opts, timeout, nil
}
