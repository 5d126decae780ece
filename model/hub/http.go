package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"membudget/internal/untrusted"
)

// maxRedirects bounds the redirects one request follows: the Hub answers a
// renamed repo with one relative redirect and an LFS file with one to its
// CDN.
const maxRedirects = 5

// maxErrorMessage bounds the X-Error-Message text an error quotes.
const maxErrorMessage = 200

// Headers of the Hub's resolve endpoint (huggingface_hub constants.py).
const (
	headerRepoCommit = "X-Repo-Commit"
	headerLinkedEtag = "X-Linked-Etag"
	headerLinkedSize = "X-Linked-Size"
	headerErrorCode  = "X-Error-Code"
	headerErrorMsg   = "X-Error-Message"
)

// HubError is a request to the Hub that failed: an HTTP status, or no
// answer (Status 0, Err says why). Repo, Revision and File say what was
// asked for.
type HubError struct {
	Repo     string
	Revision string
	File     string
	// URL is the address asked, without its query.
	URL string
	// Status is the HTTP status, 0 when there was no answer.
	Status int
	// Code is the Hub's X-Error-Code: RepoNotFound, RevisionNotFound,
	// EntryNotFound, GatedRepo.
	Code string
	// Message is the Hub's X-Error-Message, shortened.
	Message string
	// Endpoint is the Hub's base URL.
	Endpoint string
	// TokenSource names where the token that was sent came from; "" when
	// none was sent.
	TokenSource string
	// Tries is how many attempts were made.
	Tries int
	// Err is the transport error when Status is 0.
	Err error
	// RetryAfter is the wait the Hub asked for with Retry-After on a 429
	// or 503 (0 when it asked none).
	RetryAfter time.Duration
	// unreachable: no answer at all (see ErrUnreachable).
	unreachable bool
}

// Unwrap returns the transport error, for errors.Is(err, context.Canceled).
func (e *HubError) Unwrap() error { return e.Err }

// ErrUnreachable matches (errors.Is) a [*HubError] for a request that got
// no answer at all: a connection refused or reset, a name that does not
// resolve, an attempt that timed out. huggingface_hub falls back to the
// cache on these (file_download.py, _get_metadata_or_catch_error, on
// requests' ConnectionError and Timeout), and so does this package for a
// cached model (see [Model.Tensors]).
var ErrUnreachable = errors.New("the Hub cannot be reached")

// Is reports whether e is ErrUnreachable.
func (e *HubError) Is(target error) bool { return target == ErrUnreachable && e.unreachable }

// Error says what failed and, for 401 and 403, what to do about it.
func (e *HubError) Error() string {
	var s string
	model := e.Repo
	switch {
	case e.Status == 0:
		s = fmt.Sprintf("GET %s: %v", e.URL, e.Err)
	case e.Code == "GatedRepo":
		s = fmt.Sprintf("%s is a gated model (HTTP %d): request access at %s/%s, then set HF_TOKEN to a token of the account that has it", model, e.Status, e.Endpoint, e.Repo)
		if e.TokenSource != "" {
			s += fmt.Sprintf(" (the token from %s has no access yet)", e.TokenSource)
		}
	case (e.Status == 401 || e.Status == 403) && e.TokenSource != "":
		s = fmt.Sprintf("the Hub refused the token from %s for %s (HTTP %d): it is invalid or has no access to this model; set HF_TOKEN to a token that has", e.TokenSource, model, e.Status)
	case e.Status == 401 || e.Status == 403:
		s = fmt.Sprintf("%s is gated, private or missing on %s (HTTP %d without a token): set HF_TOKEN to a token with access", model, e.Endpoint, e.Status)
	case e.Status == 404 && e.Code == "RepoNotFound":
		s = fmt.Sprintf("no model %s on %s (HTTP 404)", model, e.Endpoint)
	case e.Status == 404 && e.Code == "RevisionNotFound":
		s = fmt.Sprintf("model %s has no revision %q (HTTP 404)", model, e.Revision)
	case e.Status == 404 && e.Code == "EntryNotFound":
		s = fmt.Sprintf("model %s has no file %s at revision %s (HTTP 404)", model, e.File, e.Revision)
	case e.Status == 404:
		s = fmt.Sprintf("%s: not found (HTTP 404)", e.URL)
	default:
		s = fmt.Sprintf("GET %s: HTTP %d", e.URL, e.Status)
	}
	if e.Message != "" {
		s += fmt.Sprintf(" [Hub: %q]", e.Message)
	}
	if e.Tries > 1 {
		s += fmt.Sprintf(" (%d tries)", e.Tries)
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (the Hub asked to retry after %v)", e.RetryAfter)
	}
	return s
}

// asked says what a request is for, for errors.
type asked struct {
	repo, revision, file string
}

// answer is a successful response, read.
type answer struct {
	status int
	body   []byte
	// commit and etag come from the Hub's own answer (not a CDN's):
	// X-Repo-Commit, and X-Linked-Etag before ETag, as huggingface_hub's
	// get_hf_file_metadata reads them.
	commit string
	etag   string
	// size is the whole file's size; -1 when no header gave it.
	size int64
}

// fileURL is the resolve URL of a file: the revision escaped whole (a
// refs/pr/1 becomes refs%2Fpr%2F1) and the file path by segment, as
// huggingface_hub's hf_hub_url quotes them.
func (r *Resolver) fileURL(repo, revision, file string) string {
	segs := strings.Split(file, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return r.Endpoint + "/" + repo + "/resolve/" + url.PathEscape(revision) + "/" + strings.Join(segs, "/")
}

// client returns r.Client (or a default one) with redirects left to fetch.
func (r *Resolver) client() *http.Client {
	c := &http.Client{}
	if r.Client != nil {
		*c = *r.Client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// get fetches a URL, the bytes [from, to] of it when to >= 0, reading at
// most limit bytes of body. It retries a connection error, a timeout, HTTP
// 429 and 5xx up to r.Retries times, each attempt bounded by r.Timeout.
func (r *Resolver) get(ctx context.Context, what asked, u string, from, to, limit int64) (*answer, error) {
	var last error
	for try := 1; ; try++ {
		a, err, again := r.attempt(ctx, what, u, from, to, limit)
		if err == nil {
			return a, nil
		}
		last = err
		var he *HubError
		if errors.As(err, &he) {
			he.Tries = try
		}
		if !again || try > r.Retries || ctx.Err() != nil {
			return nil, r.scrub(last)
		}
		wait := r.Backoff(try)
		if he != nil && he.RetryAfter > wait {
			// The Hub's Retry-After, as huggingface_hub's http_backoff
			// honours it, unless it is longer than a sizing tool waits or
			// runs past the resolution's deadline: then its error now.
			if he.RetryAfter > maxRetryAfter {
				return nil, r.scrub(last)
			}
			if d, ok := ctx.Deadline(); ok && time.Until(d) < he.RetryAfter {
				return nil, r.scrub(last)
			}
			wait = he.RetryAfter
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, r.scrub(last)
		}
	}
}

// scrub replaces the token anywhere in an error with "[redacted]": a server
// may echo a request's headers into its error message.
func (r *Resolver) scrub(err error) error {
	if err == nil || r.Token == "" || !strings.Contains(err.Error(), string(r.Token)) {
		return err
	}
	return &scrubbed{msg: strings.ReplaceAll(err.Error(), string(r.Token), "[redacted]"), err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (s *scrubbed) Error() string { return s.msg }
func (s *scrubbed) Unwrap() error { return s.err }

// sameOrigin reports whether u is on the endpoint's scheme, host and port:
// the only place the token goes. This package follows redirects itself
// because net/http's client would keep Authorization on a redirect to a
// subdomain, such as the Hub's CDN; huggingface_hub drops it whenever the
// host changes (file_download.py, _get_metadata_or_catch_error).
func sameOrigin(u, endpoint *url.URL) bool {
	return strings.EqualFold(u.Scheme, endpoint.Scheme) && strings.EqualFold(u.Host, endpoint.Host)
}

// attempt makes one try, following redirects; again says whether a retry
// may help.
func (r *Resolver) attempt(ctx context.Context, what asked, raw string, from, to, limit int64) (_ *answer, _ error, again bool) {
	endpoint, err := url.Parse(r.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("endpoint %q: %v", r.Endpoint, err), false
	}
	actx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	fail := func(u *url.URL, status int, h http.Header, cause error) *HubError {
		e := &HubError{Repo: what.repo, Revision: what.revision, File: what.file, URL: redactURL(u),
			Status: status, Endpoint: r.Endpoint, Err: cause}
		if h != nil {
			e.Code = h.Get(headerErrorCode)
			e.Message = shorten(h.Get(headerErrorMsg))
		}
		if r.Token != "" && sameOrigin(u, endpoint) {
			e.TokenSource = r.TokenSource
			if e.TokenSource == "" {
				e.TokenSource = "the Resolver"
			}
		}
		return e
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("bad URL for %s: %v", what.file, err), false
	}
	out := &answer{size: -1}
	client := r.client()
	for hop := 0; ; hop++ {
		if hop > maxRedirects {
			return nil, fail(u, 0, nil, fmt.Errorf("more than %d redirects", maxRedirects)), false
		}
		req, err := http.NewRequestWithContext(actx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, fail(u, 0, nil, err), false
		}
		req.Header.Set("User-Agent", "membudget")
		// identity: a gzip body would make Range offsets and Content-Length
		// meaningless (and Go would decompress it unasked).
		req.Header.Set("Accept-Encoding", "identity")
		if to >= 0 {
			req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", from, to))
		}
		hub := sameOrigin(u, endpoint)
		if hub && r.Token != "" {
			req.Header.Set("Authorization", "Bearer "+string(r.Token))
		}
		resp, err := client.Do(req)
		if err != nil {
			switch {
			case ctx.Err() != nil:
				// The cause: the resolution's deadline (see
				// [Resolver.Deadline]) says so, a cancel is ctx.Err().
				return nil, fail(u, 0, nil, context.Cause(ctx)), false
			case actx.Err() != nil:
				e := fail(u, 0, nil, fmt.Errorf("no complete answer within %v", r.Timeout))
				e.unreachable = true
				return nil, e, true
			}
			// The *url.Error's own text repeats the URL with its query.
			if inner := errors.Unwrap(err); inner != nil {
				err = inner
			}
			e := fail(u, 0, nil, err)
			e.unreachable = true
			return nil, e, true
		}
		if hub {
			if c := resp.Header.Get(headerRepoCommit); c != "" {
				out.commit = c
			}
			if e := normalizeEtag(resp.Header.Get(headerLinkedEtag), resp.Header.Get("ETag")); e != "" {
				out.etag = e
			}
			if n, err := strconv.ParseInt(resp.Header.Get(headerLinkedSize), 10, 64); err == nil && n >= 0 {
				out.size = n
			}
		}
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			next, err := resp.Location()
			discard(resp)
			if err != nil {
				return nil, fail(u, resp.StatusCode, resp.Header, fmt.Errorf("redirect without a usable Location: %v", err)), false
			}
			if next.Scheme != "https" && !(next.Scheme == "http" && endpoint.Scheme == "http") {
				return nil, fail(u, 0, nil, fmt.Errorf("redirect to %s refused: only https is followed", redactURL(next))), false
			}
			u = next
			continue
		case http.StatusOK, http.StatusPartialContent:
			err := readBody(resp, out, from, to, limit)
			resp.Body.Close()
			if err != nil {
				// An answer too large or one that breaks the protocol
				// would be the same again; a body cut short may not.
				retry := !errors.Is(err, errTooLarge) && !errors.Is(err, errProtocol)
				if actx.Err() != nil && ctx.Err() == nil {
					err = fmt.Errorf("no complete answer within %v", r.Timeout)
				}
				return nil, fail(u, 0, nil, err), retry
			}
			out.status = resp.StatusCode
			return out, nil, false
		case http.StatusRequestedRangeNotSatisfiable:
			// The file is shorter than from: an empty answer, whose size
			// Content-Range gives ("bytes */SIZE").
			if n, ok := rangeTotal(resp.Header.Get("Content-Range")); ok {
				out.size = n
			}
			discard(resp)
			out.status = resp.StatusCode
			return out, nil, false
		}
		discard(resp)
		// A 4xx other than 429 says the same thing again: only 429 and
		// 5xx are retried (huggingface_hub's http_backoff retries 429, 500,
		// 502, 503 and 504).
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		e := fail(u, resp.StatusCode, resp.Header, nil)
		if retry {
			e.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
		return nil, e, retry
	}
}

var errTooLarge = errors.New("answer larger than expected")

// errProtocol wraps an answer that breaks the protocol the same way every
// time (a Content-Range for other bytes than asked): not retried.
var errProtocol = errors.New("the answer breaks the protocol")

// maxRetryAfter is the longest Retry-After this package waits for: longer,
// the error is returned at once (a sizing tool answers sooner).
const maxRetryAfter = 30 * time.Second

// retryAfter reads a Retry-After header, delay-seconds or an HTTP date
// (RFC 9110, 10.2.3), as a wait from now; 0 when absent or unreadable.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if n, err := strconv.ParseUint(h, 10, 32); err == nil {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// readBody reads a 200 or 206 answer into out: a whole file (at most limit
// bytes), or the range [from, to] from a 206 whose Content-Range matches, or
// from a 200 that ignored the Range header (its first to+1 bytes, then
// stop).
func readBody(resp *http.Response, out *answer, from, to, limit int64) error {
	if to < 0 {
		linked := out.size // X-Linked-Size, when the Hub gave one
		if resp.ContentLength > limit {
			return fmt.Errorf("%w: %d bytes, more than the %d this reads", errTooLarge, resp.ContentLength, limit)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
		if err != nil {
			return err
		}
		if int64(len(body)) > limit {
			return fmt.Errorf("%w: more than the %d bytes this reads", errTooLarge, limit)
		}
		// A body cut short without an error (no Content-Length, or a
		// server that closed early) would be cached as the file: its
		// length and its ETag are checked first, and a mismatch retried.
		if linked >= 0 && int64(len(body)) != linked {
			return fmt.Errorf("%d bytes of a %d-byte file (X-Linked-Size): cut short", len(body), linked)
		}
		if match, known := etagMatches(out.etag, body); known && !match {
			return fmt.Errorf("the %d bytes received do not match the file's ETag %s: cut short or changed", len(body), out.etag)
		}
		out.body, out.size = body, int64(len(body))
		return nil
	}
	want := to - from + 1
	if want > limit {
		return fmt.Errorf("%w: a range of %d bytes, more than the %d this reads", errTooLarge, want, limit)
	}
	if resp.StatusCode == http.StatusPartialContent {
		start, end, total, ok := contentRange(resp.Header.Get("Content-Range"))
		if !ok || start != from || end > to || end < start {
			return fmt.Errorf("%w: asked for bytes %d-%d, got Content-Range %s", errProtocol, from, to, untrusted.Quote(resp.Header.Get("Content-Range")))
		}
		if total >= 0 {
			out.size = total
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, end-start+2))
		if err != nil {
			return err
		}
		if int64(len(body)) != end-start+1 {
			return fmt.Errorf("Content-Range %s but %d bytes", untrusted.Quote(resp.Header.Get("Content-Range")), len(body))
		}
		out.body = body
		return nil
	}
	// A 200: the server ignored Range; read up to the range's end only.
	if resp.ContentLength >= 0 {
		out.size = resp.ContentLength
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, to+1))
	if err != nil {
		return err
	}
	if int64(len(body)) > from {
		out.body = body[from:]
	} else {
		out.body = nil
	}
	return nil
}

// contentRange parses "bytes START-END/TOTAL" (TOTAL may be "*": -1).
func contentRange(h string) (start, end, total int64, ok bool) {
	spec, found := strings.CutPrefix(h, "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	rng, tot, found := strings.Cut(spec, "/")
	if !found {
		return 0, 0, 0, false
	}
	a, b, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, 0, false
	}
	start, err1 := strconv.ParseInt(a, 10, 64)
	end, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || start < 0 {
		return 0, 0, 0, false
	}
	total = -1
	if tot != "*" {
		t, err := strconv.ParseInt(tot, 10, 64)
		if err != nil || t < 0 {
			return 0, 0, 0, false
		}
		total = t
	}
	return start, end, total, true
}

// rangeTotal parses the "bytes */TOTAL" of a 416 answer.
func rangeTotal(h string) (int64, bool) {
	t, found := strings.CutPrefix(h, "bytes */")
	if !found {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, 64)
	return n, err == nil && n >= 0
}

// normalizeEtag is huggingface_hub's _normalize_etag on X-Linked-Etag, else
// ETag: a weak "W/" prefix and the quotes removed.
func normalizeEtag(linked, etag string) string {
	e := linked
	if e == "" {
		e = etag
	}
	e = strings.TrimPrefix(e, "W/")
	return strings.Trim(e, `"`)
}

// discard drains a little of a body so the connection can be reused, and
// closes it.
func discard(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
}

// redactURL drops the query (a CDN URL carries a signature there) and any
// user info.
func redactURL(u *url.URL) string {
	c := *u
	c.RawQuery, c.ForceQuery, c.Fragment, c.User = "", false, "", nil
	return c.String()
}

// shorten keeps printable ASCII of a server's message, at most
// maxErrorMessage bytes.
func shorten(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r > '~' {
			return -1
		}
		return r
	}, s)
	if len(s) > maxErrorMessage {
		s = s[:maxErrorMessage] + "..."
	}
	return s
}
