// Package hub resolves a --model value to a config.json and reads the
// tensor list of the model's safetensors checkpoint — from a directory, the
// Hugging Face cache, or the Hub — without ever reading the weights.
//
// # Resolution order
//
// [Resolver.Resolve] tries, in order, and says which one answered
// ([Source]):
//
//  1. a path: a config.json file, or a directory holding one;
//  2. a shipped model: an id among [Resolver.ShippedIDs], matched
//     case-insensitively as org/name or org__name;
//  3. the local Hugging Face cache: org/name[@revision], revision main by
//     default;
//  4. the Hub over HTTPS, unless offline.
//
// When nothing answers, the [*ResolveError] says what was tried and lists up
// to three shipped ids within a small edit distance ("did you mean").
//
// A ModelOpt checkpoint whose config.json has no quantization_config keeps
// its quantization in hf_quant_config.json beside it; [Model.HFQuantConfig]
// finds it from the same source, as vLLM does. A multimodal checkpoint's
// preprocessor_config.json and video_preprocessor_config.json, whose sizes
// vLLM's profile run reads for its dummy items, are found the same way
// ([Model.Processors]) and attached to its vision tower by [Resolver.Load].
//
// # Environment
//
// [FromEnv] reads the variables huggingface_hub reads (its constants.py):
// the cache is HF_HUB_CACHE, else $HF_HOME/hub, with HF_HOME defaulting to
// $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface; the endpoint is
// HF_ENDPOINT (https://huggingface.co); the token is HF_TOKEN, else the file
// at HF_TOKEN_PATH, else $HF_HOME/token; HF_HUB_OFFLINE=1 means the cache
// only. The token is sent as "Authorization: Bearer" to the endpoint's host
// and nowhere else — not to the CDN an LFS file redirects to — and never
// appears in an error, a message or a file ([Token] prints redacted).
//
// # Cache layout
//
// The cache is huggingface_hub's, shared with the user's Python tools
// (file_download.py; the "Manage huggingface_hub cache-system" guide):
//
//	<cache>/models--<org>--<name>/
//	  refs/<revision>             the commit the revision pointed to (no newline);
//	                              refs/pr/1 is a nested file
//	  blobs/<etag>                file contents, named by the Hub's ETag
//	                              (X-Linked-Etag for an LFS file: its sha256)
//	  snapshots/<commit>/<file>   relative symlinks to ../../blobs/<etag>
//	  .no_exist/<commit>/<file>   empty: the Hub said the file does not exist
//	  .membudget/headers/<commit>/<file>
//	                              membudget's own: a shard's size (8 bytes,
//	                              little-endian) and its first 8+N bytes
//
// What this package fetches (config.json, hf_quant_config.json,
// model.safetensors.index.json, the sentence-transformers and processor
// files) is
// written there as huggingface_hub writes it: a blob through a temporary
// "<etag>.<random>.incomplete" file, synced and renamed (huggingface_hub's
// own process-unique name, so a concurrent Python download never shares
// it); the snapshot link and the ref the same way, so that no reader ever
// sees a partial file. Shards are never downloaded: their headers are read
// by HTTP range requests (bytes 0-7 for the length N, then 8 to 8+N-1) and
// kept under .membudget/, a folder huggingface_hub's cache scan does not
// read and `hf cache delete` removes with the model. Reading the cache,
// every link must resolve inside the model's folder; a FIFO, a device or a
// directory where a file is expected is refused before it is opened; every
// read has a size cap.
//
// # Network
//
// Each request is bounded by [Resolver.Timeout] (10 s), retried at most
// [Resolver.Retries] times (3) after a connection error, a timeout, HTTP 429
// or 5xx, with a backoff the caller may replace. Redirects are followed by
// this package, at most 5, to https only (or http when the endpoint is
// http). HTTP 401 and 403 become a [*HubError] that says to set HF_TOKEN; a
// 404 names the missing model, revision or file from the Hub's
// X-Error-Code.
package hub
