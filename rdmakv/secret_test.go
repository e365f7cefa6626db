package rdmakv

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSecret(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // WriteFile's mode is masked by umask
			t.Fatal(err)
		}
		return p
	}
	good := write("good", "0123456789abcdef0123\n", 0o600)
	if b, err := ReadSecret(good); err != nil || !bytes.Equal(b, []byte("0123456789abcdef0123")) {
		t.Fatalf("ReadSecret(600 file) = %q, %v; want the line without its newline", b, err)
	}
	for _, c := range []struct{ path, want string }{
		{write("open", "0123456789abcdef0123\n", 0o644), "chmod 600"},
		{write("short", "tooshort\n\n", 0o600), "the secret is 8 bytes, want at least 16"},
		{filepath.Join(dir, "missing"), "no such file"},
	} {
		if _, err := ReadSecret(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadSecret(%s) = %v, want an error saying %q", filepath.Base(c.path), err, c.want)
		}
	}
}
