package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
)

// The engines whose memory membudget sizes, as --engine names them.
const (
	engineVLLM   = "vllm"
	engineSGLang = "sglang"
)

var engineNames = []string{engineVLLM, engineSGLang}

// engineUsage is --engine's help line.
const engineUsage = "the inference server whose rules size the serve: vllm, with vLLM's flags, or sglang, with SGLang's (--engine sglang -h lists them)"

// vllmOnlyFlags are the sizing commands' flags that only vLLM takes, each
// with SGLang's nearest setting where it has one, for the message that
// refuses it with --engine sglang.
var vllmOnlyFlags = map[string]string{
	"vllm-version":             "--sglang-version",
	"gpu-memory-utilization":   "--mem-fraction-static, a share of the memory free after distributed init that the weights and the KV pool take",
	"kv-cache-memory-bytes":    "--max-total-tokens, a cap on the KV pool in tokens",
	"max-model-len":            "--context-length",
	"allow-long-max-model-len": "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 in the environment",
	"max-num-seqs":             "--max-running-requests",
	"max-num-batched-tokens":   "--chunked-prefill-size",
	"block-size":               "--page-size",
	"enable-expert-parallel":   "",
	"q":                        "--quantization",
	"enforce-eager":            "--disable-cuda-graph",
	"async-scheduling":         "",
	"no-async-scheduling":      "",
	"swap-space":               "",
}

// sglangOnlyFlags are the sizing commands' flags that only SGLang takes,
// each with vLLM's nearest, for the message that refuses it under vLLM.
var sglangOnlyFlags = map[string]string{
	"sglang-version":       "--vllm-version",
	"mem-fraction-static":  "--gpu-memory-utilization, a share of the device's total",
	"context-length":       "--max-model-len",
	"max-running-requests": "--max-num-seqs",
	"max-total-tokens":     "--kv-cache-memory-bytes, the KV cache in bytes",
	"chunked-prefill-size": "--max-num-batched-tokens",
	"max-prefill-tokens":   "",
	"page-size":            "--block-size",
	"tp-size":              "--tensor-parallel-size",
	"pp-size":              "--pipeline-parallel-size",
	"dp-size":              "--data-parallel-size",
	"attention-backend":    "",
	"disable-cuda-graph":   "--enforce-eager",
	"cuda-graph-max-bs":    "",
	"enable-dp-attention":  "",
	"model-path":           "--model",
}

// engineOf finds --engine in args as the flag package will read it (the
// last one given wins) before any flag is registered: the engine decides
// which flags there are. It stops at a trailing server line, whose flags are
// the server's.
func engineOf(args []string) (string, error) {
	engine := engineVLLM
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			if serverLineStart(args[i:]) {
				break
			}
			continue
		}
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "engine" {
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return "", fmt.Errorf("--engine needs a value: one of %s", strings.Join(engineNames, ", "))
			}
			i++
			value = args[i]
		}
		engine = value
	}
	if !slices.Contains(engineNames, engine) {
		return "", fmt.Errorf("--engine %q: unknown engine; the engines are %s", engine, strings.Join(engineNames, ", "))
	}
	return engine, nil
}

// serverLineStart reports whether args begin a trailing server line:
// `vllm serve`, or SGLang's `python -m sglang.launch_server` with optional
// leading environment assignments.
func serverLineStart(args []string) bool {
	if len(args) >= 2 && args[0] == "vllm" && args[1] == "serve" {
		return true
	}
	for len(args) > 0 && isEnvAssignment(args[0]) {
		args = args[1:]
	}
	return len(args) >= 3 && isPython(args[0]) && args[1] == "-m" && args[2] == "sglang.launch_server"
}

func isPython(s string) bool {
	base := s[strings.LastIndex(s, "/")+1:]
	return base == "python" || base == "python3" || strings.HasPrefix(base, "python3.")
}

// isEnvAssignment reports whether s is a shell's NAME=value prefix.
func isEnvAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" || strings.HasPrefix(name, "-") {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// foreignFlag refuses the first flag of args that the other engine takes
// and this one does not, naming it and the engine; a flag neither takes is
// left to the flag package.
func foreignFlag(engine string, args []string) error {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			continue
		}
		asGiven, _, _ := strings.Cut(a, "=")
		name := strings.ReplaceAll(strings.TrimLeft(asGiven, "-"), "_", "-")
		if engine == engineSGLang {
			if nearest, ok := vllmOnlyFlags[name]; ok {
				msg := fmt.Sprintf("%s is vLLM's flag, and --engine sglang takes SGLang's", asGiven)
				if nearest != "" {
					msg += ": its nearest is " + nearest
				}
				return errors.New(msg)
			}
			continue
		}
		if nearest, ok := sglangOnlyFlags[name]; ok {
			msg := fmt.Sprintf("%s is SGLang's flag: give --engine sglang", asGiven)
			if nearest != "" {
				msg += ", or vLLM's nearest, " + nearest
			}
			return errors.New(msg + " (--engine vllm is the default)")
		}
	}
	return nil
}

// registerFor registers the flags of the engine args select: vLLM's (see
// register) or SGLang's (see registerSGLang), and --engine. A flag only the
// other engine takes, or an unknown engine, is an error naming it.
func (f *serveFlags) registerFor(fs *flag.FlagSet, args []string) error {
	engine, err := engineOf(args)
	if err != nil {
		return err
	}
	for i := range args {
		if engine == engineVLLM && serverLineStart(args[i:]) && args[i] != "vllm" {
			return errors.New("an SGLang `python -m sglang.launch_server` line needs --engine sglang (--engine vllm is the default)")
		}
	}
	if err := foreignFlag(engine, args); err != nil {
		return err
	}
	f.engine = engine
	if engine == engineSGLang {
		if err := unmodelledSGLangFlag(args); err != nil {
			return err
		}
		f.registerSGLang(fs)
	} else {
		f.register(fs)
	}
	// engineOf read the flag before parsing; parseServe checks that parsing
	// read the same (a --engine inside a server line is the server's).
	fs.StringVar(&f.engineParsed, "engine", engineVLLM, engineUsage)
	return nil
}
