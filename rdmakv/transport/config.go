package transport

import (
	"cmp"
	"errors"
	"fmt"
	"time"
)

// Defaults for Config fields left at zero, shared by every transport so
// that they compare like for like.
const (
	DefaultMaxMessage = 64 << 10
	DefaultRecvDepth  = 64
	DefaultSendDepth  = 64
	// MaxMessageLimit bounds Config.MaxMessage.
	MaxMessageLimit = 1 << 30
	// DefaultStallTimeout is Config.StallTimeout's default.
	DefaultStallTimeout = 2 * time.Second
)

// Check fills zero sizes with the defaults and reports every field out of
// range (depths above maxDepth, the transport's own bound), each message
// starting with prefix. The error is an errors.Join of one error per fault.
func (cfg Config) Check(prefix string, maxDepth int) (Config, error) {
	cfg.MaxMessage = cmp.Or(cfg.MaxMessage, DefaultMaxMessage)
	cfg.RecvDepth = cmp.Or(cfg.RecvDepth, DefaultRecvDepth)
	cfg.SendDepth = cmp.Or(cfg.SendDepth, DefaultSendDepth)
	cfg.StallTimeout = cmp.Or(cfg.StallTimeout, DefaultStallTimeout)
	cfg.MaxSend = max(cfg.MaxSend, cfg.MaxMessage)
	var errs []error
	if cfg.MaxMessage < 0 || cfg.MaxMessage > MaxMessageLimit {
		errs = append(errs, fmt.Errorf("%sMaxMessage %d out of range (1..%d)", prefix, cfg.MaxMessage, MaxMessageLimit))
	}
	if cfg.MaxSend > MaxMessageLimit {
		errs = append(errs, fmt.Errorf("%sMaxSend %d out of range (MaxMessage..%d)", prefix, cfg.MaxSend, MaxMessageLimit))
	}
	if cfg.RecvDepth < 0 || cfg.RecvDepth > maxDepth {
		errs = append(errs, fmt.Errorf("%sRecvDepth %d out of range (1..%d)", prefix, cfg.RecvDepth, maxDepth))
	}
	if cfg.MaxRecvDepth < cfg.RecvDepth {
		cfg.MaxRecvDepth = cfg.RecvDepth
	}
	if cfg.MaxRecvDepth > maxDepth {
		errs = append(errs, fmt.Errorf("%sMaxRecvDepth %d out of range (RecvDepth..%d)", prefix, cfg.MaxRecvDepth, maxDepth))
	}
	if cfg.SendDepth < 0 || cfg.SendDepth > maxDepth {
		errs = append(errs, fmt.Errorf("%sSendDepth %d out of range (1..%d)", prefix, cfg.SendDepth, maxDepth))
	}
	if cfg.OpTimeout < 0 {
		errs = append(errs, fmt.Errorf("%sOpTimeout %v is negative", prefix, cfg.OpTimeout))
	}
	if cfg.StallTimeout < 0 {
		errs = append(errs, fmt.Errorf("%sStallTimeout %v is negative", prefix, cfg.StallTimeout))
	}
	if cfg.BusyIdle < 0 {
		errs = append(errs, fmt.Errorf("%sBusyIdle %v is negative", prefix, cfg.BusyIdle))
	}
	if cfg.TOS < 0 || cfg.TOS > 255 {
		errs = append(errs, fmt.Errorf("%sTOS %d out of range (0..255)", prefix, cfg.TOS))
	}
	if cfg.Poll != PollEvent && cfg.Poll != PollBusy {
		errs = append(errs, fmt.Errorf("%sunknown Poll mode %d", prefix, cfg.Poll))
	}
	if !receivesNames.valid(cfg.Receives) {
		errs = append(errs, fmt.Errorf("%sunknown Receives %d", prefix, cfg.Receives))
	}
	return cfg, errors.Join(errs...)
}
