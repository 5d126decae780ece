package hub

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// DefaultEndpoint is the Hub's address when HF_ENDPOINT is unset
// (huggingface_hub constants.py, _HF_DEFAULT_ENDPOINT).
const DefaultEndpoint = "https://huggingface.co"

// DefaultTimeout bounds each HTTP request, redirects and body included: the
// 10 s of huggingface_hub's DEFAULT_ETAG_TIMEOUT and DEFAULT_DOWNLOAD_TIMEOUT
// (constants.py).
const DefaultTimeout = 10 * time.Second

// DefaultRetries is how many times FromEnv lets a request be retried after a
// connection error, a timeout, HTTP 429 or 5xx. huggingface_hub's
// http_backoff allows 5 with waits up to 8 s; a sizing tool answers sooner.
const DefaultRetries = 3

// DefaultDeadline bounds a whole resolution (config.json, the quantization
// file, the index and every shard's header, retries and waits included): a
// Hub answering each request just under DefaultTimeout would otherwise
// stretch a 16-shard model to a minute. DeepSeek-V3's 163 shards, two
// range requests each, DefaultParallel at a time, take well under a minute
// on a working link; two leave room.
const DefaultDeadline = 2 * time.Minute

// DefaultParallel bounds how many shard headers are read at once.
const DefaultParallel = 8

// maxTokenFileBytes bounds the token file: Hub tokens are 37 characters
// ("hf_" and 34); 4 KiB leaves room for any other scheme and refuses a file
// that is plainly not a token.
const maxTokenFileBytes = 4 << 10

// Token is a Hub access token. It prints as "[redacted]" with every fmt verb
// and in JSON, so that a Resolver can be logged; only the Authorization
// header of a request to the endpoint carries its value.
type Token string

// String returns "[redacted]", or "" for no token.
func (t Token) String() string {
	if t == "" {
		return ""
	}
	return "[redacted]"
}

// GoString returns the redacted form for %#v.
func (t Token) GoString() string { return fmt.Sprintf("hub.Token(%q)", t.String()) }

// MarshalText returns the redacted form, so that JSON and other encoders
// never see the value.
func (t Token) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Resolver resolves a --model value and reads the checkpoint it names. The
// zero value of Timeout, Parallel, Endpoint and Backoff means the default;
// CacheDir is required for the cache and the Hub (FromEnv sets it).
type Resolver struct {
	// CacheDir is the Hugging Face hub cache, holding models--org--name.
	CacheDir string
	// Home is the user's home directory, shortened to "~" in messages.
	Home string
	// Endpoint is the Hub's base URL, without a trailing slash.
	Endpoint string
	// Token is sent as "Authorization: Bearer" to the endpoint's host only.
	Token Token
	// TokenSource names where Token came from (an environment variable or a
	// file path), for messages; never the token itself.
	TokenSource string
	// Offline forbids the network: the cache only (HF_HUB_OFFLINE=1).
	Offline bool
	// Client makes the requests; nil means a client on
	// http.DefaultTransport. Its redirect policy is replaced: this package
	// follows redirects itself.
	Client *http.Client
	// Timeout bounds each request attempt.
	Timeout time.Duration
	// Deadline bounds a whole Load or Resolve; 0 means DefaultDeadline.
	Deadline time.Duration
	// Retries is how many times a failed request is retried (0: never).
	Retries int
	// Backoff returns the wait before retry n (1, 2, ...); nil means
	// 500 ms doubling.
	Backoff func(retry int) time.Duration
	// Parallel bounds the shard headers read at once.
	Parallel int
	// Shipped returns a config.json that ships with the caller, by one of
	// ShippedIDs, and the path messages name it by.
	Shipped func(id string) (data []byte, path string, ok bool)
	// ShippedIDs lists the shipped models as org__name or org/name.
	ShippedIDs []string
	// ShippedQuantConfig returns the hf_quant_config.json that ships with
	// a shipped model, by one of ShippedIDs, and the path messages name it
	// by; ok is false when the model has none. Nil means none has one.
	ShippedQuantConfig func(id string) (data []byte, path string, ok bool)
	// ShippedProcessor returns a processor file (model.PreprocessorFile,
	// model.VideoPreprocessorFile) that ships with a shipped model, by one
	// of ShippedIDs and the file's name, and the path messages name it by;
	// ok is false when the model ships none. Nil means none ships one.
	ShippedProcessor func(id, file string) (data []byte, path string, ok bool)
}

func (r Resolver) withDefaults() Resolver {
	if r.Endpoint == "" {
		r.Endpoint = DefaultEndpoint
	}
	r.Endpoint = strings.TrimRight(r.Endpoint, "/")
	if r.Timeout <= 0 {
		r.Timeout = DefaultTimeout
	}
	if r.Deadline <= 0 {
		r.Deadline = DefaultDeadline
	}
	if r.Retries < 0 {
		r.Retries = 0
	}
	if r.Parallel <= 0 {
		r.Parallel = DefaultParallel
	}
	if r.Backoff == nil {
		r.Backoff = func(retry int) time.Duration { return 500 * time.Millisecond << min(retry-1, 4) }
	}
	return r
}

// FromEnv returns a Resolver configured as huggingface_hub configures itself
// (constants.py), from getenv (os.Getenv, or a map in tests):
//
//   - cache: HF_HUB_CACHE, else HUGGINGFACE_HUB_CACHE (legacy), else
//     $HF_HOME/hub, where HF_HOME defaults to $XDG_CACHE_HOME/huggingface,
//     else ~/.cache/huggingface; "~" and $VAR are expanded in each;
//   - endpoint: HF_ENDPOINT, else https://huggingface.co;
//   - token: HF_TOKEN, else HUGGING_FACE_HUB_TOKEN (legacy), else the file
//     at HF_TOKEN_PATH, else $HF_HOME/token; line breaks and surrounding
//     spaces are removed, as huggingface_hub's _clean_token does;
//   - offline: HF_HUB_OFFLINE, else TRANSFORMERS_OFFLINE, one of
//     1/ON/YES/TRUE or 0/OFF/NO/FALSE (any case); another value is an error.
//
// The home directory is HOME, else USERPROFILE. FromEnv reads the token file
// if there is one; it makes no request.
func FromEnv(getenv func(string) string) (Resolver, error) {
	r := Resolver{
		Home:     getenv("HOME"),
		Timeout:  DefaultTimeout,
		Retries:  DefaultRetries,
		Parallel: DefaultParallel,
		Endpoint: DefaultEndpoint,
	}
	if r.Home == "" {
		r.Home = getenv("USERPROFILE")
	}
	expand := func(v string) string { return expandVars(expandUser(v, r.Home), getenv) }

	hfHome := getenv("HF_HOME")
	if hfHome == "" {
		if xdg := getenv("XDG_CACHE_HOME"); xdg != "" {
			hfHome = filepath.Join(xdg, "huggingface")
		} else if r.Home != "" {
			hfHome = filepath.Join(r.Home, ".cache", "huggingface")
		}
	}
	if hfHome != "" {
		hfHome = expand(hfHome)
	}
	switch {
	case getenv("HF_HUB_CACHE") != "":
		r.CacheDir = expand(getenv("HF_HUB_CACHE"))
	case getenv("HUGGINGFACE_HUB_CACHE") != "":
		r.CacheDir = expand(getenv("HUGGINGFACE_HUB_CACHE"))
	case hfHome != "":
		r.CacheDir = filepath.Join(hfHome, "hub")
	default:
		return Resolver{}, fmt.Errorf("cannot locate the Hugging Face cache: HOME is not set (set HF_HUB_CACHE or HF_HOME)")
	}

	if e := getenv("HF_ENDPOINT"); e != "" {
		endpoint, err := checkEndpoint(e)
		if err != nil {
			return Resolver{}, err
		}
		r.Endpoint = endpoint
	}

	offline, name := getenv("HF_HUB_OFFLINE"), "HF_HUB_OFFLINE"
	if offline == "" {
		offline, name = getenv("TRANSFORMERS_OFFLINE"), "TRANSFORMERS_OFFLINE"
	}
	switch strings.ToUpper(strings.TrimSpace(offline)) {
	case "1", "ON", "YES", "TRUE":
		r.Offline = true
	case "", "0", "OFF", "NO", "FALSE":
	default:
		return Resolver{}, fmt.Errorf("%s=%q: want 1, ON, YES or TRUE (offline), or 0, OFF, NO or FALSE", name, offline)
	}

	token, source, err := findToken(getenv, expand, hfHome)
	if err != nil {
		return Resolver{}, err
	}
	r.Token, r.TokenSource = token, source
	return r, nil
}

// checkEndpoint validates HF_ENDPOINT: an http or https URL with a host, and
// no user info, query or fragment (user info would put a password into every
// message that names a URL).
func checkEndpoint(e string) (string, error) {
	u, err := url.Parse(strings.TrimRight(e, "/"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("HF_ENDPOINT=%q: want an http or https URL such as %s", e, DefaultEndpoint)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("HF_ENDPOINT: want a URL without user info, query or fragment (credentials go in HF_TOKEN)")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// findToken returns the token and where it came from, following
// huggingface_hub's get_token: the environment, then the token file.
func findToken(getenv func(string) string, expand func(string) string, hfHome string) (Token, string, error) {
	for _, name := range []string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"} {
		if t := cleanToken(getenv(name)); t != "" {
			if err := checkToken(t, name); err != nil {
				return "", "", err
			}
			return Token(t), name, nil
		}
	}
	path := getenv("HF_TOKEN_PATH")
	if path != "" {
		path = expand(path)
	} else if hfHome != "" {
		path = filepath.Join(hfHome, "token")
	} else {
		return "", "", nil
	}
	data, found, err := readRegular(path, maxTokenFileBytes)
	if err != nil {
		return "", "", fmt.Errorf("token file: %w", err)
	}
	if !found {
		return "", "", nil
	}
	t := cleanToken(string(data))
	if t == "" {
		return "", "", nil
	}
	if err := checkToken(t, path); err != nil {
		return "", "", err
	}
	return Token(t), path, nil
}

// cleanToken is huggingface_hub's _clean_token: line breaks removed, then
// surrounding spaces.
func cleanToken(t string) string {
	return strings.TrimSpace(strings.NewReplacer("\r", "", "\n", "").Replace(t))
}

// checkToken refuses a token that an HTTP header cannot carry, naming its
// source and never the token.
func checkToken(t, source string) error {
	for i := 0; i < len(t); i++ {
		if c := t[i]; c <= ' ' || c >= 0x7f {
			return fmt.Errorf("the token from %s has a character that an HTTP header cannot carry (byte %d)", source, i)
		}
	}
	return nil
}

// expandUser is Python's os.path.expanduser for "~" and "~/...".
func expandUser(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}

// expandVars is Python's os.path.expandvars: $name and ${name} are replaced
// by the variable's value; a reference to an unset (or empty) variable and a
// malformed one are left as written.
func expandVars(p string, getenv func(string) string) string {
	if !strings.Contains(p, "$") {
		return p
	}
	isName := func(c byte) bool {
		return c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		if p[i] != '$' {
			b.WriteByte(p[i])
			i++
			continue
		}
		name, next := "", i+1
		if next < len(p) && p[next] == '{' {
			if end := strings.IndexByte(p[next+1:], '}'); end >= 0 {
				name, next = p[next+1:next+1+end], next+2+end
			}
		} else {
			j := next
			for j < len(p) && isName(p[j]) {
				j++
			}
			name, next = p[next:j], j
		}
		switch v := getenv(name); {
		case name == "":
			b.WriteByte('$')
			next = i + 1
		case v == "":
			b.WriteString(p[i:next])
		default:
			b.WriteString(v)
		}
		i = next
	}
	return b.String()
}
