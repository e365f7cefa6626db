package results

import (
	"fmt"
	"strings"
	"time"
)

// rnrCounters are the hardware counters (Cell.HWCounters) of RNR NAKs: a
// send reached a receiver that had no receive posted for it, was refused,
// and was sent again after the RNR timer, milliseconds later.
var rnrCounters = []string{
	"send_rnr_err",           // rxe: RNR NAKs this device sent, out of receives
	"rcvd_rnr_err",           // rxe: RNR NAKs it received
	"retry_rnr_exceeded_err", // rxe: sends that used up their RNR retries
	"rnr_nak_retry_err",      // mlx5: RNR NAKs received
	"out_of_buffer",          // mlx5: packets dropped for want of a posted receive
}

// retransmitCounters are the hardware counters of retransmissions: a
// packet or its acknowledgement was lost and the sender resent it after
// a timeout or a sequence NAK.
var retransmitCounters = []string{
	"completer_retry_err",   // rxe: requests resent
	"retry_exceeded_err",    // rxe: requests that used up their retries
	"rcvd_seq_err",          // rxe: sequence-error NAKs received
	"out_of_seq_request",    // rxe: requests that arrived past a lost one
	"duplicate_request",     // rxe, mlx5: requests received again
	"local_ack_timeout_err", // mlx5: acknowledgement timer expiries
	"out_of_sequence",       // mlx5: packets received out of sequence
	"packet_seq_err",        // mlx5: sequence-error NAKs received
	"implied_nak_seq_err",   // mlx5: responses that skipped a sequence number
}

// resendWait is the least a request waits when it is resent after a
// timeout: the QP's local ACK timeout, which rdmakv's verbs transport sets
// to 17, 4.096 µs × 2^17 (about 0.54 s), rounded down.
const resendWait = 500 * time.Millisecond

// RNRRetransmit flags a cell whose measure phase saw its RDMA device count
// RNR NAKs or retransmissions (Cell.HWCounters; rxe's and mlx5's names).
// Either makes some operations wait on a transport timer, milliseconds
// against microseconds, so the tail and the mean describe the timer.
// Retransmissions alone are flagged only when an operation took as long
// as a resend waits (resendWait): below that they were not the cell's.
func RNRRetransmit(c Cell) (Warning, bool) {
	rnr, re := nonzero(c.HWCounters, rnrCounters), nonzero(c.HWCounters, retransmitCounters)
	if len(rnr)+len(re) == 0 {
		return Warning{}, false
	}
	if len(rnr) == 0 && c.Latency.Max > 0 && time.Duration(c.Latency.Max) < resendWait {
		// No measured operation waited as long as a resend does: the
		// device's counters (which count every connection on it) saw
		// resends of other traffic.
		return Warning{}, false
	}
	lead := "RNR NAKs and retransmissions"
	switch {
	case len(re) == 0:
		lead = "RNR NAKs"
	case len(rnr) == 0:
		lead = "retransmissions"
	}
	msg := lead + " on the RDMA device: " + strings.Join(append(rnr, re...), ", ")
	if l := c.Load; l.Connections > 0 {
		d := max(l.Depth, 1)
		msg += fmt.Sprintf(" (%d connections × depth %d = %d requests in flight at most)", l.Connections, d, l.Connections*d)
	}
	if len(rnr) > 0 {
		msg += ": the server posted fewer receives than its clients had sends in flight, and each send that found none " +
			"waited out an RNR timer; raise kvserver --recv-depth, or lower load.depth or load.connections (--depth, --connections)"
	} else {
		msg += ": packets were lost and resent after a timeout, on a lossy link or at a receiver dropping under load " +
			"(Soft-RoCE can); lower load.depth or load.connections (--depth, --connections), or measure on a lossless link"
	}
	return Warning{Kind: WarnRNRRetransmit, Message: msg}, true
}

// nonzero lists the counters of names that grew, as "name count", in the
// order of names.
func nonzero(deltas map[string]uint64, names []string) []string {
	var out []string
	for _, n := range names {
		if d := deltas[n]; d > 0 {
			out = append(out, fmt.Sprintf("%s %d", n, d))
		}
	}
	return out
}
