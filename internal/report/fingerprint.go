package report

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
)

// Fingerprint identifies a finding across runs: the first 16 hexadecimal
// characters of the SHA-256 of the probe id, a NUL byte and the (redacted)
// message in its stable form (StableMessage), which keeps the rule and what
// is wrong and drops what varies from run to run: positions, times, sizes,
// ports, pids and random names. The evidence keeps that detail.
//
// A message with nothing that varies hashes as it did before StableMessage
// existed, so such fingerprints in older baselines and reports still match.
func Fingerprint(probeID, message string) string {
	return rawFingerprint(probeID, StableMessage(message))
}

// rawFingerprint hashes the probe id and message as given: the fingerprint
// of Sealmark releases before StableMessage.
func rawFingerprint(probeID, message string) string {
	sum := sha256.Sum256([]byte(probeID + "\x00" + message))
	return hex.EncodeToString(sum[:])[:16]
}

// CurrentFingerprint is the fingerprint a finding of probeID with message
// has now, given the one stored with it (in a baseline entry or an older
// report): a stored fingerprint an older Sealmark computed on the message
// as it was (line numbers, temp names and all) becomes Fingerprint; any
// other stored value (a current one, the capped aggregate's key) is kept.
// upgraded reports whether it changed.
func CurrentFingerprint(probeID, message, stored string) (fp string, upgraded bool) {
	if message == "" || stored != rawFingerprint(probeID, message) {
		return stored, false
	}
	fp = Fingerprint(probeID, message)
	return fp, fp != stored
}

// The parts of a message that vary between runs of the same server, each
// replaced by a fixed word. Every pattern needs context (a unit, a keyword,
// a shape no name has by chance), so tool names, the user's paths, error
// codes and protocol versions pass unchanged and distinct findings stay
// distinct.
var (
	// A position in a stream: "stdout line 38", "at byte 12", "column 4".
	positionRE = regexp.MustCompile(`\b(line|frame|column|offset|position|byte|at|index)( #?)\d+\b`)
	// A process id: "pid 4242", "pid=4242".
	pidRE = regexp.MustCompile(`(?i)\b(pid|process)([ =:#]+)\d+\b`)
	// A count of attempts or retries, which depends on timing.
	countRE = regexp.MustCompile(`\b\d+( (?:attempts|retries|tries|times))\b`)
	// An RFC 3339 / ISO 8601 time ("2026-12-04T15:21:04.123Z"), or a clock
	// time ("15:21:04").
	timeRE = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?\b|\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b`)
	// A duration: "0.35s", "1m30s", "250ms", "5 s", "2 seconds".
	durationRE = regexp.MustCompile(`\b(\d+(\.\d+)?(h|m|s|ms|µs|us|ns))+\b|\b\d+(\.\d+)? ?(ms|s|seconds?|milliseconds?|minutes?)\b`)
	// A size: "4096 bytes", "1.5 MiB", "12KB".
	sizeRE = regexp.MustCompile(`\b\d+(\.\d+)? ?(bytes?|B|KiB|MiB|GiB|kB|KB|MB|GB)\b`)
	// A UUID.
	uuidRE = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	// A port after a host ("127.0.0.1:43567", "[::]:40001", "port 40001"):
	// only ports of the ephemeral range (see ephemeral) are replaced.
	portRE = regexp.MustCompile(`([0-9A-Za-z\]}.-]:|\bport )(\d{4,5})\b`)
	// The sequence number the harness gives the names it makes after the
	// run's token ("sealmark-{token}-w3", "sealmark-{token}-src12"): it
	// counts the probe's earlier calls, so one call more or fewer before
	// it renumbers every later name.
	seqRE = regexp.MustCompile(`(\{token\}-[a-z]*)\d+\b`)
	// An alphanumeric word, for hex tokens and random names.
	wordRE = regexp.MustCompile(`[0-9A-Za-z]+`)
	// A path segment under a temp directory: "tmp/", "/tmp/", "temp/",
	// "T/" of macOS's $TMPDIR, up to the next separator or space.
	tempRE = regexp.MustCompile(`(?i)(^|[^0-9A-Za-z_])(tmp|temp)/([^\s"'(),;]+)`)
)

// StableMessage is message with what varies between runs of the same
// server replaced by fixed words: stream positions ("line #"), pids,
// attempt counts, the harness's name numbers ("{token}-w#"), times ("<time>"), durations ("<duration>"), sizes
// ("<size>"), UUIDs ("<uuid>"), ephemeral ports ("<port>"), hexadecimal
// tokens of 8 or more characters mixing digits and letters ("<hex>"), and
// the random parts of names under a temp directory ("tmp/mcp-<random>.txt").
// Tool names, the paths the user chose, error codes and versions are kept.
func StableMessage(message string) string {
	s := message
	s = timeRE.ReplaceAllString(s, "<time>")
	s = uuidRE.ReplaceAllString(s, "<uuid>")
	s = tempRE.ReplaceAllStringFunc(s, stableTempPath)
	s = sizeRE.ReplaceAllString(s, "<size>")
	s = durationRE.ReplaceAllString(s, "<duration>")
	s = portRE.ReplaceAllStringFunc(s, stablePort)
	s = positionRE.ReplaceAllString(s, "$1$2#")
	s = pidRE.ReplaceAllString(s, "$1$2#")
	s = countRE.ReplaceAllString(s, "#$1")
	s = seqRE.ReplaceAllString(s, "$1#")
	s = wordRE.ReplaceAllStringFunc(s, func(w string) string {
		if hexToken(w) {
			return "<hex>"
		}
		return w
	})
	return s
}

// stablePort replaces a port of the ephemeral range in a portRE match.
func stablePort(m string) string {
	sub := portRE.FindStringSubmatch(m)
	if n, err := strconv.Atoi(sub[2]); err == nil && ephemeral(n) {
		return sub[1] + "<port>"
	}
	return m
}

// ephemeral reports whether port is in the range operating systems pick
// from for a port nobody chose (Linux 32768-60999, IANA 49152-65535): a
// server listening on port 0, or a client's side of a connection. Ports
// below it are usually a fixed choice and identify the finding.
func ephemeral(port int) bool { return port >= 32768 && port <= 65535 }

// hexToken reports whether w is a random-looking hexadecimal token: 8 or
// more hexadecimal digits holding both a decimal digit and a letter, so
// that words ("deadbeef" aside), numbers and error codes are not tokens.
func hexToken(w string) bool {
	if len(w) < 8 {
		return false
	}
	digit, letter := false, false
	for _, c := range w {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}

// stableTempPath replaces the random-looking words of the path after a
// temp directory in a tempRE match: a server picks those names itself
// (mkdtemp, tempfile), so they differ on every run.
func stableTempPath(m string) string {
	i := strings.IndexAny(strings.ToLower(m), "t")
	head, rest, _ := strings.Cut(m[i:], "/")
	return m[:i] + head + "/" + wordRE.ReplaceAllStringFunc(rest, func(w string) string {
		if randomWord(w) {
			return "<random>"
		}
		return w
	})
}

// randomWord reports whether w, a word of a name under a temp directory,
// looks generated rather than written: 5 or more characters holding a
// digit, or an upper-case letter after the first character ("Xa9bQz",
// "a1b2c3", "tmpA8xQ"). Lower-case words and capitalised ones ("notes",
// "Report") are kept, as are short ones ("v2", "out").
func randomWord(w string) bool {
	if len(w) < 5 {
		return false
	}
	for i, c := range w {
		if c >= '0' && c <= '9' || i > 0 && c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}
