package budget

import (
	"fmt"
	"regexp"
	"strconv"
)

// Vendor is a device's maker, as a class file names it.
type Vendor string

// The vendors whose devices the engines serve on.
const (
	NVIDIA Vendor = "nvidia"
	AMD    Vendor = "amd"
)

// Silicon is what engines choose kernels by: the vendor and, for NVIDIA, the
// CUDA compute capability (Major.Minor); for AMD, the gfx target (gfx942).
type Silicon struct {
	Vendor       Vendor
	Major, Minor int    // NVIDIA compute capability; 0.0 for AMD
	Target       string // AMD gfx target; "" for NVIDIA
}

// String is the compute capability as a class file writes it: "9.0" or
// "gfx942".
func (s Silicon) String() string {
	if s.Vendor == AMD {
		return s.Target
	}
	return fmt.Sprintf("%d.%d", s.Major, s.Minor)
}

// AtLeast reports whether the device is NVIDIA of compute capability
// major.minor or newer.
func (s Silicon) AtLeast(major, minor int) bool {
	return s.Vendor == NVIDIA && (s.Major > major || s.Major == major && s.Minor >= minor)
}

// SiliconError is a vendor or compute capability that no device has; Key is
// the [device] key it is about.
type SiliconError struct {
	Key, Value, Reason string
}

// Error returns the key, its value and why no device has it.
func (e *SiliconError) Error() string {
	return fmt.Sprintf("%q: %s", e.Value, e.Reason)
}

var (
	cudaCapability = regexp.MustCompile(`^([0-9]{1,2})\.([0-9])$`)
	gfxTarget      = regexp.MustCompile(`^gfx[0-9]{2,3}[0-9a-f]$`)
)

// ParseSilicon reads a class file's vendor and compute_capability: NVIDIA's
// major.minor from 3.0 (Kepler) to 15.9, or AMD's gfx target.
func ParseSilicon(vendor, capability string) (Silicon, error) {
	switch Vendor(vendor) {
	case NVIDIA:
		m := cudaCapability.FindStringSubmatch(capability)
		if m == nil {
			return Silicon{}, &SiliconError{"compute_capability", capability, "want NVIDIA's major.minor, such as 9.0"}
		}
		major, _ := strconv.Atoi(m[1])
		minor, _ := strconv.Atoi(m[2])
		if major < 3 || major > 15 {
			return Silicon{}, &SiliconError{"compute_capability", capability, "no NVIDIA GPU has that major version (want 3 to 15)"}
		}
		return Silicon{Vendor: NVIDIA, Major: major, Minor: minor}, nil
	case AMD:
		if !gfxTarget.MatchString(capability) {
			return Silicon{}, &SiliconError{"compute_capability", capability, "want AMD's gfx target, such as gfx942"}
		}
		return Silicon{Vendor: AMD, Target: capability}, nil
	}
	return Silicon{}, &SiliconError{"vendor", vendor, "want nvidia or amd"}
}
