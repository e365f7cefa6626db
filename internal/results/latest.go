package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// LatestLink is the symbolic link in a results parent directory that names
// the newest run directory, so scripts (make run's plot step) need not
// guess a timestamped name.
const LatestLink = "latest"

// UpdateLatest points parent/latest at run directory dir (which must be in
// parent). The link is relative, so the tree can be moved or copied, and is
// replaced with a rename, so a reader sees the old target or the new one,
// never a missing link. A "latest" that is not a symbolic link is left
// alone and reported.
func UpdateLatest(parent, dir string) error {
	link := filepath.Join(parent, LatestLink)
	if fi, err := os.Lstat(link); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("%s exists and is not a symbolic link; not replacing it", link)
	}
	target := filepath.Base(dir)
	for i := 0; ; i++ {
		tmp := filepath.Join(parent, ".latest.tmp"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
		err := os.Symlink(target, tmp)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return fmt.Errorf("link %s: %w", link, err)
		}
		if err := os.Rename(tmp, link); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("link %s: %w", link, err)
		}
		return nil
	}
}
