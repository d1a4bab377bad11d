package ledgerapi

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/asyncsub"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/impersonation"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/web"
	"github.com/google/uuid"
)

// Durable asynchronous submissions (Config.DurableAsync, issue 38): an
// accepted submission is kept (asyncsub.Service.Keep) before the client is
// answered {}, run as before, and forgotten once its outcome is stored.
// A sweep runs the kept submissions nobody is running: this process's
// whose run failed for want of the database, and those of a process that
// died (taken over once it has not been seen for asyncStale), after a
// restart too. Before running one it checks that the submission has no
// completion yet (asyncsub.Service.Ran); the command's deduplication key
// keeps its change from applying twice in any case.

const (
	// asyncSweep is how often kept submissions are looked for, and this
	// process says it is alive.
	asyncSweep = 3 * time.Second
	// asyncStale is how long a process may go unseen before its kept
	// submissions are taken over.
	asyncStale = 10 * time.Second
	// asyncTries bounds the runs of one kept submission that fail for
	// want of the database; then its rejection is recorded.
	asyncTries = 10
	// forgetBatch bounds the kept submissions forgotten in one statement.
	forgetBatch = 256
)

// durable is the state of durable asynchronous submissions.
type durable struct {
	owner string
	// mu guards running (kept submissions this process runs, or whose
	// forgetting is queued) and tries (failed runs by id).
	mu      sync.Mutex
	running map[int64]bool
	tries   map[int64]int
	forget  chan int64
	keeps   chan keepRequest
	stop    chan struct{}
	stopped sync.WaitGroup
}

// startDurable starts the forgetter and the sweep.
func (s *Server) startDurable() {
	s.dur = &durable{owner: uuid.NewString(), running: map[int64]bool{}, tries: map[int64]int{},
		forget: make(chan int64, 4*maxAsync), keeps: make(chan keepRequest, maxAsync), stop: make(chan struct{})}
	s.dur.stopped.Add(3)
	go s.keeper()
	go s.forgetter()
	go s.sweeper()
}

// stopDurable stops the sweep and forgets what is queued.
func (s *Server) stopDurable() {
	if s.dur == nil {
		return
	}
	select {
	case <-s.dur.stop:
	default:
		close(s.dur.stop)
	}
	s.dur.stopped.Wait()
}

// keepRequest is a submission to keep and where its id goes.
type keepRequest struct {
	sub  asyncsub.Submission
	done chan keepResult
}

type keepResult struct {
	id  int64
	err error
}

// keep stores an accepted submission before it is answered: the keeper
// stores the ones that arrive together in one statement and commit.
func (s *Server) keep(r *http.Request, c *canton.Caller, cmds *jsCommands) (int64, error) {
	body, err := json.Marshal(cmds)
	if err != nil {
		return 0, err
	}
	actAsClaim := ""
	if c.Actor != "" && len(c.ActAs) == 1 {
		actAsClaim = string(c.ActAs[0])
	}
	req := keepRequest{sub: asyncsub.Submission{
		Owner: s.dur.owner, User: c.User.Name, ActAsClaim: actAsClaim, RequestID: web.RequestIDFrom(r.Context()),
		CommandID: cmds.CommandID, Body: body,
	}, done: make(chan keepResult, 1)}
	select {
	case s.dur.keeps <- req:
	case <-s.dur.stop:
		return 0, fault.ErrUnavailable
	}
	res := <-req.done // kept or not, whatever the client does meanwhile
	if res.err != nil {
		return 0, res.err
	}
	s.dur.mu.Lock()
	s.dur.running[res.id] = true
	s.dur.mu.Unlock()
	return res.id, nil
}

// keeper keeps submissions, those waiting together in one commit.
func (s *Server) keeper() {
	d := s.dur
	defer d.stopped.Done()
	for {
		var batch []keepRequest
		select {
		case k := <-d.keeps:
			batch = append(batch, k)
		case <-d.stop:
			return
		}
	more:
		for len(batch) < maxAsync {
			select {
			case k := <-d.keeps:
				batch = append(batch, k)
			default:
				break more
			}
		}
		subs := make([]asyncsub.Submission, len(batch))
		for i, k := range batch {
			subs[i] = k.sub
		}
		ids, err := s.w.Async.Keep(context.Background(), subs...)
		for i, k := range batch {
			if err != nil {
				k.done <- keepResult{err: err}
			} else {
				k.done <- keepResult{id: ids[i]}
			}
		}
	}
}

// settle ends a kept submission's run with err: forgotten unless the run
// failed for want of the database (then the sweep runs it again).
func (s *Server) settle(id int64, err error) {
	d := s.dur
	if retryable(err) {
		d.mu.Lock()
		d.tries[id]++
		retry := d.tries[id] < asyncTries
		delete(d.running, id)
		d.mu.Unlock()
		if retry {
			return
		}
	}
	select {
	case d.forget <- id:
	case <-d.stop:
	}
}

// forgetter forgets settled submissions, many in one statement.
func (s *Server) forgetter() {
	d := s.dur
	defer d.stopped.Done()
	for {
		var ids []int64
		select {
		case id := <-d.forget:
			ids = append(ids, id)
		case <-d.stop:
			return
		}
	more:
		for len(ids) < forgetBatch {
			select {
			case id := <-d.forget:
				ids = append(ids, id)
			default:
				break more
			}
		}
		err := s.w.Async.Forget(context.Background(), ids)
		if err != nil {
			s.log.Error("ledger api: forgetting asynchronous submissions failed; the sweep will", "err", err)
		}
		d.mu.Lock()
		for _, id := range ids {
			delete(d.running, id)
			if err == nil {
				delete(d.tries, id)
			}
		}
		d.mu.Unlock()
	}
}

// sweeper says this process is alive and runs the kept submissions
// nobody runs, at once and every asyncSweep.
func (s *Server) sweeper() {
	d := s.dur
	defer d.stopped.Done()
	t := time.NewTicker(asyncSweep)
	defer t.Stop()
	for {
		s.sweep()
		select {
		case <-t.C:
		case <-d.stop:
			return
		}
	}
}

// sweep is one round of sweeper.
func (s *Server) sweep() {
	ctx := context.Background()
	if n, err := s.w.Async.SeeOwner(ctx, s.dur.owner, asyncStale); err != nil {
		s.log.Warn("ledger api: asynchronous submissions' sweep", "err", err)
		return
	} else if n > 0 {
		s.log.Info("ledger api: took over the asynchronous submissions of a stopped process", "submissions", n)
	}
	kept, err := s.w.Async.Of(ctx, s.dur.owner, 4*maxAsync)
	if err != nil {
		s.log.Warn("ledger api: asynchronous submissions' sweep", "err", err)
		return
	}
	for _, k := range kept {
		s.dur.mu.Lock()
		busy := s.dur.running[k.ID]
		s.dur.running[k.ID] = true
		s.dur.mu.Unlock()
		if busy {
			continue
		}
		select {
		case s.async <- struct{}{}:
		case <-s.dur.stop:
			return
		}
		done, err := s.l.Admit()
		if err != nil { // a development network being restored: next time
			<-s.async
			s.dur.mu.Lock()
			delete(s.dur.running, k.ID)
			s.dur.mu.Unlock()
			return
		}
		s.running.Add(1)
		go func() {
			defer func() { <-s.async; done(); s.running.Done() }()
			s.resume(k)
		}()
	}
}

// resume runs kept submission k again as its user, unless it ran.
func (s *Server) resume(k asyncsub.Submission) {
	ctx, cancel := context.WithTimeout(web.WithRequestID(context.Background(), k.RequestID), asyncTimeout)
	defer cancel()
	r, _ := http.NewRequestWithContext(ctx, http.MethodPost, "/v2/commands/async/submit", nil)
	var cmds jsCommands
	if err := json.Unmarshal(k.Body, &cmds); err != nil {
		s.log.Error("ledger api: a kept asynchronous submission does not decode; dropped", "command_id", k.CommandID, "err", err)
		s.settle(k.ID, nil)
		return
	}
	sb, err := s.recheck(r, k, &cmds)
	if err != nil {
		if sb != nil {
			s.recordRejection(r, sb, err)
		}
		s.settle(k.ID, err)
		return
	}
	if ran, err := s.w.Async.Ran(ctx, k, sb.actAs); err != nil || ran {
		s.settle(k.ID, err) // an error keeps it for the next sweep
		return
	}
	if sb.completion.SubmissionID == "" && k.RequestID != "" {
		r = r.WithContext(web.WithRequestID(ctx, k.RequestID))
	}
	_, err = s.execute(r, sb)
	if retryable(err) {
		s.log.ErrorContext(ctx, "ledger api: asynchronous submission failed", "command_id", sb.commandID, "err", err)
	}
	s.settle(k.ID, err)
}

// recheck checks kept submission k again as its user now (its rights
// may have changed). The submission it returns with an error, if any,
// records the rejection.
func (s *Server) recheck(r *http.Request, k asyncsub.Submission, cmds *jsCommands) (*submission, error) {
	rejected := func(err error) (*submission, error) {
		sb := &submission{commandID: k.CommandID, user: k.User}
		for _, a := range cmds.ActAs {
			if p, perr := coin.ParsePartyID(a); perr == nil {
				sb.actAs = append(sb.actAs, p)
			}
		}
		sb.completion = commands.Completion{UserID: s.userKey(k.User), CommandID: k.CommandID, SubmissionID: cmds.SubmissionID, ActAs: sb.actAs}
		if len(sb.actAs) == 0 {
			return nil, err
		}
		return sb, err
	}
	c, err := s.callerFor(r.Context(), web.Claims{Subject: k.User, ActAs: k.ActAsClaim})
	if err != nil {
		return rejected(err)
	}
	if c.Actor != "" {
		*r = *r.WithContext(impersonation.ActingAs(r.Context(), c.Actor))
	}
	if err := s.refuseUnsigned(r, c, cmds.ActAs); err != nil {
		return rejected(err)
	}
	sb, err := s.check(c, cmds)
	if err != nil {
		return rejected(err)
	}
	return sb, nil
}

// retryable reports whether a run that failed with err may succeed
// later: the database was missing, not the submission wrong.
func retryable(err error) bool {
	if err == nil {
		return false
	}
	code := canton.Of(err).Code
	return code == canton.CodeInternal || code == canton.CodeUnavailable
}
