package preparedtx

// The hash an external party signs: Canton's hashing scheme V2
// (community/base/.../protocol/hash, readable in the interactive
// submission example's daml_transaction_hashing_v2.py). Everything is
// big-endian; a string is its length (int32) and UTF-8 bytes; a contract
// id is its hex-decoded bytes, length-prefixed; an optional is 00 or 01
// and the value; a list is its count (int32) and the items.
//
//	final    = SHA-256(purpose ‖ 02 ‖ txHash ‖ metaHash)
//	txHash   = SHA-256(purpose ‖ str(version) ‖ list(root node hashes))
//	nodeHash = SHA-256(01 ‖ node encoding)             (no purpose)
//	metaHash = SHA-256(purpose ‖ 01 ‖ metadata encoding)
//
// purpose is int32 48, Canton's HashPurpose PreparedSubmission.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// SchemeV2 is the scheme's version byte and HashingSchemeVersion number.
const SchemeV2 = 2

var purpose = []byte{0, 0, 0, 48}

// ErrUnhashable is a transaction whose hash cannot be computed (a root or
// child that names no node, an exercise without its seed, a contract id
// that is not hex).
var ErrUnhashable = errors.New("the transaction cannot be hashed")

type hb []byte

// hbs are the buffers node and value encodings are built in, then hashed:
// grown by append from empty, an SDK transfer's encodings (the input
// contracts' payloads among them) allocated some 32 KB each time.
var hbs = sync.Pool{New: func() any { b := make(hb, 0, 8<<10); return &b }}

// maxPooledHB bounds a buffer kept in hbs.
const maxPooledHB = 1 << 20

// sumOf is SHA-256 of what fill appends to an empty pooled buffer.
func sumOf(fill func(b *hb) error) ([]byte, error) {
	b := hbs.Get().(*hb)
	*b = (*b)[:0]
	defer func() {
		if cap(*b) <= maxPooledHB {
			hbs.Put(b)
		}
	}()
	if err := fill(b); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(*b)
	return sum[:], nil
}

func (b *hb) byte1(v byte) { *b = append(*b, v) }
func (b *hb) i32(v int32)  { *b = binary.BigEndian.AppendUint32(*b, uint32(v)) }
func (b *hb) i64(v int64)  { *b = binary.BigEndian.AppendUint64(*b, uint64(v)) }
func (b *hb) raw(v []byte) { *b = append(*b, v...) }
func (b *hb) str(s string) { b.i32(int32(len(s))); *b = append(*b, s...) }
func (b *hb) bool1(v bool) {
	if v {
		b.byte1(1)
	} else {
		b.byte1(0)
	}
}
func (b *hb) strs(ss []string) {
	b.i32(int32(len(ss)))
	for _, s := range ss {
		b.str(s)
	}
}

func (b *hb) cid(s string) error {
	raw, err := hex.DecodeString(s)
	if err != nil {
		return fmt.Errorf("%w: contract id %q is not hex", ErrUnhashable, s)
	}
	b.i32(int32(len(raw)))
	b.raw(raw)
	return nil
}

func (b *hb) identifier(id Identifier) {
	b.str(id.PackageID)
	b.dotted(id.ModuleName)
	b.dotted(id.EntityName)
}

// dotted is strs of name's dot-separated parts, without splitting it.
func (b *hb) dotted(name string) {
	b.i32(int32(strings.Count(name, ".") + 1))
	for {
		part, rest, found := strings.Cut(name, ".")
		b.str(part)
		if !found {
			return
		}
		name = rest
	}
}

func (b *hb) optID(id *Identifier) {
	if id == nil {
		b.byte1(0)
		return
	}
	b.byte1(1)
	b.identifier(*id)
}

// value appends a value's encoding (ValueHashTest's tags 00 to 0f).
func (b *hb) value(v Value) error {
	switch v.Kind {
	case KindUnit:
		b.byte1(0x00)
	case KindBool:
		b.byte1(0x01)
		b.bool1(v.Bool)
	case KindInt64:
		b.byte1(0x02)
		b.i64(v.Int)
	case KindNumeric:
		b.byte1(0x03)
		b.str(v.Str)
	case KindTimestamp:
		b.byte1(0x04)
		b.i64(v.Int)
	case KindDate:
		b.byte1(0x05)
		b.i32(int32(v.Int))
	case KindParty:
		b.byte1(0x06)
		b.str(v.Str)
	case KindText:
		b.byte1(0x07)
		b.str(v.Str)
	case KindContractID:
		b.byte1(0x08)
		return b.cid(v.Str)
	case KindOptional:
		b.byte1(0x09)
		if v.Elem == nil {
			b.byte1(0)
			return nil
		}
		b.byte1(1)
		return b.value(*v.Elem)
	case KindList:
		b.byte1(0x0a)
		b.i32(int32(len(v.List)))
		for _, e := range v.List {
			if err := b.value(e); err != nil {
				return err
			}
		}
	case KindTextMap:
		b.byte1(0x0b)
		b.i32(int32(len(v.Fields)))
		for _, f := range v.Fields {
			b.str(f.Label)
			if err := b.value(f.Value); err != nil {
				return err
			}
		}
	case KindRecord:
		b.byte1(0x0c)
		b.optID(v.ID)
		b.i32(int32(len(v.Fields)))
		for _, f := range v.Fields {
			// A proto3 label is always present (maybe empty): Some.
			b.byte1(1)
			b.str(f.Label)
			if err := b.value(f.Value); err != nil {
				return err
			}
		}
	case KindVariant:
		b.byte1(0x0d)
		b.optID(v.ID)
		b.str(v.Str)
		if v.Elem == nil {
			return fmt.Errorf("%w: variant %s without a value", ErrUnhashable, v.Str)
		}
		return b.value(*v.Elem)
	case KindEnum:
		b.byte1(0x0e)
		b.optID(v.ID)
		b.str(v.Str)
	case KindGenMap:
		b.byte1(0x0f)
		b.i32(int32(len(v.Entries)))
		for _, kv := range v.Entries {
			if err := b.value(kv[0]); err != nil {
				return err
			}
			if err := b.value(kv[1]); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: a value of unknown kind %d", ErrUnhashable, v.Kind)
	}
	return nil
}

// ValueHash is SHA-256 of a value's encoding, as Canton's value tests
// state them.
func ValueHash(v Value) ([]byte, error) {
	return sumOf(func(b *hb) error { return b.value(v) })
}

// hasher hashes the nodes of one transaction.
type hasher struct {
	nodes map[string]*Node
	seeds map[string][]byte
	depth int
}

func (h *hasher) createEncoding(b *hb, c *Create, seed []byte) error {
	b.byte1(0x01) // node encoding version
	b.str(c.LfVersion)
	b.byte1(0x00) // create
	if seed == nil {
		b.byte1(0)
	} else {
		b.byte1(1)
		b.raw(seed)
	}
	if err := b.cid(c.ContractID); err != nil {
		return err
	}
	b.str(c.PackageName)
	b.identifier(c.TemplateID)
	if err := b.value(c.Argument); err != nil {
		return err
	}
	b.strs(c.Signatories)
	b.strs(c.Stakeholders)
	return nil
}

func (h *hasher) nodeHash(id string) ([]byte, error) {
	n, ok := h.nodes[id]
	if !ok {
		return nil, fmt.Errorf("%w: node %q is named but not in the transaction", ErrUnhashable, id)
	}
	if h.depth++; h.depth > MaxDepth {
		return nil, fmt.Errorf("%w: nodes nested deeper than %d", ErrUnhashable, MaxDepth)
	}
	defer func() { h.depth-- }()
	return sumOf(func(b *hb) error {
		switch {
		case n.Create != nil:
			return h.createEncoding(b, n.Create, h.seeds[id])
		case n.Exercise != nil:
			return h.exerciseEncoding(b, id, n.Exercise)
		}
		return fmt.Errorf("%w: node %q is neither a create nor an exercise", ErrUnhashable, id)
	})
}

func (h *hasher) exerciseEncoding(b *hb, id string, x *Exercise) error {
	seed, ok := h.seeds[id]
	if !ok {
		return fmt.Errorf("%w: exercise node %q has no seed", ErrUnhashable, id)
	}
	b.byte1(0x01)
	b.str(x.LfVersion)
	b.byte1(0x01) // exercise
	b.raw(seed)
	if err := b.cid(x.ContractID); err != nil {
		return err
	}
	b.str(x.PackageName)
	b.identifier(x.TemplateID)
	b.strs(x.Signatories)
	b.strs(x.Stakeholders)
	b.strs(x.ActingParties)
	b.optID(x.InterfaceID)
	b.str(x.ChoiceID)
	if err := b.value(x.ChosenValue); err != nil {
		return err
	}
	b.bool1(x.Consuming)
	if x.ExerciseResult == nil {
		b.byte1(0)
	} else {
		b.byte1(1)
		if err := b.value(*x.ExerciseResult); err != nil {
			return err
		}
	}
	b.strs(x.ChoiceObservers)
	b.i32(int32(len(x.Children)))
	for _, c := range x.Children {
		ch, err := h.nodeHash(c)
		if err != nil {
			return err
		}
		b.raw(ch)
	}
	return nil
}

// TransactionHash is the V2 hash of the transaction part.
func TransactionHash(t *Transaction) ([]byte, error) {
	h := &hasher{nodes: map[string]*Node{}, seeds: map[string][]byte{}}
	for i := range t.Nodes {
		h.nodes[t.Nodes[i].ID] = &t.Nodes[i]
	}
	for _, s := range t.Seeds {
		if len(s.Seed) != 32 {
			return nil, fmt.Errorf("%w: the seed of node %d has %d bytes, want 32", ErrUnhashable, s.NodeID, len(s.Seed))
		}
		h.seeds[strconv.Itoa(int(s.NodeID))] = s.Seed
	}
	b := hb(append([]byte(nil), purpose...))
	b.str(t.Version)
	b.i32(int32(len(t.Roots)))
	for _, r := range t.Roots {
		nh, err := h.nodeHash(r)
		if err != nil {
			return nil, err
		}
		b.raw(nh)
	}
	sum := sha256.Sum256(b)
	return sum[:], nil
}

// MetadataHash is the V2 hash of the metadata part.
func MetadataHash(m *Metadata) ([]byte, error) {
	b := hb(append([]byte(nil), purpose...))
	b.byte1(0x01) // metadata encoding version
	b.strs(m.ActAs)
	b.str(m.CommandID)
	b.str(m.TransactionUUID)
	b.i32(int32(m.MediatorGroup))
	b.str(m.SynchronizerID)
	for _, t := range []*uint64{m.MinLedgerEffectiveTime, m.MaxLedgerEffectiveTime} {
		if t == nil {
			b.byte1(0)
		} else {
			b.byte1(1)
			b.i64(int64(*t))
		}
	}
	b.i64(int64(m.PreparationTime))
	b.i32(int32(len(m.InputContracts)))
	h := &hasher{}
	for i := range m.InputContracts {
		ic := &m.InputContracts[i]
		b.i64(int64(ic.CreatedAt))
		sum, err := sumOf(func(e *hb) error { return h.createEncoding(e, &ic.Create, nil) })
		if err != nil {
			return nil, err
		}
		b.raw(sum)
	}
	sum := sha256.Sum256(b)
	return sum[:], nil
}

// Hash is the V2 hash of a prepared transaction: the 32 bytes its
// submitters sign.
func Hash(p *Prepared) ([]byte, error) {
	hash, _, err := Hashes(p)
	return hash, err
}

// Hashes is Hash with the transaction's own hash (TransactionHash), for
// a caller that needs both.
func Hashes(p *Prepared) (hash, transaction []byte, err error) {
	th, err := TransactionHash(&p.Transaction)
	if err != nil {
		return nil, nil, err
	}
	mh, err := MetadataHash(&p.Metadata)
	if err != nil {
		return nil, nil, err
	}
	return HashOf(th, mh), th, nil
}

// HashOf is the V2 hash given the transaction's and the metadata's
// hashes (TransactionHash, MetadataHash).
func HashOf(transaction, metadata []byte) []byte {
	b := hb(append([]byte(nil), purpose...))
	b.byte1(SchemeV2)
	b.raw(transaction)
	b.raw(metadata)
	sum := sha256.Sum256(b)
	return sum[:]
}
