// Package preparedtx is Canton's PreparedTransaction (interactive
// submission, Ledger API v2): the subset of the protobuf this ledger
// emits (a DamlTransaction of create and exercise nodes with Daml values,
// and its Metadata), encoded and decoded by hand with protowire, and its
// hash in Canton's hashing scheme V2 (hash.go). Pure functions, no state;
// the field numbers are those of interactive_submission_service.proto,
// interactive_submission_data.proto and value.proto.
package preparedtx

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Identifier is a Daml type, template or interface id by package id.
type Identifier struct {
	PackageID, ModuleName, EntityName string
}

// Kind is which case of the Value oneof a value is.
type Kind int

// Value cases, numbered as value.proto's oneof fields.
const (
	KindUnit       Kind = 1
	KindBool       Kind = 2
	KindInt64      Kind = 3
	KindDate       Kind = 4
	KindTimestamp  Kind = 5
	KindNumeric    Kind = 6
	KindParty      Kind = 7
	KindText       Kind = 8
	KindContractID Kind = 9
	KindOptional   Kind = 10
	KindList       Kind = 11
	KindTextMap    Kind = 12
	KindGenMap     Kind = 13
	KindRecord     Kind = 14
	KindVariant    Kind = 15
	KindEnum       Kind = 16
)

// Value is a Daml-LF value.
type Value struct {
	Kind Kind
	Bool bool
	// Int is an Int64, a Date (days) or a Timestamp (microseconds).
	Int int64
	// Str is a Numeric, Party, Text or ContractId, or a variant's or
	// enum's constructor.
	Str string
	// Elem is an Optional's value (nil: None) or a Variant's.
	Elem *Value
	// List are a List's elements.
	List []Value
	// Fields are a Record's fields or a TextMap's entries (Label = key).
	Fields []Field
	// Entries are a GenMap's (key, value) pairs.
	Entries [][2]Value
	// ID is a Record's, Variant's or Enum's type, when known.
	ID *Identifier
}

// Field is a labelled value.
type Field struct {
	Label string
	Value Value
}

// Create is a create node.
type Create struct {
	LfVersion    string
	ContractID   string
	PackageName  string
	TemplateID   Identifier
	Argument     Value
	Signatories  []string
	Stakeholders []string
}

// Exercise is an exercise node.
type Exercise struct {
	LfVersion       string
	ContractID      string
	PackageName     string
	TemplateID      Identifier
	Signatories     []string
	Stakeholders    []string
	ActingParties   []string
	InterfaceID     *Identifier
	ChoiceID        string
	ChosenValue     Value
	Consuming       bool
	Children        []string
	ExerciseResult  *Value
	ChoiceObservers []string
}

// Node is a transaction node: exactly one of Create and Exercise.
type Node struct {
	ID       string
	Create   *Create
	Exercise *Exercise
}

// NodeSeed is a node's 32-byte seed.
type NodeSeed struct {
	NodeID int32
	Seed   []byte
}

// Transaction is a DamlTransaction.
type Transaction struct {
	Version string
	Roots   []string
	Nodes   []Node
	Seeds   []NodeSeed
}

// InputContract is a contract the transaction uses, as its create node.
type InputContract struct {
	Create    Create
	CreatedAt uint64 // microseconds since the epoch
	EventBlob []byte
}

// Metadata is a prepared transaction's Metadata.
type Metadata struct {
	ActAs                  []string
	CommandID              string
	SynchronizerID         string
	MediatorGroup          uint32
	TransactionUUID        string
	PreparationTime        uint64 // microseconds since the epoch
	InputContracts         []InputContract
	MinLedgerEffectiveTime *uint64
	MaxLedgerEffectiveTime *uint64
}

// Prepared is a PreparedTransaction.
type Prepared struct {
	Transaction Transaction
	Metadata    Metadata
}

// MaxDepth bounds the nesting of values and nodes a decoded transaction
// may have, so a hostile one cannot exhaust the stack.
const MaxDepth = 64

// ErrMalformed is a byte string that is not a PreparedTransaction.
var ErrMalformed = errors.New("not a PreparedTransaction")

// --- encoding ---

type enc []byte

func (b *enc) str(num protowire.Number, s string) {
	if s == "" {
		return
	}
	*b = protowire.AppendTag(*b, num, protowire.BytesType)
	*b = protowire.AppendString(*b, s)
}

func (b *enc) strs(num protowire.Number, ss []string) {
	for _, s := range ss {
		*b = protowire.AppendTag(*b, num, protowire.BytesType)
		*b = protowire.AppendString(*b, s)
	}
}

func (b *enc) bytes(num protowire.Number, v []byte) {
	if len(v) == 0 {
		return
	}
	*b = protowire.AppendTag(*b, num, protowire.BytesType)
	*b = protowire.AppendBytes(*b, v)
}

// msg appends a sub-message (always, even when empty: presence matters).
func (b *enc) msg(num protowire.Number, m []byte) {
	*b = protowire.AppendTag(*b, num, protowire.BytesType)
	*b = protowire.AppendBytes(*b, m)
}

func (b *enc) varint(num protowire.Number, v uint64) {
	if v == 0 {
		return
	}
	*b = protowire.AppendTag(*b, num, protowire.VarintType)
	*b = protowire.AppendVarint(*b, v)
}

// begin starts a sub-message of field num in b itself, its length a
// byte to be set by end. Each message built in a buffer of its own and
// copied into its parent's allocated the bytes again at every level of
// nesting: 63 KB for an SDK transfer's prepared transaction.
func (b *enc) begin(num protowire.Number) (start int) {
	*b = protowire.AppendTag(*b, num, protowire.BytesType)
	*b = append(*b, 0)
	return len(*b)
}

// end sets the length of the sub-message begun at start, moving its bytes
// along when the length takes more than the byte begin kept.
func (b *enc) end(start int) {
	size := len(*b) - start
	n := protowire.SizeVarint(uint64(size))
	if n > 1 {
		*b = append(*b, make([]byte, n-1)...)
		copy((*b)[start-1+n:], (*b)[start:start+size])
	}
	protowire.AppendVarint((*b)[:start-1], uint64(size))
}

func (b *enc) identifier(num protowire.Number, id Identifier) {
	s := b.begin(num)
	b.str(1, id.PackageID)
	b.str(2, id.ModuleName)
	b.str(3, id.EntityName)
	b.end(s)
}

// optID is identifier's field when id is set.
func (b *enc) optID(num protowire.Number, id *Identifier) {
	if id != nil {
		b.identifier(num, *id)
	}
}

// value appends v as the Value message of field num.
func (b *enc) value(num protowire.Number, v Value) {
	s := b.begin(num)
	switch v.Kind {
	case KindUnit:
		b.msg(1, nil)
	case KindBool:
		*b = protowire.AppendTag(*b, 2, protowire.VarintType)
		*b = protowire.AppendVarint(*b, protowire.EncodeBool(v.Bool))
	case KindInt64:
		*b = protowire.AppendTag(*b, 3, protowire.VarintType)
		*b = protowire.AppendVarint(*b, protowire.EncodeZigZag(v.Int))
	case KindDate:
		*b = protowire.AppendTag(*b, 4, protowire.VarintType)
		*b = protowire.AppendVarint(*b, uint64(int32(v.Int)))
	case KindTimestamp:
		*b = protowire.AppendTag(*b, 5, protowire.Fixed64Type)
		*b = protowire.AppendFixed64(*b, uint64(v.Int))
	case KindNumeric, KindParty, KindText, KindContractID:
		*b = protowire.AppendTag(*b, protowire.Number(v.Kind), protowire.BytesType)
		*b = protowire.AppendString(*b, v.Str)
	case KindOptional:
		o := b.begin(10)
		if v.Elem != nil {
			b.value(1, *v.Elem)
		}
		b.end(o)
	case KindList:
		l := b.begin(11)
		for _, e := range v.List {
			b.value(1, e)
		}
		b.end(l)
	case KindTextMap:
		m := b.begin(12)
		for _, f := range v.Fields {
			e := b.begin(1)
			b.str(1, f.Label)
			b.value(2, f.Value)
			b.end(e)
		}
		b.end(m)
	case KindGenMap:
		m := b.begin(13)
		for _, kv := range v.Entries {
			e := b.begin(1)
			b.value(1, kv[0])
			b.value(2, kv[1])
			b.end(e)
		}
		b.end(m)
	case KindRecord:
		r := b.begin(14)
		b.optID(1, v.ID)
		for _, f := range v.Fields {
			e := b.begin(2)
			b.str(1, f.Label)
			b.value(2, f.Value)
			b.end(e)
		}
		b.end(r)
	case KindVariant:
		r := b.begin(15)
		b.optID(1, v.ID)
		b.str(2, v.Str)
		if v.Elem != nil {
			b.value(3, *v.Elem)
		}
		b.end(r)
	case KindEnum:
		r := b.begin(16)
		b.optID(1, v.ID)
		b.str(2, v.Str)
		b.end(r)
	}
	b.end(s)
}

func (b *enc) create(num protowire.Number, c *Create) {
	s := b.begin(num)
	b.str(1, c.LfVersion)
	b.str(2, c.ContractID)
	b.str(3, c.PackageName)
	b.identifier(4, c.TemplateID)
	b.value(5, c.Argument)
	b.strs(6, c.Signatories)
	b.strs(7, c.Stakeholders)
	b.end(s)
}

func (b *enc) exercise(num protowire.Number, x *Exercise) {
	s := b.begin(num)
	b.str(1, x.LfVersion)
	b.str(2, x.ContractID)
	b.str(3, x.PackageName)
	b.identifier(4, x.TemplateID)
	b.strs(5, x.Signatories)
	b.strs(6, x.Stakeholders)
	b.strs(7, x.ActingParties)
	b.optID(8, x.InterfaceID)
	b.str(9, x.ChoiceID)
	b.value(10, x.ChosenValue)
	if x.Consuming {
		b.varint(11, 1)
	}
	b.strs(12, x.Children)
	if x.ExerciseResult != nil {
		b.value(13, *x.ExerciseResult)
	}
	b.strs(14, x.ChoiceObservers)
	b.end(s)
}

// Marshal encodes p as the PreparedTransaction protobuf, in one buffer.
func Marshal(p *Prepared) []byte {
	out := make(enc, 0, 4<<10)
	b := &out
	tx := b.begin(1)
	b.str(1, p.Transaction.Version)
	b.strs(2, p.Transaction.Roots)
	for i := range p.Transaction.Nodes {
		n := &p.Transaction.Nodes[i]
		node := b.begin(3)
		b.str(1, n.ID)
		v1 := b.begin(1000)
		switch {
		case n.Create != nil:
			b.create(1, n.Create)
		case n.Exercise != nil:
			b.exercise(3, n.Exercise)
		}
		b.end(v1)
		b.end(node)
	}
	for _, s := range p.Transaction.Seeds {
		seed := b.begin(4)
		b.varint(1, uint64(s.NodeID))
		b.bytes(2, s.Seed)
		b.end(seed)
	}
	b.end(tx)
	m := &p.Metadata
	md := b.begin(2)
	si := b.begin(2)
	b.strs(1, m.ActAs)
	b.str(2, m.CommandID)
	b.end(si)
	b.str(3, m.SynchronizerID)
	b.varint(4, uint64(m.MediatorGroup))
	b.str(5, m.TransactionUUID)
	b.varint(6, m.PreparationTime)
	for i := range m.InputContracts {
		ic := &m.InputContracts[i]
		c := b.begin(7)
		b.create(1, &ic.Create)
		b.varint(1000, ic.CreatedAt)
		b.bytes(1002, ic.EventBlob)
		b.end(c)
	}
	if m.MinLedgerEffectiveTime != nil {
		*b = protowire.AppendTag(*b, 9, protowire.VarintType)
		*b = protowire.AppendVarint(*b, *m.MinLedgerEffectiveTime)
	}
	if m.MaxLedgerEffectiveTime != nil {
		*b = protowire.AppendTag(*b, 10, protowire.VarintType)
		*b = protowire.AppendVarint(*b, *m.MaxLedgerEffectiveTime)
	}
	b.end(md)
	return out
}

// --- decoding ---

// fields walks a message's fields, calling fn with each one's number,
// type and raw value (varint value, or bytes); unknown fields are the
// caller's to skip, as protobuf does.
func fields(b []byte, fn func(num protowire.Number, typ protowire.Type, v uint64, bs []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
		}
		b = b[n:]
		var v uint64
		var bs []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v32 uint32
			v32, n = protowire.ConsumeFixed32(b)
			v = uint64(v32)
		case protowire.BytesType:
			bs, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("%w: field %d: %v", ErrMalformed, num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(num, typ, v, bs); err != nil {
			return err
		}
	}
	return nil
}

// want checks a field's wire type.
func want(num protowire.Number, typ, w protowire.Type) error {
	if typ != w {
		return fmt.Errorf("%w: field %d has wire type %d, want %d", ErrMalformed, num, typ, w)
	}
	return nil
}

func decIdentifier(b []byte) (Identifier, error) {
	var id Identifier
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
		if num < 1 || num > 3 {
			return nil
		}
		if err := want(num, typ, protowire.BytesType); err != nil {
			return err
		}
		switch num {
		case 1:
			id.PackageID = string(bs)
		case 2:
			id.ModuleName = string(bs)
		case 3:
			id.EntityName = string(bs)
		}
		return nil
	})
	return id, err
}

// decLabelled decodes a RecordField or TextMap.Entry: label/key 1, value 2.
func decLabelled(b []byte, depth int) (Field, error) {
	var f Field
	var seen bool
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
		switch num {
		case 1:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			f.Label = string(bs)
		case 2:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			v, err := decValue(bs, depth+1)
			if err != nil {
				return err
			}
			f.Value, seen = v, true
		}
		return nil
	})
	if err == nil && !seen {
		err = fmt.Errorf("%w: a field or entry without a value", ErrMalformed)
	}
	return f, err
}

func decValue(b []byte, depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, fmt.Errorf("%w: values nested deeper than %d", ErrMalformed, MaxDepth)
	}
	var v Value
	err := fields(b, func(num protowire.Number, typ protowire.Type, x uint64, bs []byte) error {
		if num < 1 || num > 16 {
			return nil
		}
		v = Value{Kind: Kind(num)}
		switch Kind(num) {
		case KindBool:
			v.Bool = x != 0
			return want(num, typ, protowire.VarintType)
		case KindInt64:
			v.Int = protowire.DecodeZigZag(x)
			return want(num, typ, protowire.VarintType)
		case KindDate:
			v.Int = int64(int32(x))
			return want(num, typ, protowire.VarintType)
		case KindTimestamp:
			v.Int = int64(x)
			return want(num, typ, protowire.Fixed64Type)
		}
		if err := want(num, typ, protowire.BytesType); err != nil {
			return err
		}
		switch Kind(num) {
		case KindUnit:
		case KindNumeric, KindParty, KindText, KindContractID:
			v.Str = string(bs)
		case KindOptional:
			return fields(bs, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
				if num != 1 {
					return nil
				}
				if err := want(num, typ, protowire.BytesType); err != nil {
					return err
				}
				e, err := decValue(bs, depth+1)
				v.Elem = &e
				return err
			})
		case KindList:
			return fields(bs, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
				if num != 1 {
					return nil
				}
				if err := want(num, typ, protowire.BytesType); err != nil {
					return err
				}
				e, err := decValue(bs, depth+1)
				v.List = append(v.List, e)
				return err
			})
		case KindTextMap:
			return fields(bs, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
				if num != 1 {
					return nil
				}
				if err := want(num, typ, protowire.BytesType); err != nil {
					return err
				}
				f, err := decLabelled(bs, depth)
				v.Fields = append(v.Fields, f)
				return err
			})
		case KindGenMap:
			return fields(bs, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
				if num != 1 {
					return nil
				}
				if err := want(num, typ, protowire.BytesType); err != nil {
					return err
				}
				var kv [2]Value
				var n int
				err := fields(bs, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
					if num != 1 && num != 2 {
						return nil
					}
					if err := want(num, typ, protowire.BytesType); err != nil {
						return err
					}
					e, err := decValue(bs, depth+1)
					kv[num-1] = e
					n++
					return err
				})
				if err == nil && n != 2 {
					err = fmt.Errorf("%w: a map entry needs a key and a value", ErrMalformed)
				}
				v.Entries = append(v.Entries, kv)
				return err
			})
		case KindRecord, KindVariant, KindEnum:
			kind := Kind(num)
			return fields(bs, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
				if num < 1 || num > 3 {
					return nil
				}
				if err := want(num, typ, protowire.BytesType); err != nil {
					return err
				}
				switch {
				case num == 1:
					id, err := decIdentifier(bs)
					v.ID = &id
					return err
				case num == 2 && kind == KindRecord:
					f, err := decLabelled(bs, depth)
					v.Fields = append(v.Fields, f)
					return err
				case num == 2:
					v.Str = string(bs)
				case num == 3 && kind == KindVariant:
					e, err := decValue(bs, depth+1)
					v.Elem = &e
					return err
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return Value{}, err
	}
	if v.Kind == 0 {
		return Value{}, fmt.Errorf("%w: a value without a case", ErrMalformed)
	}
	if v.Kind == KindVariant && v.Elem == nil {
		return Value{}, fmt.Errorf("%w: a variant without a value", ErrMalformed)
	}
	return v, nil
}

func decCreate(b []byte) (Create, error) {
	var c Create
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
		if num < 1 || num > 7 {
			return nil
		}
		if err := want(num, typ, protowire.BytesType); err != nil {
			return err
		}
		var err error
		switch num {
		case 1:
			c.LfVersion = string(bs)
		case 2:
			c.ContractID = string(bs)
		case 3:
			c.PackageName = string(bs)
		case 4:
			c.TemplateID, err = decIdentifier(bs)
		case 5:
			c.Argument, err = decValue(bs, 0)
		case 6:
			c.Signatories = append(c.Signatories, string(bs))
		case 7:
			c.Stakeholders = append(c.Stakeholders, string(bs))
		}
		return err
	})
	if err == nil && c.Argument.Kind == 0 {
		err = fmt.Errorf("%w: a create node without an argument", ErrMalformed)
	}
	return c, err
}

func decExercise(b []byte) (Exercise, error) {
	var x Exercise
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, bs []byte) error {
		if num < 1 || num > 14 {
			return nil
		}
		if num == 11 {
			x.Consuming = v != 0
			return want(num, typ, protowire.VarintType)
		}
		if err := want(num, typ, protowire.BytesType); err != nil {
			return err
		}
		var err error
		switch num {
		case 1:
			x.LfVersion = string(bs)
		case 2:
			x.ContractID = string(bs)
		case 3:
			x.PackageName = string(bs)
		case 4:
			x.TemplateID, err = decIdentifier(bs)
		case 5:
			x.Signatories = append(x.Signatories, string(bs))
		case 6:
			x.Stakeholders = append(x.Stakeholders, string(bs))
		case 7:
			x.ActingParties = append(x.ActingParties, string(bs))
		case 8:
			var id Identifier
			id, err = decIdentifier(bs)
			x.InterfaceID = &id
		case 9:
			x.ChoiceID = string(bs)
		case 10:
			x.ChosenValue, err = decValue(bs, 0)
		case 12:
			x.Children = append(x.Children, string(bs))
		case 13:
			var r Value
			r, err = decValue(bs, 0)
			x.ExerciseResult = &r
		case 14:
			x.ChoiceObservers = append(x.ChoiceObservers, string(bs))
		}
		return err
	})
	if err == nil && x.ChosenValue.Kind == 0 {
		err = fmt.Errorf("%w: an exercise node without a chosen value", ErrMalformed)
	}
	return x, err
}

func decNode(b []byte) (Node, error) {
	var n Node
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
		switch num {
		case 1:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			n.ID = string(bs)
		case 1000:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			return fields(bs, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
				if err := want(num, typ, protowire.BytesType); err != nil {
					return err
				}
				switch num {
				case 1:
					c, err := decCreate(bs)
					n.Create, n.Exercise = &c, nil
					return err
				case 3:
					x, err := decExercise(bs)
					n.Exercise, n.Create = &x, nil
					return err
				case 2, 4, 5:
					return fmt.Errorf("%w: node %q is a fetch, rollback or query, which this participant does not prepare", ErrMalformed, n.ID)
				}
				return nil
			})
		}
		return nil
	})
	if err == nil && n.Create == nil && n.Exercise == nil {
		err = fmt.Errorf("%w: node %q has no v1 create or exercise", ErrMalformed, n.ID)
	}
	return n, err
}

func decTransaction(b []byte) (Transaction, error) {
	var t Transaction
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
		if num < 1 || num > 4 {
			return nil
		}
		if err := want(num, typ, protowire.BytesType); err != nil {
			return err
		}
		switch num {
		case 1:
			t.Version = string(bs)
		case 2:
			t.Roots = append(t.Roots, string(bs))
		case 3:
			n, err := decNode(bs)
			t.Nodes = append(t.Nodes, n)
			return err
		case 4:
			var s NodeSeed
			err := fields(bs, func(num protowire.Number, typ protowire.Type, v uint64, bs []byte) error {
				switch num {
				case 1:
					s.NodeID = int32(v)
					return want(num, typ, protowire.VarintType)
				case 2:
					s.Seed = append([]byte(nil), bs...)
					return want(num, typ, protowire.BytesType)
				}
				return nil
			})
			t.Seeds = append(t.Seeds, s)
			return err
		}
		return nil
	})
	return t, err
}

func decMetadata(b []byte) (Metadata, error) {
	var m Metadata
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, bs []byte) error {
		switch num {
		case 2:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			return fields(bs, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
				if num != 1 && num != 2 {
					return nil
				}
				if err := want(num, typ, protowire.BytesType); err != nil {
					return err
				}
				if num == 1 {
					m.ActAs = append(m.ActAs, string(bs))
				} else {
					m.CommandID = string(bs)
				}
				return nil
			})
		case 3:
			m.SynchronizerID = string(bs)
			return want(num, typ, protowire.BytesType)
		case 4:
			m.MediatorGroup = uint32(v)
			return want(num, typ, protowire.VarintType)
		case 5:
			m.TransactionUUID = string(bs)
			return want(num, typ, protowire.BytesType)
		case 6:
			m.PreparationTime = v
			return want(num, typ, protowire.VarintType)
		case 7:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			var ic InputContract
			var seen bool
			err := fields(bs, func(num protowire.Number, typ protowire.Type, v uint64, bs []byte) error {
				switch num {
				case 1:
					if err := want(num, typ, protowire.BytesType); err != nil {
						return err
					}
					c, err := decCreate(bs)
					ic.Create, seen = c, true
					return err
				case 1000:
					ic.CreatedAt = v
					return want(num, typ, protowire.VarintType)
				case 1002:
					ic.EventBlob = append([]byte(nil), bs...)
					return want(num, typ, protowire.BytesType)
				}
				return nil
			})
			if err == nil && !seen {
				err = fmt.Errorf("%w: an input contract without its v1 create node", ErrMalformed)
			}
			m.InputContracts = append(m.InputContracts, ic)
			return err
		case 9, 10:
			if err := want(num, typ, protowire.VarintType); err != nil {
				return err
			}
			t := v
			if num == 9 {
				m.MinLedgerEffectiveTime = &t
			} else {
				m.MaxLedgerEffectiveTime = &t
			}
		}
		return nil
	})
	return m, err
}

// Unmarshal decodes a PreparedTransaction; anything that is not one (or
// holds nodes this participant does not prepare) is ErrMalformed.
func Unmarshal(b []byte) (*Prepared, error) {
	var p Prepared
	var tx, md bool
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, bs []byte) error {
		var err error
		switch num {
		case 1:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			p.Transaction, err = decTransaction(bs)
			tx = true
		case 2:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			p.Metadata, err = decMetadata(bs)
			md = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !tx || !md {
		return nil, fmt.Errorf("%w: the transaction and its metadata are required", ErrMalformed)
	}
	return &p, nil
}
