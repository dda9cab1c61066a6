package agent

import (
	"errors"

	"github.com/coder-nvim/coder-nvim/core/reviewcomments"
)

// AddReviewComment keeps the user's comment on a hunk until
// SendReviewComments; it returns how many are waiting.
func (s *Session) AddReviewComment(c reviewcomments.Comment) (int, error) {
	return s.comments.Add(c)
}

// ReviewComments are the comments waiting.
func (s *Session) ReviewComments() []reviewcomments.Comment { return s.comments.List() }

// TakeReviewComments takes every waiting comment as the one user
// message that sends them (one round for the model), for the front end
// to submit as it submits typed input; n is how many it holds.
func (s *Session) TakeReviewComments() (message string, n int, err error) {
	cs := s.comments.Take()
	if len(cs) == 0 {
		return "", 0, errors.New("no review comments waiting (gc on a hunk under review adds one)")
	}
	return reviewcomments.Message(cs), len(cs), nil
}
