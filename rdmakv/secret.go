package rdmakv

import (
	"bytes"
	"fmt"
	"os"
)

// MinSecretLen is the shortest shared secret accepted: a shorter one
// could be guessed offline from one observed challenge and proof.
const MinSecretLen = 16

// ReadSecret loads a shared secret for ServerConfig.AuthSecret and
// WithAuth from path: the file's bytes without trailing white space. It
// refuses a file that others may read or write, as ssh does a key, and a
// secret shorter than MinSecretLen. A good secret is
//
//	head -c 32 /dev/urandom | base64 > kv.secret && chmod 600 kv.secret
func ReadSecret(path string) ([]byte, error) {
	b, err := ReadPrivateFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < MinSecretLen {
		return nil, fmt.Errorf("%s: the secret is %d bytes, want at least %d", path, len(b), MinSecretLen)
	}
	return b, nil
}

// ReadPrivateFile is the file at path without trailing white space,
// refused if others may read or write it: what ReadSecret reads, for
// secrets of other lengths (a Redis password).
func ReadPrivateFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o007 != 0 {
		return nil, fmt.Errorf("%s: mode %04o lets other users at it; chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return bytes.TrimRight(b, " \t\r\n"), nil
}
