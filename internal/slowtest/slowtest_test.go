package slowtest

import (
	"testing"
	"time"
)

func TestCompute(t *testing.T) {
	tests := []struct {
		name string
		env  string
		load float64
		cpus int
		want float64
		from string
	}{
		{"quiet machine", "", 0.4, 2, 1, "load average"},
		{"busy machine", "", 30, 2, 15, "load average"},
		{"past the cap", "", 200, 2, MaxFactor, "load average"},
		{"by hand", "3", 30, 2, 3, Env},
		{"by hand below one", "0.5", 30, 2, 15, "load average"},
		{"not a number", "fast", 4, 2, 2, "load average"},
		{"no load average", "", -1, 2, 1, "no load average"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, from := compute(tt.env, tt.load, tt.cpus)
			if got != tt.want || from != tt.from {
				t.Errorf("compute(%q, %v, %d) = %v, %q; want %v, %q", tt.env, tt.load, tt.cpus, got, from, tt.want, tt.from)
			}
		})
	}
}

func TestScale(t *testing.T) {
	f := Factor()
	if f < 1 {
		t.Fatalf("factor %v below 1", f)
	}
	if got, want := Scale(2*time.Second), time.Duration(float64(2*time.Second)*f); got != want {
		t.Errorf("Scale(2s) = %v, want %v (factor %v)", got, want, f)
	}
}
