package fs

import "github.com/sealmark/sealmark/packs"

// prepare is the pack's set-up: its hints (hints.fs, see ParseHints) are
// checked when the engine is built, an unknown key or role being a usage
// error; with any, the run uses the pack they make (Hinted), and a hinted
// tool the first start does not list fails that start.
func prepare(s *packs.Setup) error {
	hints, err := ParseHints(s.Hints, s.HintsAt)
	if err != nil {
		return err
	}
	if len(hints) == 0 {
		return nil
	}
	s.Use(Hinted(hints...))
	s.OnSurface(func(sf *packs.Surface) error {
		var names []string
		for _, t := range sf.Tools {
			names = append(names, t.Name)
		}
		return CheckHints(hints, names, s.HintsAt)
	})
	return nil
}
