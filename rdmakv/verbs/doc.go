// Package verbs is the rdmakv transport over libibverbs and librdmacm
// (cgo). It registers itself as "verbs"; import it for its side effect.
package verbs
