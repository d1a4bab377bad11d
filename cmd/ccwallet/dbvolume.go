package main

import (
	"fmt"
	"regexp"
)

// DBVolume is the seed's db block: the size and storage class of the
// database's volume. The wallet does not size volumes itself; the Helm
// chart reads the same keys and claims a volume of this size (and
// class) for the embedded SQLite file, so one values file serves both.
type DBVolume struct {
	VolumeSize         string `yaml:"volumeSize"`
	VolumeStorageClass string `yaml:"volumeStorageClass"`
}

var (
	// quantityRE is a Kubernetes storage quantity: 20Gi, 500M, 1.5Ti.
	quantityRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$`)
	// storageClassRE is a Kubernetes object name (DNS subdomain).
	storageClassRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
)

func (d DBVolume) validate() []error {
	var errs []error
	if d.VolumeSize != "" && !quantityRE.MatchString(d.VolumeSize) {
		errs = append(errs, fmt.Errorf("db.volumeSize: %q is not a storage size such as 20Gi", d.VolumeSize))
	}
	if d.VolumeStorageClass != "" && !storageClassRE.MatchString(d.VolumeStorageClass) {
		errs = append(errs, fmt.Errorf("db.volumeStorageClass: %q is not a storage class name (lower-case letters, digits, - and .)", d.VolumeStorageClass))
	}
	return errs
}
