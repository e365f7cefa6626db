package main

/*
#include "kv.h"
*/
import "C"

import (
	"errors"

	"github.com/kvbench/kvbench/rdmakv"
)

// code maps an rdmakv error to its kv.h return code.
func code(err error) C.int {
	switch {
	case err == nil:
		return C.KV_OK
	case errors.Is(err, rdmakv.ErrNotFound):
		return C.KV_ENOTFOUND
	case errors.Is(err, rdmakv.ErrKeyTooLong):
		return C.KV_EKEYTOOLONG
	case errors.Is(err, rdmakv.ErrValueTooLarge):
		return C.KV_EVALUETOOLARGE
	case errors.Is(err, rdmakv.ErrNoSpace):
		return C.KV_ENOSPACE
	case errors.Is(err, rdmakv.ErrTimeout):
		return C.KV_ETIMEDOUT
	case errors.Is(err, rdmakv.ErrThreshold):
		return C.KV_ETHRESHOLD
	case errors.Is(err, rdmakv.ErrAuth):
		return C.KV_EAUTH
	case errors.Is(err, rdmakv.ErrClosed):
		return C.KV_ECLOSED
	}
	return C.KV_EPROTO
}
