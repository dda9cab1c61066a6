package mention

import (
	"sort"
	"strings"
)

// Match returns at most limit of files that fuzzily match query, best
// first: every character of query in order (case-insensitive unless query
// has capitals), preferring matches in the file name, at word starts and
// in runs, and shorter paths. An empty query gives the first files.
func Match(files []string, query string, limit int) []string {
	if limit <= 0 {
		return nil
	}
	if query == "" {
		return append([]string(nil), files[:min(limit, len(files))]...)
	}
	fold := strings.ToLower(query) == query
	type hit struct {
		score int
		path  string
	}
	var hits []hit
	worst := 0
	for _, f := range files {
		s, ok := score(f, query, fold)
		if !ok {
			continue
		}
		if len(hits) >= limit*4 && s <= worst {
			continue
		}
		hits = append(hits, hit{s, f})
		if len(hits) == 1 || s < worst {
			worst = s
		}
		if len(hits) >= limit*8 {
			// Keep the best limit*4 and go on: bounded memory on huge trees.
			sort.Slice(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
			hits = hits[:limit*4]
			worst = hits[len(hits)-1].score
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].path < hits[j].path
	})
	out := make([]string, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.path)
	}
	return out
}

// score matches query against path; ok is false when it does not match.
func score(path, query string, fold bool) (int, bool) {
	base := strings.LastIndexByte(path, '/') + 1
	s := 0
	qi := 0
	prev := -2
	for i := 0; i < len(path) && qi < len(query); i++ {
		c := path[i]
		if fold && c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != query[qi] {
			continue
		}
		switch {
		case i == base:
			s += 12
		case i == 0 || strings.IndexByte("/_-. ", path[i-1]) >= 0:
			s += 8
		}
		if i == prev+1 {
			s += 6
		}
		if i >= base {
			s += 2
		}
		prev = i
		qi++
	}
	if qi < len(query) {
		return 0, false
	}
	if name := path[base:]; len(name) >= len(query) && strings.EqualFold(name[:len(query)], query) {
		s += 20
	}
	return s*16 - len(path), true
}
