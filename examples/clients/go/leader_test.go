package main

// leaderConn against in-process gRPC servers on loopback ports: a replica that does not lead
// (UNAVAILABLE with the `taskboard-leader` trailer) sends the call to the leader at once; a
// dead address is skipped; hints are bounded; giving up names every address. Run by
// examples/clients/go/test.sh (ctest -R clients.go.leader_conn).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	taskboardv1 "taskboard.dev/api/taskboard/v1"
)

// replica answers GetRun as the leader, or as a follower naming leader() ("" : none yet).
type replica struct {
	taskboardv1.UnimplementedSchedulerServer
	leads   bool
	leader  func() string
	calls   int32
	server  *grpc.Server
	address string
}

func (r *replica) GetRun(ctx context.Context, request *taskboardv1.GetRunRequest) (*taskboardv1.GetRunResponse, error) {
	atomic.AddInt32(&r.calls, 1)
	if r.leads {
		return &taskboardv1.GetRunResponse{Run: &taskboardv1.Run{RunId: request.GetRunId()}}, nil
	}
	named := ""
	if r.leader != nil {
		named = r.leader()
	}
	if named == "" {
		return nil, status.Error(codes.Unavailable, "no leader elected yet; retry")
	}
	grpc.SetTrailer(ctx, metadata.Pairs(leaderKey, named))
	return nil, status.Errorf(codes.Unavailable, "not the leader; the leader is at %s (epoch 2)", named)
}

func start(t *testing.T, r *replica) *replica {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.server = grpc.NewServer()
	taskboardv1.RegisterSchedulerServer(r.server, r)
	r.address = listener.Addr().String()
	go r.server.Serve(listener)
	t.Cleanup(r.server.Stop)
	return r
}

func deadAddress(t *testing.T) string {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := listener.Addr().String()
	listener.Close()
	return address
}

func dial(address string) (*grpc.ClientConn, error) {
	return grpc.Dial(address, grpc.WithInsecure())
}

func getRun(l *leaderConn) (*taskboardv1.GetRunResponse, error) {
	var response *taskboardv1.GetRunResponse
	err := l.call(context.Background(), func(conn *grpc.ClientConn, trailer *metadata.MD) error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		response, err = taskboardv1.NewSchedulerClient(conn).GetRun(ctx,
			&taskboardv1.GetRunRequest{RunId: "run-1"}, grpc.Trailer(trailer))
		return err
	})
	return response, err
}

func TestNotLeader_FollowsTheTrailerWithoutWaiting(t *testing.T) {
	leader := start(t, &replica{leads: true})
	follower := start(t, &replica{leader: func() string { return leader.address }})
	l, err := newLeaderConn(follower.address+","+leader.address, dial)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.backoffBase = time.Hour
	l.backoffCap = time.Hour
	started := time.Now()
	response, err := getRun(l)
	if err != nil || response.GetRun().GetRunId() != "run-1" {
		t.Fatalf("GetRun: %v %v", response, err)
	}
	if time.Since(started) > 3*time.Second {
		t.Errorf("a redirect backed off: %v", time.Since(started))
	}
	if l.address() != leader.address || atomic.LoadInt32(&follower.calls) != 1 {
		t.Errorf("at %s after %d follower calls", l.address(), follower.calls)
	}
	if _, err := getRun(l); err != nil || atomic.LoadInt32(&follower.calls) != 1 {
		t.Errorf("the next call did not go straight to the leader: %v", err)
	}
}

func TestLeaderNamedOnlyByTheHint_IsLearned(t *testing.T) {
	leader := start(t, &replica{leads: true})
	follower := start(t, &replica{leader: func() string { return leader.address }})
	l, _ := newLeaderConn(follower.address, dial)
	defer l.Close()
	if _, err := getRun(l); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(l.addresses) != fmt.Sprint([]string{follower.address, leader.address}) {
		t.Errorf("addresses %v", l.addresses)
	}
}

func TestDeadAddress_IsSkipped(t *testing.T) {
	leader := start(t, &replica{leads: true})
	l, _ := newLeaderConn(deadAddress(t)+","+leader.address, dial)
	defer l.Close()
	l.backoffBase = time.Millisecond
	if _, err := getRun(l); err != nil {
		t.Fatal(err)
	}
	if l.failedAttempts < 1 {
		t.Errorf("failedAttempts %d", l.failedAttempts)
	}
}

func TestEverNewHints_AreBoundedAndTheCallGivesUpNamingEveryAddress(t *testing.T) {
	var n int32
	liar := start(t, &replica{leader: func() string {
		return fmt.Sprintf("127.0.0.1:%d", 1+atomic.AddInt32(&n, 1)%60000)
	}})
	l, _ := newLeaderConn(liar.address, dial)
	defer l.Close()
	l.giveUp = 1500 * time.Millisecond
	l.backoffBase = time.Millisecond
	l.backoffCap = 20 * time.Millisecond
	_, err := getRun(l)
	if !errors.Is(err, errLeaderNotFound) {
		t.Fatalf("want errLeaderNotFound, got %v", err)
	}
	if !strings.Contains(err.Error(), "within 1.5s; tried "+liar.address+" (") {
		t.Errorf("message %q", err)
	}
	if len(l.addresses) > 1+maxLearned {
		t.Errorf("learned %d addresses from hints", len(l.addresses)-1)
	}
}

func TestOtherErrors_AreNotRetried(t *testing.T) {
	calls := 0
	l, _ := newLeaderConn("127.0.0.1:1", dial)
	err := l.call(context.Background(), func(*grpc.ClientConn, *metadata.MD) error {
		calls++
		return status.Error(codes.NotFound, "no run")
	})
	if status.Code(err) != codes.NotFound || calls != 1 {
		t.Errorf("err %v after %d calls", err, calls)
	}
}

func TestBadAddresses_AreRefused(t *testing.T) {
	for _, addresses := range []string{"", "a:1,,b:2"} {
		if _, err := newLeaderConn(addresses, dial); err == nil {
			t.Errorf("%q accepted", addresses)
		}
	}
}
