package traceclock

// rdtsc reads the time-stamp counter, unserialised: a stamp may move by
// the few instructions in flight around it, tens of nanoseconds at most.
func rdtsc() int64

// cpuid runs CPUID with leaf eax.
func cpuid(eax uint32) (a, b, c, d uint32)

// haveTSC reports an invariant counter (CPUID 0x80000007, EDX bit 8): one
// that ticks at a constant rate through frequency and sleep states.
func haveTSC() bool {
	if top, _, _, _ := cpuid(0x80000000); top < 0x80000007 {
		return false
	}
	_, _, _, d := cpuid(0x80000007)
	return d&(1<<8) != 0
}
