package transport

import (
	"strings"
	"testing"
)

// Each choice reads back from its name; an unknown name or value is an
// error naming the choices, and Check refuses an unknown value.
func TestReceivesText(t *testing.T) {
	for _, r := range []Receives{ReceivesAuto, ReceivesShared, ReceivesPerConn} {
		b, err := r.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Receives
		if err := back.UnmarshalText(b); err != nil || back != r {
			t.Errorf("%v read back as %v, %v", r, back, err)
		}
	}
	if _, err := ParseReceives("private"); err == nil || !strings.Contains(err.Error(), "auto, shared or per-connection") {
		t.Errorf("ParseReceives(private): %v", err)
	}
	if _, err := Receives(7).MarshalText(); err == nil {
		t.Error("Receives(7) has a name")
	}
	if _, err := (Config{Receives: 7}).Check("", 1024); err == nil || !strings.Contains(err.Error(), "unknown Receives 7") {
		t.Errorf("Check with Receives 7: %v", err)
	}
}
