package pgbatch

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
)

// A pgconn.Batch encodes its messages into a buffer of its own that
// starts empty and grows by append, about a quarter at a time once past
// a few hundred bytes: a send batch's 10 KB of messages allocated some
// 48 KB on the way, half of every byte the wallet allocated per send, and
// the copies were 3% of its CPU (profile of the shipped binary, 8
// clients). pgconn has no way to hand a Batch a buffer, so newBatch sets
// the Batch's first field, its buffer, to one from batchBufs, which
// releaseBatch takes back once the batch's results are read: ExecBatch
// writes the buffer to the connection before it returns and keeps no
// reference to it.
//
// batchBufOK checks, once, that the field is what this relies on (the
// first field, a []byte named buf, pgx v5.12.0); if a new pgx lays Batch
// out otherwise, batches start empty as before and
// TestBatchBufferLayout fails.
var batchBufOK = func() bool {
	t := reflect.TypeFor[pgconn.Batch]()
	if t.NumField() == 0 {
		return false
	}
	f := t.Field(0)
	return f.Name == "buf" && f.Offset == 0 && f.Type == reflect.TypeFor[[]byte]()
}()

// batchBufs are the buffers of newBatch's batches; maxPooledBatch bounds
// the one kept (a change's write with many payloads may be larger).
var batchBufs = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

const maxPooledBatch = 1 << 20

// newBatch is an empty batch whose buffer comes from batchBufs; give it
// back with releaseBatch once its results are read.
func newBatch() *pgconn.Batch {
	b := &pgconn.Batch{}
	if batchBufOK {
		*batchBuf(b) = (*batchBufs.Get().(*[]byte))[:0]
	}
	return b
}

// releaseBatch puts b's buffer back in batchBufs. b is not used again.
func releaseBatch(b *pgconn.Batch) {
	if !batchBufOK {
		return
	}
	buf := *batchBuf(b)
	*batchBuf(b) = nil
	if cap(buf) > 0 && cap(buf) <= maxPooledBatch {
		buf = buf[:0]
		batchBufs.Put(&buf)
	}
}

// batchBuf is b's buffer field (batchBufOK).
func batchBuf(b *pgconn.Batch) *[]byte { return (*[]byte)(unsafe.Pointer(b)) }
