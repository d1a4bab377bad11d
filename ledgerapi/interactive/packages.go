package interactive

import (
	"net/http"
	"time"

	"github.com/ccwallet/ccwallet/ledger/damljson"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/damlid"
)

// Preferred packages: every package this ledger knows is vetted for every
// party on its one synchronizer, in one version, so the preferred package
// of a name is that one.

// maxVettingRequirements bounds a preferred-packages request.
const maxVettingRequirements = 100

type packageReference struct {
	PackageID      string `json:"packageId"`
	PackageName    string `json:"packageName"`
	PackageVersion string `json:"packageVersion"`
}

// preferredPackage is the reference of a package name, after checking
// the caller may read as the parties; false when the name is unknown.
func (s *Service) preferredPackage(c *canton.Caller, field, name string, parties []string) (packageReference, bool, error) {
	for _, p := range parties {
		party, err := canton.ParseParty(field+".parties", p)
		if err != nil {
			return packageReference{}, false, err
		}
		if err := c.RequireRead(party); err != nil {
			return packageReference{}, false, err
		}
	}
	if name == "" {
		return packageReference{}, false, canton.Err(canton.CodeMissingField, "%s: name the package", field)
	}
	id := damlid.PackageID(name)
	if n, _ := damlid.PackageName(id); n != name {
		return packageReference{}, false, nil
	}
	return packageReference{PackageID: id, PackageName: name, PackageVersion: damljson.PackageVersion(name)}, true, nil
}

// checkSynchronizer refuses a synchronizer id other than the ledger's.
func (s *Service) checkSynchronizer(field, id string) error {
	if id != "" && id != s.l.SynchronizerID() {
		return canton.InvalidArgument("%s: this participant is connected to %s only", field, s.l.SynchronizerID())
	}
	return nil
}

// PreferredPackageVersion is GET
// /v2/interactive-submission/preferred-package-version.
func (s *Service) PreferredPackageVersion(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	q := r.URL.Query()
	if err := s.checkSynchronizer("synchronizer-id", q.Get("synchronizer-id")); err != nil {
		return err
	}
	if at := q.Get("vetting_valid_at"); at != "" {
		if _, err := time.Parse(time.RFC3339Nano, at); err != nil {
			return &canton.DecodeError{Status: http.StatusBadRequest, Msg: "Invalid value for: query parameter vetting_valid_at"}
		}
	}
	ref, ok, err := s.preferredPackage(c, "package-name", q.Get("package-name"), q["parties"])
	if err != nil {
		return err
	}
	if !ok {
		return canton.WriteJSON(w, struct{}{}) // no preferred package: the field is left out
	}
	return canton.WriteJSON(w, map[string]any{"packagePreference": map[string]any{"packageReference": ref, "synchronizerId": s.l.SynchronizerID()}})
}

// PreferredPackages is POST /v2/interactive-submission/preferred-packages.
func (s *Service) PreferredPackages(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	var req struct {
		PackageVettingRequirements []struct {
			Parties     []string `json:"parties"`
			PackageName string   `json:"packageName"`
		} `json:"packageVettingRequirements"`
		SynchronizerID string `json:"synchronizerId"`
		VettingValidAt string `json:"vettingValidAt"`
	}
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	if err := s.checkSynchronizer("synchronizerId", req.SynchronizerID); err != nil {
		return err
	}
	if len(req.PackageVettingRequirements) == 0 {
		return canton.Err(canton.CodeMissingField, "packageVettingRequirements: name at least one package")
	}
	if len(req.PackageVettingRequirements) > maxVettingRequirements {
		return canton.InvalidArgument("packageVettingRequirements: at most %d", maxVettingRequirements)
	}
	refs := []packageReference{}
	for _, v := range req.PackageVettingRequirements {
		ref, ok, err := s.preferredPackage(c, "packageVettingRequirements.packageName", v.PackageName, v.Parties)
		if err != nil {
			return err
		}
		if !ok {
			return canton.Err(canton.CodePackageNamesNotFound, "package %s is not known to this participant", v.PackageName)
		}
		refs = append(refs, ref)
	}
	return canton.WriteJSON(w, map[string]any{"packageReferences": refs, "synchronizerId": s.l.SynchronizerID()})
}
