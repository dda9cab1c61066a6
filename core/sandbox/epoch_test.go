package sandbox

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestPlaceholderAppearsWhole: a reader (git, run by the host while a
// guard is made) never sees a placeholder exist but empty. An empty
// commondir makes git fail with "failed to read .git/commondir"; CI saw
// it as #diff failing in exec.
func TestPlaceholderAppearsWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "commondir")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var torn int
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if data, err := os.ReadFile(p); err == nil && string(data) != ".\n" {
				torn++
			}
		}
	}()
	for i := 0; i < 2000; i++ {
		if err := commondirPlaceholder.make(p); err != nil {
			t.Fatalf("make: %v", err)
		}
		if err := commondirPlaceholder.make(p); err == nil {
			t.Fatal("a second make over an existing placeholder succeeded")
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if torn > 0 {
		t.Errorf("a reader saw the placeholder %d times before it held its content", torn)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}
