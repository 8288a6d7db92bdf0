package main

// Calls to replicated Taskboard schedulers that follow the leader.
//
// A scheduler replica that does not lead answers every call UNAVAILABLE with the trailer
// `taskboard-leader: HOST:PORT` (docs/operations.md, "Clients and replicated schedulers").
// A leaderConn keeps one connection per address, makes each call on the one it believes
// leads, goes to the named leader at once, and moves past an address that cannot be reached
// after a capped, jittered exponential backoff, until giveUp has passed (every address is
// tried at least once). Hints are bounded like the CLI's (common/failover): at most 8
// addresses learned from them, none over 270 bytes.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

const (
	leaderKey    = "taskboard-leader"
	maxLearned   = 8
	maxHintBytes = 270
)

type leaderConn struct {
	addresses      []string
	given          int
	current        int
	conns          map[string]*grpc.ClientConn
	dial           func(address string) (*grpc.ClientConn, error)
	giveUp         time.Duration
	backoffBase    time.Duration
	backoffCap     time.Duration
	failedAttempts int // over the connection's life, for tests and logs
}

// newLeaderConn takes "host:port[,host:port...]"; dial opens a connection to one address.
func newLeaderConn(addresses string, dial func(address string) (*grpc.ClientConn, error)) (*leaderConn, error) {
	var list []string
	seen := map[string]bool{}
	for _, part := range strings.Split(addresses, ",") {
		address := strings.TrimSpace(part)
		if address == "" {
			return nil, fmt.Errorf("scheduler addresses %q: give host:port[,host:port...]", addresses)
		}
		if !seen[address] {
			seen[address] = true
			list = append(list, address)
		}
	}
	return &leaderConn{
		addresses:   list,
		given:       len(list),
		conns:       map[string]*grpc.ClientConn{},
		dial:        dial,
		giveUp:      11 * time.Second,
		backoffBase: 100 * time.Millisecond,
		backoffCap:  2 * time.Second,
	}, nil
}

func (l *leaderConn) address() string { return l.addresses[l.current] }

func (l *leaderConn) conn() (*grpc.ClientConn, error) {
	address := l.address()
	if conn, ok := l.conns[address]; ok {
		return conn, nil
	}
	conn, err := l.dial(address)
	if err != nil {
		return nil, err
	}
	l.conns[address] = conn
	return conn, nil
}

func (l *leaderConn) Close() {
	for _, conn := range l.conns {
		conn.Close()
	}
	l.conns = map[string]*grpc.ClientConn{}
}

// leaderHint is the leader a NotLeader answer's trailer names, or "".
func leaderHint(trailer metadata.MD) string {
	values := trailer.Get(leaderKey)
	if len(values) == 0 || values[0] == "" || len(values[0]) > maxHintBytes ||
		strings.ContainsAny(values[0], " \t\r\n") {
		return ""
	}
	return values[0]
}

// follow returns the index of leader, learning it when there is room; -1 otherwise.
func (l *leaderConn) follow(leader string) int {
	for i, address := range l.addresses {
		if address == leader {
			return i
		}
	}
	if len(l.addresses) >= l.given+maxLearned {
		return -1
	}
	l.addresses = append(l.addresses, leader)
	return len(l.addresses) - 1
}

// errLeaderNotFound wraps the last answer when no address answered as the leader in time.
var errLeaderNotFound = errors.New("no scheduler answered as the leader")

// call runs attempt once per try on the connection believed to lead. attempt puts the call's
// trailer in *trailer (grpc.Trailer(trailer) for a unary call, stream.Trailer() for a stream).
// It returns attempt's result, any error but UNAVAILABLE at once, and after giveUp an error
// wrapping errLeaderNotFound that names every address tried.
func (l *leaderConn) call(ctx context.Context, attempt func(conn *grpc.ClientConn, trailer *metadata.MD) error) error {
	deadline := time.Now().Add(l.giveUp)
	tried := map[string]string{}
	var order []string
	attempts, failures, redirects := 0, 0, 0
	for {
		address := l.address()
		attempts++
		var trailer metadata.MD
		conn, err := l.conn()
		if err == nil {
			err = attempt(conn, &trailer)
		}
		if err == nil || status.Code(err) != codes.Unavailable {
			return err
		}
		l.failedAttempts++
		if _, ok := tried[address]; !ok {
			order = append(order, address)
		}
		tried[address] = status.Convert(err).Message()
		index := -1
		if leader := leaderHint(trailer); leader != "" {
			index = l.follow(leader)
		}
		var bounced bool
		if index >= 0 {
			l.current = index
			redirects++
			// Replicas pointing at each other (an election) wait like failures.
			bounced = redirects > len(l.addresses)
		} else {
			redirects = 0
			l.current = (l.current + 1) % len(l.addresses)
			bounced = true
		}
		var delay time.Duration
		if bounced {
			ceiling := l.backoffBase << uint(failures)
			if ceiling > l.backoffCap || ceiling <= 0 {
				ceiling = l.backoffCap
			}
			delay = time.Duration(rand.Int63n(int64(ceiling) + 1))
			failures++
		}
		if attempts >= len(l.addresses) && time.Now().Add(delay).After(deadline) {
			answers := make([]string, 0, len(order))
			for _, a := range order {
				answers = append(answers, fmt.Sprintf("%s (%s)", a, tried[a]))
			}
			return fmt.Errorf("%w within %v; tried %s", errLeaderNotFound, l.giveUp, strings.Join(answers, ", "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}
