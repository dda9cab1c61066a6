package platform

import (
	"runtime"
	"strings"
	"testing"
)

func TestDifferences(t *testing.T) {
	if !strings.HasPrefix(Name(), runtime.GOOS+"/") {
		t.Errorf("Name %q", Name())
	}
	d := Differences()
	if (runtime.GOOS == "linux") != (len(d) == 0) {
		t.Errorf("differences on %s: %q", runtime.GOOS, d)
	}
	for _, s := range d {
		if strings.TrimSpace(s) == "" {
			t.Error("an empty difference")
		}
	}
}
