package memcached

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kvbench/kvbench/internal/store"
)

// memcachedControl is a text-protocol connection for what gomemcache does
// not ask: the server's version and its STATS.
type memcachedControl struct {
	mu      sync.Mutex
	conn    net.Conn
	rw      *bufio.ReadWriter
	timeout time.Duration
}

func dialMemcachedControl(ctx context.Context, addr string, timeout time.Duration) (*memcachedControl, error) {
	d := store.NetDialer(timeout)
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &memcachedControl{conn: conn, rw: bufio.NewReadWriter(bufio.NewReader(conn), bufio.NewWriter(conn)), timeout: timeout}
	if _, err := c.version(); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// request sends line and reads reply lines until last says to stop.
func (c *memcachedControl) request(line string, last func(string) bool) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn.SetDeadline(time.Now().Add(c.timeout))
	if _, err := c.rw.WriteString(line + "\r\n"); err != nil {
		return nil, err
	}
	if err := c.rw.Flush(); err != nil {
		return nil, err
	}
	var out []string
	for {
		l, err := c.rw.ReadString('\n')
		if err != nil {
			return nil, err
		}
		l = strings.TrimRight(l, "\r\n")
		if strings.HasPrefix(l, "ERROR") || strings.HasPrefix(l, "CLIENT_ERROR") || strings.HasPrefix(l, "SERVER_ERROR") {
			return nil, fmt.Errorf("%s: %s", line, l)
		}
		if last(l) {
			return out, nil
		}
		out = append(out, l)
	}
}

func (c *memcachedControl) version() (string, error) {
	var reply string
	_, err := c.request("version", func(l string) bool {
		reply = l
		return true
	})
	if err != nil {
		return "", err
	}
	v, ok := strings.CutPrefix(reply, "VERSION ")
	if !ok {
		return "", fmt.Errorf("version: replied %q: not a memcached server?", reply)
	}
	return v, nil
}

// stats is STATS [group] as name to value.
func (c *memcachedControl) stats(group string) (map[string]string, error) {
	lines, err := c.request(strings.TrimSpace("stats "+group), func(l string) bool { return l == "END" })
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(lines))
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "STAT" {
			out[f[1]] = f[2]
		}
	}
	return out, nil
}

func (c *memcachedControl) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return nil
	}
	err := c.conn.Close()
	c.conn = nil
	return err
}

func parseInt(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
