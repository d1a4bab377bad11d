// Package apispec holds the OpenAPI documents ccwallet conforms to: the
// verbatim Splice and Canton specs (specs/, see specs/SOURCE.md) and
// ccwallet's own extensions (ccwallet.yaml). The app serves them, cut down
// to the operations it routes, so a client generator or an API explorer
// sees exactly what this build answers; the contract tests validate
// requests and responses against the same files.
package apispec

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed specs/*.yaml ccwallet.yaml
var files embed.FS

// Listener says where a document's operations are answered.
type Listener string

const (
	// App is the wallet's own listener (web wallet and JSON APIs).
	App Listener = "app"
	// LedgerAPI is the JSON Ledger API v2 listener (ledgerApiListen).
	LedgerAPI Listener = "ledger-api"
)

// Document is one OpenAPI document the app serves.
type Document struct {
	Name  string   `json:"name"` // file name, e.g. "wallet-external.yaml"
	Title string   `json:"title"`
	On    Listener `json:"listener"`
	// Extension marks ccwallet's own operations, not in any public spec.
	Extension bool `json:"extension,omitempty"`
}

// Documents are the served documents, in the order a reader meets them.
var Documents = []Document{
	{Name: "wallet-external.yaml", Title: "Wallet API (external)", On: App},
	{Name: "wallet-internal.yaml", Title: "Wallet API (internal)", On: App},
	{Name: "validator-internal.yaml", Title: "Validator API", On: App},
	{Name: "scan-proxy.yaml", Title: "Scan proxy", On: App},
	{Name: "ans-external.yaml", Title: "Name service (ANS)", On: App},
	{Name: "transfer-instruction-v1.yaml", Title: "Token standard: transfer instructions", On: App},
	{Name: "allocation-instruction-v1.yaml", Title: "Token standard: allocation instructions", On: App},
	{Name: "allocation-v1.yaml", Title: "Token standard: allocations", On: App},
	{Name: "token-metadata-v1.yaml", Title: "Token standard: metadata", On: App},
	{Name: "ccwallet.yaml", Title: "ccwallet's extensions", On: App, Extension: true},
	{Name: "ledger-api-v2.yaml", Title: "JSON Ledger API v2", On: LedgerAPI},
}

// referenced are the documents others $ref; served whole so the refs of
// a served document resolve against the same base URL.
var referenced = []string{"common-external.yaml", "common-internal.yaml", "scan.yaml"}

// Known reports whether name is a served or referenced document.
func Known(name string) bool {
	return slices.ContainsFunc(Documents, func(d Document) bool { return d.Name == name }) ||
		slices.Contains(referenced, name)
}

// refPrefixes are how the specs refer to each other in the Splice
// repository (specs/SOURCE.md); served side by side, they become "./".
var refPrefixes = []string{"../../../../common/src/main/openapi/", "../../../../scan/src/main/openapi/", "../../../../wallet/src/main/openapi/"}

// Raw is a document's bytes with its cross-document refs made relative.
func Raw(name string) ([]byte, error) {
	if !Known(name) {
		return nil, fmt.Errorf("no document %q: %w", name, fs.ErrNotExist)
	}
	path := "specs/" + name
	if name == "ccwallet.yaml" {
		path = name
	}
	data, err := files.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for _, p := range refPrefixes {
		data = bytes.ReplaceAll(data, []byte(p), []byte("./"))
	}
	return data, nil
}

// Routed answers whether the listener routes method on path (a spec path
// with its {parameters} in place).
type Routed func(method, path string) bool

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Served is the named document with only the operations routed keeps: a
// path none of whose operations is routed goes too. Referenced documents
// come whole. The result is YAML.
func Served(name string, routed Routed) ([]byte, error) {
	data, err := Raw(name)
	if err != nil || slices.Contains(referenced, name) || routed == nil {
		return data, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	paths := mapValue(root.Content[0], "paths")
	if paths == nil {
		return data, nil
	}
	var kept []*yaml.Node
	for i := 0; i+1 < len(paths.Content); i += 2 {
		path, item := paths.Content[i].Value, paths.Content[i+1]
		var ops []*yaml.Node
		served := false
		for j := 0; j+1 < len(item.Content); j += 2 {
			k := item.Content[j].Value
			if slices.Contains(methods, k) {
				if !routed(strings.ToUpper(k), path) {
					continue
				}
				served = true
			}
			ops = append(ops, item.Content[j], item.Content[j+1])
		}
		if served {
			item.Content = ops
			kept = append(kept, paths.Content[i], item)
		}
	}
	paths.Content = kept
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// Operation is one operation of a document, as the API explorer shows it.
type Operation struct {
	Method      string
	Path        string
	OperationID string
	Summary     string
	Tag         string
	// PathParams are the {names} of Path, in order; Query the query
	// parameters the operation declares.
	PathParams []string
	Query      []string
	HasBody    bool
	Extension  bool
}

// Operations lists the document's operations routed keeps, sorted by path
// then method.
func Operations(name string, routed Routed) ([]Operation, error) {
	data, err := Served(name, routed)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Paths      map[string]map[string]yaml.Node `yaml:"paths"`
		Components struct {
			Parameters map[string]param `yaml:"parameters"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var ops []Operation
	for path, item := range doc.Paths {
		var common []param
		if n, ok := item["parameters"]; ok {
			_ = n.Decode(&common)
		}
		for method, n := range item {
			if !slices.Contains(methods, method) {
				continue
			}
			var o struct {
				OperationID string         `yaml:"operationId"`
				Summary     string         `yaml:"summary"`
				Description string         `yaml:"description"`
				Tags        []string       `yaml:"tags"`
				Parameters  []param        `yaml:"parameters"`
				RequestBody map[string]any `yaml:"requestBody"`
				Extension   bool           `yaml:"x-ccwallet-extension"`
			}
			if err := n.Decode(&o); err != nil {
				return nil, fmt.Errorf("%s %s %s: %w", name, method, path, err)
			}
			op := Operation{
				Method: strings.ToUpper(method), Path: path, OperationID: o.OperationID,
				Summary: o.Summary, HasBody: o.RequestBody != nil, Extension: o.Extension,
				PathParams: pathParams(path),
			}
			if op.Summary == "" {
				op.Summary, _, _ = strings.Cut(strings.TrimSpace(o.Description), "\n")
			}
			if len(o.Tags) > 0 {
				op.Tag = o.Tags[0]
			}
			for _, p := range append(common, o.Parameters...) {
				if p.Ref != "" {
					p = doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
				}
				if p.In == "query" && !slices.Contains(op.Query, p.Name) {
					op.Query = append(op.Query, p.Name)
				}
			}
			ops = append(ops, op)
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops, nil
}

type param struct {
	Ref  string `yaml:"$ref"`
	Name string `yaml:"name"`
	In   string `yaml:"in"`
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

func pathParams(path string) []string {
	var names []string
	for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
		names = append(names, m[1])
	}
	return names
}

// MuxRouted adapts a ServeMux: an operation is routed when the mux has a
// pattern for it other than its catch-all "/". Asking costs no request: the
// mux only matches, it runs nothing.
func MuxRouted(mux *http.ServeMux) Routed {
	return func(method, path string) bool {
		req, err := http.NewRequest(method, pathParam.ReplaceAllString(path, "x"), nil)
		if err != nil {
			return false
		}
		_, pattern := mux.Handler(req)
		return pattern != "" && pattern != "/"
	}
}
