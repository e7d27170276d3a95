package files

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"os"
	"strconv"
	"testing"
)

func TestManySeeds(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SEEDS"))
	for i := 2; i < 2+n; i++ {
		propertySeed = uint64(i)
		ok := t.Run(strconv.Itoa(i), TestIncrementalMatchesFullWalk)
		if !ok {
			break
		}
	}
	propertySeed = 1
}

func TestSeedLog(t *testing.T) {
	const hashMax = 128
	seed, _ := strconv.Atoi(os.Getenv("SEED"))
	upto, _ := strconv.Atoi(os.Getenv("UPTO"))
	top := sandbox(t)
	obs := observe(t, Options{Top: top, HashMax: hashMax})
	r := rand.New(rand.NewPCG(uint64(seed), 2))
	for step := range upto + 1 {
		tok := fmt.Sprintf("step-%d", step)
		obs.Begin(tok)
		var did []string
		for range 1 + r.IntN(4) {
			did = append(did, randomOp(t, r, top))
		}
		recs := obs.Collect(tok)
		t.Logf("step %d: %s -> %q multi=%v", step, strings.Join(did, "; "), summaries(recs), slices.Sorted(maps.Keys(obs.t.multi)))
	}
}
