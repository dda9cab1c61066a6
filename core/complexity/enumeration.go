package complexity

import (
	"strings"
	"unicode"
)

// HasEnumeration reports whether s holds an explicit multi-target enumeration:
// numbered items 1, 2 and 3 in order, or a slash list of at least 3 items
// (see the package comment for the exact rules). isPath, when not nil,
// tells a chain that names an existing path (src/Core/Util in the
// workspace) from a list.
func HasEnumeration(s string, isPath func(string) bool) bool {
	return hasNumberedItems(s) || hasSlashList(s, isPath)
}

// minItems is the number of items an enumeration needs: the seed's
// examples are "1. 2. 3." and "A/B/C".
const minItems = 3

// markerPrev lists the runes (besides whitespace) that may precede a
// numbered marker: opening brackets, colons and sentence punctuation.
const markerPrev = "(（:：，,；;。！!？?、*>【["

var zhNumerals = map[rune]int{'一': 1, '二': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9, '十': 10}

// hasNumberedItems reports whether markers numbered 1, 2 and 3 occur in
// that order.
func hasNumberedItems(s string) bool {
	rs := []rune(s)
	want := 1
	for i := 0; i < len(rs); i++ {
		v, ok := markerAt(rs, i)
		switch {
		case !ok:
		case v == want:
			if want++; want > minItems {
				return true
			}
		case v == 1:
			want = 2
		}
	}
	return false
}

// markerAt returns the value of the list marker starting at rs[i], if any.
func markerAt(rs []rune, i int) (int, bool) {
	r := rs[i]
	if r >= '①' && r <= '⑳' {
		return int(r-'①') + 1, true
	}
	if i > 0 {
		p := rs[i-1]
		if !unicode.IsSpace(p) && !strings.ContainsRune(markerPrev, p) {
			return 0, false
		}
	}
	if v, ok := zhNumerals[r]; ok {
		if i+1 < len(rs) && strings.ContainsRune("、.．", rs[i+1]) {
			return v, true
		}
		return 0, false
	}
	paren := r == '(' || r == '（'
	j := i
	if paren {
		j++
	}
	v, k := 0, j
	for k < len(rs) && k-j < 2 && rs[k] >= '0' && rs[k] <= '9' {
		v = v*10 + int(rs[k]-'0')
		k++
	}
	if k == j || k >= len(rs) || (rs[k] >= '0' && rs[k] <= '9') {
		return 0, false
	}
	end := rs[k]
	var next rune = -1
	if k+1 < len(rs) {
		next = rs[k+1]
	}
	switch {
	case paren:
		return v, end == ')' || end == '）'
	case end == ')' || end == '）' || end == '、':
		return v, next < '0' || next > '9'
	case end == '.' || end == '．':
		// "1. x", "1.修复" and a final "1." are markers; "3.14" and "1.go" are not.
		return v, next == -1 || unicode.IsSpace(next) || next > unicode.MaxASCII
	}
	return 0, false
}

// itemRune reports whether r belongs to a slash-list item. It is broad on
// purpose: path and URL characters are kept inside items so that the chain
// they form can be recognised and rejected as a whole.
func itemRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || strings.ContainsRune("-_+#.:~@\\=?%&'", r)
}

func isSlash(r rune) bool { return r == '/' || r == '／' }

// hasSlashList reports whether s holds a chain like A/B/C that is not a
// path, URL or date.
func hasSlashList(s string, isPath func(string) bool) bool {
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if !itemRune(rs[i]) && !isSlash(rs[i]) {
			i++
			continue
		}
		end, ok := chain(rs, i)
		if ok && (isPath == nil || !isPath(strings.TrimSpace(string(rs[i:end])))) {
			return true
		}
		i = end
	}
	return false
}

// chain reads the slash chain starting at rs[i] (an item rune or a slash)
// and reports where it ends and whether it is an enumeration.
func chain(rs []rune, i int) (int, bool) {
	var items []string
	leading, trailing, empty := false, false, false
	j := i
	if isSlash(rs[j]) {
		leading = true
	}
	for {
		start := j
		for j < len(rs) && itemRune(rs[j]) {
			j++
		}
		item := string(rs[start:j])
		// Look for a separator: optional blanks, a slash, optional blanks.
		k := j
		for k < len(rs) && (rs[k] == ' ' || rs[k] == '\t') {
			k++
		}
		// Blanks around a slash must be on both sides: in "run /usr/bin"
		// the slash starts a path, it does not separate "run" from "usr".
		if k > j && k < len(rs) && isSlash(rs[k]) && (k+1 >= len(rs) || rs[k+1] != ' ' && rs[k+1] != '\t') {
			k = len(rs)
		}
		if k >= len(rs) || !isSlash(rs[k]) {
			if item == "" {
				trailing = len(items) > 0
			} else {
				items = append(items, item)
			}
			break
		}
		if item == "" {
			if len(items) > 0 || leading && start > i {
				empty = true
			}
		} else {
			items = append(items, item)
		}
		j = k + 1
		for j < len(rs) && (rs[j] == ' ' || rs[j] == '\t') {
			j++
		}
	}
	if j == i {
		j = i + 1
	}
	if leading || trailing || empty || len(items) < minItems {
		return j, false
	}
	// A full stop after the last item ends the sentence, it is no extension.
	last := len(items) - 1
	items[last] = strings.TrimSuffix(items[last], ".")
	allDigits := true
	for _, it := range items {
		if it == "" || len([]rune(it)) > 32 || strings.ContainsAny(it, ".:~@\\=?%&") {
			return j, false
		}
		for _, r := range it {
			if r < '0' || r > '9' {
				allDigits = false
			}
		}
	}
	return j, !allDigits
}
