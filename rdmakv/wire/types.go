package wire

import "strconv"

// Type is the message type.
type Type uint8

// Message types. Requests go client to server, replies server to client;
// a reply carries the ReqID of its request.
const (
	// Hello opens a connection; body is a HelloBody.
	Hello Type = 1
	// HelloReply answers Hello; body is a Limits.
	HelloReply Type = 2
	// Set is an eager set: key and value inline.
	Set Type = 3
	// SetReply ends any set (eager or rendezvous); Version is the new
	// version.
	SetReply Type = 4
	// Get asks for a key; Aux is the client's eager threshold.
	Get Type = 5
	// GetReplyInline carries the value inline.
	GetReplyInline Type = 6
	// GetReplyRdv names a read window: Addr, RKey, Length, Version, Token,
	// Aux (lease ms).
	GetReplyRdv Type = 7
	// GetRelease ends a rendezvous get lease (Token); it has no reply.
	GetRelease Type = 8
	// SetRdvReq asks for a write window for key; Length is the value size.
	SetRdvReq Type = 9
	// SetRdvGrant names the write window: Addr, RKey, Length, Token, Aux
	// (lease ms).
	SetRdvGrant Type = 10
	// SetFin commits a granted set (Token, Length) without a
	// WRITE_WITH_IMM; used for empty values.
	SetFin Type = 11
	// Delete removes a key.
	Delete Type = 12
	// DeleteReply answers Delete.
	DeleteReply Type = 13
	// Stats asks for the server's process CPU time and what it holds; it
	// carries no key and no value.
	Stats Type = 14
	// StatsReply answers Stats; body is a StatsBody.
	StatsReply Type = 15
	// Credit raises the client's credit (Header.Credit) when no reply
	// would: after a message without a reply, when the client has used
	// every credit it was told of. It answers nothing (ReqID 0).
	Credit Type = 16

	typeEnd = 17
)

var typeNames = [typeEnd]string{
	Hello: "HELLO", HelloReply: "HELLO_REPLY", Set: "SET", SetReply: "SET_REPLY",
	Get: "GET", GetReplyInline: "GET_REPLY_INLINE", GetReplyRdv: "GET_REPLY_RDV",
	GetRelease: "GET_RELEASE", SetRdvReq: "SET_RDV_REQ", SetRdvGrant: "SET_RDV_GRANT",
	SetFin: "SET_FIN", Delete: "DELETE", DeleteReply: "DELETE_REPLY", Stats: "STATS", StatsReply: "STATS_REPLY",
	Credit: "CREDIT",
}

// Valid reports whether t is a known type.
func (t Type) Valid() bool { return t > 0 && t < typeEnd }

func (t Type) String() string {
	if t.Valid() {
		return typeNames[t]
	}
	return "TYPE(" + strconv.Itoa(int(t)) + ")"
}

// IsReply reports whether t travels server to client.
func (t Type) IsReply() bool {
	switch t {
	case HelloReply, SetReply, GetReplyInline, GetReplyRdv, SetRdvGrant, DeleteReply, StatsReply, Credit:
		return true
	}
	return false
}

// Status is the outcome carried by a reply; requests carry OK.
type Status uint8

// Status codes.
const (
	OK            Status = 0
	NotFound      Status = 1
	KeyTooLong    Status = 2
	ValueTooLarge Status = 3
	NoSpace       Status = 4
	BadRequest    Status = 5
	BadToken      Status = 6
	Threshold     Status = 7
	Internal      Status = 8
	AuthRequired  Status = 9
	AuthFailed    Status = 10
	ConnLimit     Status = 11

	// StatusCount is one past the last status: the length of a table
	// indexed by Status.
	StatusCount = 12
)

var statusNames = [StatusCount]string{
	OK: "OK", NotFound: "NOT_FOUND", KeyTooLong: "KEY_TOO_LONG", ValueTooLarge: "VALUE_TOO_LARGE",
	NoSpace: "NO_SPACE", BadRequest: "BAD_REQUEST", BadToken: "BAD_TOKEN", Threshold: "THRESHOLD",
	Internal: "INTERNAL", AuthRequired: "AUTH_REQUIRED", AuthFailed: "AUTH_FAILED",
	ConnLimit: "CONN_LIMIT",
}

// Valid reports whether s is a known status.
func (s Status) Valid() bool { return s < StatusCount }

func (s Status) String() string {
	if s.Valid() {
		return statusNames[s]
	}
	return "STATUS(" + strconv.Itoa(int(s)) + ")"
}
