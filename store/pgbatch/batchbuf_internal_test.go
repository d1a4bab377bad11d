package pgbatch

import "testing"

// TestBatchBufferLayout fails when pgconn.Batch no longer starts with its
// buffer (a pgx upgrade): newBatch then leaves batches to grow their own,
// as slow as before, and this says so.
func TestBatchBufferLayout(t *testing.T) {
	if !batchBufOK {
		t.Fatal("pgconn.Batch's first field is not its []byte buffer: newBatch no longer pools batch buffers (batchbuf.go)")
	}
	b := newBatch()
	b.ExecParams("SELECT 1", nil, nil, nil, nil)
	buf := *batchBuf(b)
	if cap(buf) < 32<<10 || len(buf) == 0 {
		t.Fatalf("a new batch's buffer: len %d cap %d, want the message in a pooled buffer of at least 32 KB", len(buf), cap(buf))
	}
	releaseBatch(b)
	if *batchBuf(b) != nil {
		t.Fatal("a released batch still holds its buffer")
	}
}
