package provider

import (
	"encoding/json"
	"reflect"
	"testing"
)

var decodeTextSeeds = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":"line 0000001 xx\n"},"finish_reason":null}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}`,
	`{"choices":[{"delta":{"reasoning_content":"think"}}],"system_fingerprint":"fp","usage":null}`,
	`{"choices":[{"delta":{"reasoning":"t","content":null,"tool_calls":null,"refusal":null}}]}`,
	`{"choices":[{"delta":{},"finish_reason":"stop"}]}`,
	`{"choices":[]}`,
	`{"choices":[{"delta":{"content":"\u00e9\ud83d\ude00 \"q\" \\ \t"}}]}`,
	"{\"choices\":[{\"delta\":{\"content\":\"bad \xff utf8\"}}]}",
	`{"choices":[{"delta":{"Content":"case"}}]}`,
	`{"Choices":[{"delta":{"content":"case"}}]}`,
	`{"choices":[{"delta":{"content":"a","content":"b"}}]}`,
	`{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":"{}"}}]}}]}`,
	`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
	`{"error":{"message":"boom"}}`,
	`{"choices":[{"delta":{"content":5}}]}`,
	`{"choices":null}`,
	`{"choices":[{"delta":null}]}`,
	`{"choices":[{"delta":{"content":"x"},"finish_reason":7}]}`,
	`{"x":{"y":[1,"]}",{"z":"\"{"}]},"choices":[{"delta":{"content":"after nesting"}}]}`,
	`{"choices":[{"delta":{"conte\u006et":"escaped key"}}]}`,
	`{"choices":[{"delta":{"reaſoning":"long s"}}]}`,
	`{"created":-0.5e+10,"n":[0,1.25,-3E-2,true,false,null,{},[]],"choices":[{"delta":{"content":"numbers"}}]}`,
	`{"a":01,"choices":[]}`,
	`{"a":1.,"choices":[]}`,
	`{"a":-,"choices":[]}`,
	`{"a":tru,"choices":[]}`,
	"{\"a\":\"\x01\",\"choices\":[]}",
	`{"a":"\'","choices":[]}`,
	`{"a":"\u12G4","choices":[]}`,
	`{"choices":[{"delta":{"content":"x"}}]} x`,
	`{"choices":[{"delta":{"content":"x"}}]}{}`,
	`{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"choices":[]}`,
	`{"a":{"b":1,},"choices":[]}`,
	`{"a":[1,],"choices":[]}`,
	`{,"choices":[]}`,
	`{"choices":[{"delta":{"content":"\b\f\n\r\t\/\\\""}}]}`,
	` { "choices" : [ { "delta" : { "content" : "spaced" } , "finish_reason" : "length" } ] } `,
	`{"choices":[{"delta":{"content":"x"}}]`,
	`[]`,
	`null`,
	``,
}

// decodeText's events decode exactly as json.Unmarshal decodes them; it
// takes the common ones.
func TestDecodeText(t *testing.T) {
	for i, s := range decodeTextSeeds[:7] {
		var c streamChunk
		if !decodeText([]byte(s), &c, new([]byte)) {
			t.Errorf("seed %d not taken by the fast path: %s", i, s)
		}
	}
	for _, s := range decodeTextSeeds {
		checkDecodeText(t, []byte(s))
	}
}

func FuzzDecodeText(f *testing.F) {
	for _, s := range decodeTextSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecodeText)
}

func checkDecodeText(t *testing.T, raw []byte) {
	var fast streamChunk
	if !decodeText(raw, &fast, new([]byte)) {
		return
	}
	var slow streamChunk
	if err := json.Unmarshal(raw, &slow); err != nil {
		t.Fatalf("fast path took what Unmarshal refuses (%v): %q", err, raw)
	}
	// An absent or empty choices array is the same to add.
	if len(fast.Choices) == 0 && len(slow.Choices) == 0 {
		fast.Choices, slow.Choices = nil, nil
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\nfast %+v\nslow %+v", raw, fast, slow)
	}
}
