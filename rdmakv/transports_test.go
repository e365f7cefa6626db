package rdmakv

import (
	"strings"
	"testing"
)

// Client and server take the same names, and refuse any other listing them.
func TestTransportNames(t *testing.T) {
	for _, name := range Transports() {
		o := defaultOptions()
		WithTransport(name)(&o)
		if err := o.validate(); err != nil {
			t.Errorf("client %s: %v", name, err)
		}
		if err := (ServerConfig{Transport: name}).Validate(); err != nil {
			t.Errorf("server %s: %v", name, err)
		}
	}
	o := defaultOptions()
	WithTransport("carrier-pigeon")(&o)
	const want = `transport "carrier-pigeon": want tcp, verbs or auto`
	if err := o.validate(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("client: %v, want %s", err, want)
	}
	if err := (ServerConfig{Transport: "carrier-pigeon"}).Validate(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("server: %v, want %s", err, want)
	}
	if d := defaultOptions().transport; d != DefaultTransport || (ServerConfig{}).withDefaults().Transport != d {
		t.Errorf("client default %q, server default %q: want both %q", d, (ServerConfig{}).withDefaults().Transport, DefaultTransport)
	}
}

// A type of service outside a byte is refused by client and server alike.
func TestTOSRange(t *testing.T) {
	for _, tos := range []int{-1, 256} {
		o := defaultOptions()
		WithTOS(tos)(&o)
		if err := o.validate(); err == nil || !strings.Contains(err.Error(), "tos") {
			t.Errorf("client tos %d: %v", tos, err)
		}
	}
	o := defaultOptions()
	WithTOS(0xb8)(&o)
	if err := o.validate(); err != nil {
		t.Errorf("client tos 0xb8: %v", err)
	}
}
