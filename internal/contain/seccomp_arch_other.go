//go:build linux && !amd64 && !arm64

package contain

const (
	nativeArch = 0 // no egress filter: Probe says why
	x32Bit     = 0
)

var (
	archNotified []uint32
	flagOpens    []flagOpen
)
