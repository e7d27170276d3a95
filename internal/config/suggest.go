package config

import (
	"strings"
)

// nearestKey returns the known key an unknown path most likely meant, or ""
// when none is close. A key whose last part matches (command written at the
// top level, max-mib under server) wins; otherwise the nearest key by edit
// distance, if the distance is small for the path's length.
func nearestKey(path string) string {
	known := make([]string, 0, len(fileKeys)+len(sections))
	for _, s := range settings {
		if !s.flagOnly {
			known = append(known, s.key)
		}
	}
	for sec := range sections {
		known = append(known, sec)
	}
	last := normalize(path[strings.LastIndex(path, ".")+1:])
	for _, k := range settings { // table order, so the choice is stable
		if !k.flagOnly && k.key != path && normalize(k.key[strings.LastIndex(k.key, ".")+1:]) == last {
			return k.key
		}
	}
	best, bestDist := "", max(2, len(path)/4)+1
	for _, k := range known {
		if d := distance(normalize(path), k); d < bestDist || d == bestDist && k < best {
			best, bestDist = k, d
		}
	}
	if best == path {
		return ""
	}
	return best
}

// normalize folds letter case and writes "-" as "_".
func normalize(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), "-", "_")
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
