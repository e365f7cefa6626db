package main

import (
	"sync"

	"github.com/kvbench/kvbench/rdmakv"
)

// clients maps handle numbers to open clients. Numbers start at 1 and are
// never reused, so a closed handle stays unknown.
var clients = struct {
	sync.RWMutex
	next uintptr
	m    map[uintptr]*rdmakv.Client
}{m: make(map[uintptr]*rdmakv.Client)}

func addClient(c *rdmakv.Client) uintptr {
	clients.Lock()
	defer clients.Unlock()
	clients.next++
	clients.m[clients.next] = c
	return clients.next
}

func client(id uintptr) *rdmakv.Client {
	clients.RLock()
	defer clients.RUnlock()
	return clients.m[id]
}

func removeClient(id uintptr) *rdmakv.Client {
	clients.Lock()
	defer clients.Unlock()
	c := clients.m[id]
	delete(clients.m, id)
	return c
}

// held maps the address of every value handed to C to what backs it: a
// Value whose registered memory it views, or nil for a malloc'd copy.
var held = struct {
	sync.Mutex
	m map[uintptr]*rdmakv.Value
}{m: make(map[uintptr]*rdmakv.Value)}

func hold(addr uintptr, v *rdmakv.Value) {
	held.Lock()
	held.m[addr] = v
	held.Unlock()
}

// unhold forgets addr and reports what backed it; ok is false for an
// address never handed out or already released.
func unhold(addr uintptr) (v *rdmakv.Value, ok bool) {
	held.Lock()
	defer held.Unlock()
	v, ok = held.m[addr]
	delete(held.m, addr)
	return v, ok
}
