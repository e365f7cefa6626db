package cli

import (
	"io"
	"log/slog"
)

// noticeLogger is the logger the commands give rdmakv: one line per message
// on w (stderr), without a timestamp, so that what transport auto chose and
// any connection fault read as part of the command's output.
func noticeLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}
