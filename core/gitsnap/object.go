package gitsnap

import (
	"compress/zlib"
	"context"
	"crypto/sha1" //nolint:gosec // git's object ids, not security
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// commitMessage is the body of a snapshot commit: author and committer are
// fixed, so that no user configuration is needed.
func commitBody(tree, message string, now time.Time) string {
	if !strings.HasSuffix(message, "\n") {
		message += "\n"
	}
	who := fmt.Sprintf("%s <%s> %d +0000", authorName, authorEmail, now.Unix())
	return "tree " + tree + "\nauthor " + who + "\ncommitter " + who + "\n\n" + message
}

// commitTree writes a commit of tree with message and returns its id: as
// a loose object written here when the repository allows it (a known
// object format, no shared permissions), else through `git commit-tree`.
func (r *repo) commitTree(ctx context.Context, tree, message string) (string, error) {
	if r.facts.hashLen != 0 && r.facts.objects != "" && !r.cfg.shared && len(tree) == 2*r.facts.hashLen {
		return writeLoose(r.facts.objects, r.facts.hashLen, "commit", commitBody(tree, message, time.Now()))
	}
	out, err := r.git(ctx, runOpts{stdin: strings.NewReader(message)}, "commit-tree", "--no-gpg-sign", tree)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// writeLoose stores an object as git does: zlib-compressed under
// objects/xx/yyyy…, written to a temporary file first and made read-only,
// so a reader never sees it half-written. An object already there is left
// as it is.
func writeLoose(objects string, hashLen int, kind, body string) (string, error) {
	var h hash.Hash
	if hashLen == 32 {
		h = sha256.New()
	} else {
		h = sha1.New() //nolint:gosec // git's object ids
	}
	header := fmt.Sprintf("%s %d\x00", kind, len(body))
	h.Write([]byte(header))
	h.Write([]byte(body))
	id := hex.EncodeToString(h.Sum(nil))
	dir := filepath.Join(objects, id[:2])
	final := filepath.Join(dir, id[2:])
	if _, err := os.Lstat(final); err == nil {
		return id, nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", fmt.Errorf("write object: %w", err)
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return "", fmt.Errorf("write object: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) //nolint:errcheck // gone after the rename
	zw := zlib.NewWriter(f)
	_, werr := zw.Write([]byte(header + body))
	if err := zw.Close(); werr == nil {
		werr = err
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o444)
	}
	if werr == nil {
		werr = os.Rename(tmp, final)
	}
	if werr != nil {
		return "", fmt.Errorf("write object: %w", werr)
	}
	return id, nil
}
