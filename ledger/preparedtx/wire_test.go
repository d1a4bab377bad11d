package preparedtx

import (
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The messages of interactive_submission_service.proto,
// interactive_submission_data.proto and value.proto, transcribed field by
// field (number, type, cardinality) as descriptors, so the protobuf
// library itself (dynamicpb) checks the hand-written wire format.

type fieldSpec struct {
	name     string
	num      int32
	typ      descriptorpb.FieldDescriptorProto_Type
	msg      string // message type, for TYPE_MESSAGE
	repeated bool
	oneof    string // oneof name; "_name" for a proto3 optional
}

const (
	tString  = descriptorpb.FieldDescriptorProto_TYPE_STRING
	tBytes   = descriptorpb.FieldDescriptorProto_TYPE_BYTES
	tBool    = descriptorpb.FieldDescriptorProto_TYPE_BOOL
	tMsg     = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
	tSint64  = descriptorpb.FieldDescriptorProto_TYPE_SINT64
	tInt32   = descriptorpb.FieldDescriptorProto_TYPE_INT32
	tUint32  = descriptorpb.FieldDescriptorProto_TYPE_UINT32
	tUint64  = descriptorpb.FieldDescriptorProto_TYPE_UINT64
	tSfixed  = descriptorpb.FieldDescriptorProto_TYPE_SFIXED64
	tpackage = "ccwallet.test"
)

func s(name string, num int32) fieldSpec { return fieldSpec{name: name, num: num, typ: tString} }
func rs(name string, num int32) fieldSpec {
	return fieldSpec{name: name, num: num, typ: tString, repeated: true}
}
func m(name string, num int32, msg string) fieldSpec {
	return fieldSpec{name: name, num: num, typ: tMsg, msg: msg}
}
func rm(name string, num int32, msg string) fieldSpec {
	return fieldSpec{name: name, num: num, typ: tMsg, msg: msg, repeated: true}
}
func o(f fieldSpec, oneof string) fieldSpec { f.oneof = oneof; return f }

var wireMessages = []struct {
	name   string
	fields []fieldSpec
}{
	{"Identifier", []fieldSpec{s("package_id", 1), s("module_name", 2), s("entity_name", 3)}},
	{"Empty", nil},
	{"Value", []fieldSpec{
		o(m("unit", 1, "Empty"), "sum"), o(fieldSpec{name: "bool", num: 2, typ: tBool}, "sum"), o(fieldSpec{name: "int64", num: 3, typ: tSint64}, "sum"),
		o(fieldSpec{name: "date", num: 4, typ: tInt32}, "sum"), o(fieldSpec{name: "timestamp", num: 5, typ: tSfixed}, "sum"),
		o(s("numeric", 6), "sum"), o(s("party", 7), "sum"), o(s("text", 8), "sum"), o(s("contract_id", 9), "sum"),
		o(m("optional", 10, "Optional"), "sum"), o(m("list", 11, "List"), "sum"), o(m("text_map", 12, "TextMap"), "sum"),
		o(m("gen_map", 13, "GenMap"), "sum"), o(m("record", 14, "Record"), "sum"), o(m("variant", 15, "Variant"), "sum"),
		o(m("enum", 16, "Enum"), "sum"),
	}},
	{"Record", []fieldSpec{m("record_id", 1, "Identifier"), rm("fields", 2, "RecordField")}},
	{"RecordField", []fieldSpec{s("label", 1), m("value", 2, "Value")}},
	{"Variant", []fieldSpec{m("variant_id", 1, "Identifier"), s("constructor", 2), m("value", 3, "Value")}},
	{"Enum", []fieldSpec{m("enum_id", 1, "Identifier"), s("constructor", 2)}},
	{"List", []fieldSpec{rm("elements", 1, "Value")}},
	{"Optional", []fieldSpec{m("value", 1, "Value")}},
	{"TextMapEntry", []fieldSpec{s("key", 1), m("value", 2, "Value")}},
	{"TextMap", []fieldSpec{rm("entries", 1, "TextMapEntry")}},
	{"GenMapEntry", []fieldSpec{m("key", 1, "Value"), m("value", 2, "Value")}},
	{"GenMap", []fieldSpec{rm("entries", 1, "GenMapEntry")}},
	{"Create", []fieldSpec{s("lf_version", 1), s("contract_id", 2), s("package_name", 3), m("template_id", 4, "Identifier"),
		m("argument", 5, "Value"), rs("signatories", 6), rs("stakeholders", 7)}},
	{"Exercise", []fieldSpec{s("lf_version", 1), s("contract_id", 2), s("package_name", 3), m("template_id", 4, "Identifier"),
		rs("signatories", 5), rs("stakeholders", 6), rs("acting_parties", 7), m("interface_id", 8, "Identifier"), s("choice_id", 9),
		m("chosen_value", 10, "Value"), {name: "consuming", num: 11, typ: tBool}, rs("children", 12), m("exercise_result", 13, "Value"),
		rs("choice_observers", 14)}},
	{"V1Node", []fieldSpec{o(m("create", 1, "Create"), "node_type"), o(m("exercise", 3, "Exercise"), "node_type")}},
	{"Node", []fieldSpec{s("node_id", 1), o(m("v1", 1000, "V1Node"), "versioned_node")}},
	{"NodeSeed", []fieldSpec{{name: "node_id", num: 1, typ: tInt32}, {name: "seed", num: 2, typ: tBytes}}},
	{"DamlTransaction", []fieldSpec{s("version", 1), rs("roots", 2), rm("nodes", 3, "Node"), rm("node_seeds", 4, "NodeSeed")}},
	{"SubmitterInfo", []fieldSpec{rs("act_as", 1), s("command_id", 2)}},
	{"InputContract", []fieldSpec{o(m("v1", 1, "Create"), "contract"), {name: "created_at", num: 1000, typ: tUint64}, {name: "event_blob", num: 1002, typ: tBytes}}},
	{"Metadata", []fieldSpec{m("submitter_info", 2, "SubmitterInfo"), s("synchronizer_id", 3), {name: "mediator_group", num: 4, typ: tUint32},
		s("transaction_uuid", 5), {name: "preparation_time", num: 6, typ: tUint64}, rm("input_contracts", 7, "InputContract"),
		{name: "min_ledger_effective_time", num: 9, typ: tUint64, oneof: "_min_ledger_effective_time"},
		{name: "max_ledger_effective_time", num: 10, typ: tUint64, oneof: "_max_ledger_effective_time"}}},
	{"PreparedTransaction", []fieldSpec{m("transaction", 1, "DamlTransaction"), m("metadata", 2, "Metadata")}},
}

func wireDescriptor(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	fd := &descriptorpb.FileDescriptorProto{Name: proto.String("prepared.proto"), Package: proto.String(tpackage), Syntax: proto.String("proto3")}
	for _, wm := range wireMessages {
		md := &descriptorpb.DescriptorProto{Name: proto.String(wm.name)}
		oneofs := map[string]int32{}
		for _, f := range wm.fields {
			fp := &descriptorpb.FieldDescriptorProto{Name: proto.String(f.name), Number: proto.Int32(f.num), Type: f.typ.Enum(),
				Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String(f.name)}
			if f.repeated {
				fp.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
			}
			if f.msg != "" {
				fp.TypeName = proto.String("." + tpackage + "." + f.msg)
			}
			if f.oneof != "" {
				idx, ok := oneofs[f.oneof]
				if !ok {
					idx = int32(len(md.OneofDecl))
					oneofs[f.oneof] = idx
					md.OneofDecl = append(md.OneofDecl, &descriptorpb.OneofDescriptorProto{Name: proto.String(f.oneof)})
				}
				fp.OneofIndex = proto.Int32(idx)
				if f.oneof[0] == '_' {
					fp.Proto3Optional = proto.Bool(true)
				}
			}
			md.Field = append(md.Field, fp)
		}
		fd.MessageType = append(fd.MessageType, md)
	}
	file, err := protodesc.NewFile(fd, nil)
	if err != nil {
		t.Fatal(err)
	}
	return file.Messages().ByName("PreparedTransaction")
}

// noUnknown fails on any field the descriptor does not know.
func noUnknown(t *testing.T, path string, msg protoreflect.Message) {
	t.Helper()
	if len(msg.GetUnknown()) > 0 {
		t.Errorf("%s: unknown fields %x", path, msg.GetUnknown())
	}
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		switch {
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				noUnknown(t, path+"."+string(fd.Name()), v.List().Get(i).Message())
			}
		default:
			noUnknown(t, path+"."+string(fd.Name()), v.Message())
		}
		return true
	})
}

// TestWireFormat: the protobuf library decodes what Marshal writes as a
// PreparedTransaction with no unknown field, reads its fields by name,
// and what it encodes again, Unmarshal reads back as the same.
func TestWireFormat(t *testing.T) {
	p := sample()
	msg := dynamicpb.NewMessage(wireDescriptor(t))
	if err := proto.Unmarshal(Marshal(p), msg); err != nil {
		t.Fatalf("the protobuf library cannot decode it: %v", err)
	}
	noUnknown(t, "PreparedTransaction", msg)
	get := func(m protoreflect.Message, names ...string) protoreflect.Value {
		var v protoreflect.Value
		for i, n := range names {
			v = m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(n)))
			if i < len(names)-1 {
				m = v.Message()
			}
		}
		return v
	}
	if got := get(msg, "metadata", "submitter_info", "command_id").String(); got != p.Metadata.CommandID {
		t.Errorf("command_id %q", got)
	}
	if got := get(msg, "metadata", "min_ledger_effective_time").Uint(); got != *p.Metadata.MinLedgerEffectiveTime {
		t.Errorf("min_ledger_effective_time %d", got)
	}
	if msg.Get(msg.Descriptor().Fields().ByName("metadata")).Message().Has(msg.Descriptor().Fields().ByName("metadata").Message().Fields().ByName("max_ledger_effective_time")) {
		t.Errorf("max_ledger_effective_time is set, want absent")
	}
	node := get(msg, "transaction", "nodes").List().Get(0).Message()
	if got := get(node, "v1", "exercise", "choice_id").String(); got != "Go" {
		t.Errorf("choice_id %q", got)
	}
	arg := get(node, "v1", "exercise", "chosen_value", "record", "fields").List()
	if got := get(arg.Get(2).Message(), "value", "int64").Int(); got != -5 {
		t.Errorf("the int64 field reads %d, want -5", got)
	}
	again, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(again)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Errorf("through the protobuf library and back:\n got %+v\nwant %+v", back, p)
	}
}

// TestWireFormatLongMessages: sub-messages whose lengths take two and
// three bytes (Marshal moves their bytes along once it knows the length)
// decode in the protobuf library and back to the same transaction.
func TestWireFormatLongMessages(t *testing.T) {
	for _, n := range []int{100, 200, 20_000} {
		p := sample()
		x := p.Transaction.Nodes[0].Exercise
		x.ChosenValue.Fields = append(x.ChosenValue.Fields, Field{"long", Value{Kind: KindText, Str: strings.Repeat("x", n)}})
		raw := Marshal(p)
		if err := proto.Unmarshal(raw, dynamicpb.NewMessage(wireDescriptor(t))); err != nil {
			t.Fatalf("a %d-byte text: the protobuf library cannot decode it: %v", n, err)
		}
		back, err := Unmarshal(raw)
		if err != nil {
			t.Fatalf("a %d-byte text: %v", n, err)
		}
		if !reflect.DeepEqual(back, p) {
			t.Errorf("a %d-byte text: round trip differs", n)
		}
	}
}
