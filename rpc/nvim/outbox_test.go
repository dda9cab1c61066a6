package nvimhost

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// batchText concatenates the text of a batch's text operations.
func batchText(ops []op) (text string, lines int) {
	var b strings.Builder
	for _, x := range ops {
		if x["t"] != "text" {
			continue
		}
		for _, c := range x["c"].([]any) {
			b.WriteString(c.([]any)[0].(string))
		}
	}
	return b.String(), strings.Count(b.String(), "\n")
}

func TestOutboxBatchesAreBounded(t *testing.T) {
	long := strings.Repeat("é", maxBatchBytes) // one line, twice the byte budget
	tests := []struct {
		name string
		fill func(o *outbox)
		want string
		ops  []string // non-text operations, in order
	}{
		{"small", func(o *outbox) { o.addText("", "a\nb\n") }, "a\nb\n", nil},
		{"many lines", func(o *outbox) {
			for range 3 * maxBatchLines {
				o.addText("", "x\n")
			}
		}, strings.Repeat("x\n", 3*maxBatchLines), nil},
		{"many bytes", func(o *outbox) {
			o.addText("", strings.Repeat(strings.Repeat("y", 99)+"\n", 5000))
		}, strings.Repeat(strings.Repeat("y", 99)+"\n", 5000), nil},
		{"long line of multibyte characters", func(o *outbox) { o.addText("", long) }, long, nil},
		{"highlights and operations in order", func(o *outbox) {
			o.addText("", strings.Repeat("a\n", maxBatchLines-1))
			o.addText("X", "b\nc\nd\n")
			o.add(op{"t": "rewrite"}, false)
			o.addText("", strings.Repeat("e\n", 2*maxBatchLines))
			o.add(op{"t": "turn_done"}, true)
		}, strings.Repeat("a\n", maxBatchLines-1) + "b\nc\nd\n" + strings.Repeat("e\n", 2*maxBatchLines), []string{
			fmt.Sprintf("rewrite@%d", 2*(maxBatchLines+2)),
			fmt.Sprintf("turn_done@%d", 2*(3*maxBatchLines+2)),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := newOutbox()
			tc.fill(o)
			var got strings.Builder
			var kinds []string
			for n := 0; ; n++ {
				if n > 1000 {
					t.Fatal("take never drains the outbox")
				}
				ops := o.take()
				if len(ops) == 0 {
					break
				}
				text, lines := batchText(ops)
				if len(text) > maxBatchBytes || lines > maxBatchLines {
					t.Fatalf("batch %d carries %d bytes, %d lines; limits %d, %d", n, len(text), lines, maxBatchBytes, maxBatchLines)
				}
				if !utf8.ValidString(text) {
					t.Fatalf("batch %d cuts a character", n)
				}
				for _, x := range ops {
					if x["t"] == "text" {
						s, _ := batchText([]op{x})
						got.WriteString(s)
					} else {
						kinds = append(kinds, fmt.Sprintf("%s@%d", x["t"], got.Len()))
					}
				}
			}
			if got.String() != tc.want {
				t.Errorf("text differs: got %d bytes, want %d", got.Len(), len(tc.want))
			}
			if strings.Join(kinds, ",") != strings.Join(tc.ops, ",") {
				t.Errorf("operations %v, want %v", kinds, tc.ops)
			}
		})
	}
}
