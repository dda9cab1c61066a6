package nvimhost

import (
	"github.com/coder-nvim/coder-nvim/core/reviewcomments"
)

// reviewCommentRequest keeps a comment on a hunk under review and
// returns how many are waiting.
func (h *host) reviewCommentRequest(c reviewcomments.Comment) (int, error) {
	sess, err := h.session()
	if err != nil {
		return 0, err
	}
	return sess.AddReviewComment(c)
}

// reviewCommentsRequest lists the comments waiting.
func (h *host) reviewCommentsRequest() ([]reviewcomments.Comment, error) {
	sess, err := h.session()
	if err != nil {
		return nil, err
	}
	return sess.ReviewComments(), nil
}

// reviewSend sends every waiting comment as one message, the way typed
// input goes (queued behind a running turn; given back to the input if
// it cannot go, so nothing is lost).
func (h *host) reviewSend() {
	sess, err := h.session()
	if err != nil {
		h.out.add(op{"t": "notify", "level": "error", "msg": "coder: " + err.Error()}, true)
		return
	}
	msg, _, err := sess.TakeReviewComments()
	if err != nil {
		h.out.add(op{"t": "notify", "level": "warn", "msg": "coder: " + err.Error()}, true)
		return
	}
	h.out.add(op{"t": "review_comments_sent"}, true)
	h.submit(msg, nil)
}
