package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// dialTarget is servername as host:port, the port defaulting to
// rdmakv.DefaultPort.
func dialTarget(servername string) (string, error) {
	if servername == "" {
		return "", fmt.Errorf("empty server name")
	}
	if _, _, err := net.SplitHostPort(servername); err == nil {
		return servername, nil
	}
	return net.JoinHostPort(servername, rdmakv.DefaultPort), nil
}

// envOptions turns the KVBENCH_* environment into Dial options and the
// connect timeout. Without KVBENCH_TRANSPORT it dials rdmakv's default
// transport, as kvbench and kvserver do, so that a C client reaches a
// kvserver started with no flags.
func envOptions() ([]rdmakv.Option, time.Duration, error) {
	transport := rdmakv.DefaultTransport
	if v := os.Getenv("KVBENCH_TRANSPORT"); v != "" {
		transport = v
	}
	if err := rdmakv.CheckTransport(transport); err != nil {
		return nil, 0, fmt.Errorf("KVBENCH_TRANSPORT: %w", err)
	}
	opts := []rdmakv.Option{rdmakv.WithTransport(transport)}
	if v := os.Getenv("KVBENCH_EAGER_THRESHOLD"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, 0, fmt.Errorf("KVBENCH_EAGER_THRESHOLD=%q: want a byte count of 0 or more", v)
		}
		opts = append(opts, rdmakv.WithEagerThreshold(n))
	}
	if v := os.Getenv("KVBENCH_DEPTH"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, 0, fmt.Errorf("KVBENCH_DEPTH=%q: want the requests a handle keeps in flight, 1 or more", v)
		}
		opts = append(opts, rdmakv.WithDepth(n))
	}
	if p, err := envProfile(); err != nil {
		return nil, 0, err
	} else if p != nil {
		opts = append(opts, p)
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
	if v := os.Getenv("KVBENCH_TOS"); v != "" {
		n, err := strconv.ParseUint(v, 0, 8)
		if err != nil {
			return nil, 0, fmt.Errorf("KVBENCH_TOS=%q: want a type-of-service byte, 0 to 255 (DSCP << 2 | ECN, e.g. 104 or 0x68)", v)
		}
		opts = append(opts, rdmakv.WithTOS(int(n)))
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

// envProfile is KVBENCH_PROFILE's profile as a Dial option (nil without
// one), at the load of KVBENCH_CONNECTIONS connections (default 1), each
// at the client's depth. It excludes KVBENCH_EAGER_THRESHOLD, as
// WithProfile excludes WithEagerThreshold, but says so in the variables'
// names.
func envProfile() (rdmakv.Option, error) {
	path := os.Getenv("KVBENCH_PROFILE")
	if path == "" {
		return nil, nil
	}
	if os.Getenv("KVBENCH_EAGER_THRESHOLD") != "" {
		return nil, fmt.Errorf("KVBENCH_PROFILE and KVBENCH_EAGER_THRESHOLD: give one (the profile sets the thresholds)")
	}
	connections := 1
	if v := os.Getenv("KVBENCH_CONNECTIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("KVBENCH_CONNECTIONS=%q: want the application's connections, 1 or more", v)
		}
		connections = n
	}
	p, err := rdmakv.LoadProfile(path)
	if err != nil {
		return nil, fmt.Errorf("KVBENCH_PROFILE: %w", err)
	}
	return rdmakv.WithProfile(p, connections), nil
}
