package check

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// readYAML reads a YAML stream: its documents are Kubernetes objects (a
// "kind"), lists of them, or a docker-compose file ("services"); other
// documents (Helm values, configuration) hold no server and are skipped.
func readYAML(file string, data []byte, o Options) ([]Server, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var servers []Server
	budget := MaxNodes
	for docs := 0; ; docs++ {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &ReadError{File: file, Err: fmt.Errorf("not YAML: %w", err)}
		}
		if docs == MaxDocuments {
			return nil, &ReadError{File: file, Line: doc.Line, Err: fmt.Errorf("more than %d YAML documents: not read", MaxDocuments)}
		}
		if err := bound(&doc, 0, &budget); err != nil {
			return nil, &ReadError{File: file, Line: doc.Line, Err: err}
		}
		r := &reader{file: file, o: o}
		r.document(&doc)
		servers = append(servers, r.servers...)
	}
	sortServers(servers)
	return servers, nil
}

// bound walks n as the reader may, aliases followed, and refuses it once
// the walk exceeds the nodes left in budget or MaxDepth: what the reader
// then walks is bounded by the same figures.
func bound(n *yaml.Node, depth int, budget *int) error {
	if depth > MaxDepth {
		return fmt.Errorf("YAML nested deeper than %d levels: not read", MaxDepth)
	}
	*budget--
	if *budget < 0 {
		return fmt.Errorf("more than %d YAML nodes, aliases expanded: not read (an alias bomb?)", MaxNodes)
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return errors.New("an alias to nothing")
		}
		return bound(n.Alias, depth+1, budget)
	}
	for _, c := range n.Content {
		if err := bound(c, depth+1, budget); err != nil {
			return err
		}
	}
	return nil
}

// reader reads one document's servers.
type reader struct {
	file    string
	o       Options
	servers []Server
}

// deref follows aliases (bound has checked they end) and documents.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && (n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
			continue
		}
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	return n
}

// get returns the value of key in mapping m, nil when m is not a mapping
// or has no key.
func get(m *yaml.Node, key string) *yaml.Node {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := deref(m.Content[i]); k != nil && k.Kind == yaml.ScalarNode && k.Value == key {
			return deref(m.Content[i+1])
		}
	}
	return nil
}

// path follows keys from m.
func path(m *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		m = get(m, k)
	}
	return m
}

// scalar returns n's value when it is a scalar.
func scalar(n *yaml.Node) (string, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Value, true
}

// items returns a sequence's items, nil for anything else.
func items(n *yaml.Node) []*yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.Node, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, deref(c))
	}
	return out
}

// pairs returns a mapping's keys and values, in order.
func pairs(n *yaml.Node) (keys []*yaml.Node, values []*yaml.Node) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, deref(n.Content[i]))
		values = append(values, deref(n.Content[i+1]))
	}
	return keys, values
}

func (r *reader) document(doc *yaml.Node) {
	root := deref(doc)
	kind, _ := scalar(get(root, "kind"))
	switch {
	case kind == "List" || strings.HasSuffix(kind, "List") && get(root, "items") != nil:
		for _, it := range items(get(root, "items")) {
			r.document(it)
		}
	case kind != "":
		name, _ := scalar(path(root, "metadata", "name"))
		r.object(kind+"/"+name, kind, root)
	case get(root, "services") != nil:
		r.compose(root)
	}
}

// object reads a Kubernetes object: a LeaderWorkerSet's two templates
// together; any other kind's pod specs (every mapping with a list of
// containers: a Deployment's template, a KServe predictor or
// ServingRuntime) one by one.
func (r *reader) object(name, kind string, root *yaml.Node) {
	if kind == "LeaderWorkerSet" {
		r.leaderWorkerSet(name, root)
		return
	}
	if m := path(root, "spec", "predictor", "model"); kind == "InferenceService" && m != nil && r.o.Skipped != nil {
		// The runtime's container launches the server, with the model
		// filled in: its ServingRuntime is read when it is among the
		// files checked.
		r.o.Skipped(fmt.Sprintf("%s:%d", r.file, m.Line), name+"'s predictor.model runs a KServe ServingRuntime's container, not read here: check the ServingRuntime's manifest")
	}
	r.walkPodSpecs(name, root, 0)
}

func (r *reader) walkPodSpecs(name string, n *yaml.Node, depth int) {
	n = deref(n)
	if n == nil || depth > MaxDepth {
		return
	}
	if n.Kind == yaml.MappingNode && items(get(n, "containers")) != nil {
		r.podSpec(name, n, nil)
		return
	}
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		for _, c := range n.Content {
			r.walkPodSpecs(name, c, depth+1)
		}
	}
}

// leaderWorkerSet reads a LeaderWorkerSet (sigs.k8s.io/lws, API
// leaderworkerset.x-k8s.io/v1): a group of size pods, the leader from
// leaderTemplate (workerTemplate when there is none) and size-1 workers
// from workerTemplate; the server is launched on the leader, and its GPUs
// are the group's.
func (r *reader) leaderWorkerSet(name string, root *yaml.Node) {
	lwt := path(root, "spec", "leaderWorkerTemplate")
	size := uint64(1)
	if s, ok := scalar(get(lwt, "size")); ok {
		if v, err := strconv.ParseUint(s, 10, 64); err == nil && v > 0 {
			size = v
		}
	}
	worker := path(lwt, "workerTemplate", "spec")
	leader := path(lwt, "leaderTemplate", "spec")
	if leader == nil {
		leader = worker
	}
	group := &lwsGroup{size: size}
	if worker != nil {
		group.workerGPUs, group.workerLine, _ = podGPUs(worker)
	}
	if leader != nil {
		r.podSpec(name, leader, group)
	}
	if worker != nil && leader != worker {
		// A worker that runs a server of its own is read too.
		r.podSpec(name, worker, nil)
	}
}

// lwsGroup is a LeaderWorkerSet's group, as the leader's server takes it.
type lwsGroup struct {
	size       uint64
	workerGPUs uint64
	workerLine int
}

// podGPUs is the most GPUs a pod spec's containers request (see
// [containerGPUs]), and the line of that request.
func podGPUs(spec *yaml.Node) (gpus uint64, line int, resource string) {
	for _, c := range items(get(spec, "containers")) {
		if g, l, res, ok := containerGPUs(c); ok && g >= gpus {
			gpus, line, resource = g, l, res
		}
	}
	return gpus, line, resource
}

// gpuResources are the extended resources GPUs are requested by: NVIDIA's
// device plugin (NVIDIA/k8s-device-plugin README, "nvidia.com/gpu") and
// AMD's (ROCm/k8s-device-plugin README, "amd.com/gpu").
var gpuResources = []string{"nvidia.com/gpu", "amd.com/gpu"}

// containerGPUs reads a container's GPU limit, or its request when it
// gives no limit (Kubernetes requires the two equal for an extended
// resource: kubernetes.io/docs/concepts/configuration/manage-resources-containers,
// "Extended resources").
func containerGPUs(c *yaml.Node) (gpus uint64, line int, resource string, ok bool) {
	for _, which := range []string{"limits", "requests"} {
		for _, res := range gpuResources {
			n := path(c, "resources", which, res)
			v, isScalar := scalar(n)
			if !isScalar {
				continue
			}
			g, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return 0, n.Line, res, false
			}
			return g, n.Line, res + " " + strings.TrimSuffix(which, "s"), true
		}
	}
	return 0, 0, "", false
}

// container is a container's launch words and environment, as read.
type container struct {
	name, image string
	words       []word
	scriptNode  *yaml.Node // the script of sh -c, when the words are a shell's
	script      string     // its text, $(NAME) expanded as the kubelet does
	env         map[string]string
	unset       []string
	line        int
}

// isShell reports whether words run a script given as the next word:
// sh -c, bash -lc, /bin/sh -ec ...
func isShell(words []word) bool {
	if len(words) < 3 {
		return false
	}
	base := words[0].text[strings.LastIndex(words[0].text, "/")+1:]
	return (base == "sh" || base == "bash" || base == "dash" || base == "zsh") &&
		strings.HasPrefix(words[1].text, "-") && strings.Contains(words[1].text, "c")
}

// vllmImage reports whether image is vLLM's OpenAI-compatible server
// image (docker.io/vllm/vllm-openai, and its ROCm build vllm/vllm-openai-rocm),
// whose entrypoint is `vllm serve` (docker/Dockerfile at v0.10.0:
// ENTRYPOINT ["vllm", "serve"]), so that its args begin with the model or
// a flag.
func vllmImage(image string) bool {
	repo, _, _ := strings.Cut(image, "@")
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	base := repo[strings.LastIndex(repo, "/")+1:]
	return base == "vllm-openai" || base == "vllm-openai-rocm"
}

// seqWords reads a list of scalars as words with their lines, expanding
// Kubernetes' $(NAME) references from env (what the kubelet expands:
// kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container,
// "Use environment variables to define arguments").
func seqWords(n *yaml.Node, env map[string]string, kube bool) []word {
	var out []word
	for _, it := range items(n) {
		v, _ := scalar(it)
		w := word{text: v, line: it.Line}
		if kube {
			w.text, w.unknown = expandKube(v, env)
		}
		out = append(out, w)
	}
	return out
}

// expandKube expands $(NAME) from env; $$ is a literal $. An unknown name
// is left as written and named.
func expandKube(s string, env map[string]string) (string, string) {
	var b strings.Builder
	unknown := ""
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		if s[i+1] == '$' {
			b.WriteByte('$')
			i++
			continue
		}
		end := strings.IndexByte(s[i:], ')')
		if s[i+1] != '(' || end < 0 {
			b.WriteByte(s[i])
			continue
		}
		name := s[i+2 : i+end]
		if v, ok := env[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i : i+end+1])
			if unknown == "" {
				unknown = "$(" + name + ")"
			}
		}
		i += end
	}
	return b.String(), unknown
}

// podSpec reads the servers of one pod spec's containers; group is the
// LeaderWorkerSet the pod leads, nil for any other.
func (r *reader) podSpec(name string, spec *yaml.Node, group *lwsGroup) {
	sel, selErr := selectGPU(spec, r.o.Classes)
	for _, cn := range items(get(spec, "containers")) {
		c := container{line: cn.Line, env: map[string]string{}}
		c.name, _ = scalar(get(cn, "name"))
		c.image, _ = scalar(get(cn, "image"))
		for _, e := range items(get(cn, "env")) {
			k, _ := scalar(get(e, "name"))
			if v, ok := scalar(get(e, "value")); ok {
				c.env[k] = v
			} else if get(e, "valueFrom") != nil {
				c.unset = append(c.unset, k)
			} else {
				c.env[k] = ""
			}
		}
		command, args := get(cn, "command"), get(cn, "args")
		c.words = append(seqWords(command, c.env, true), seqWords(args, c.env, true)...)
		if command == nil && vllmImage(c.image) {
			line := cn.Line
			if a := items(args); len(a) > 0 {
				line = a[0].Line
			}
			c.words = append([]word{{text: "vllm", line: line}, {text: "serve", line: line}}, c.words...)
		}
		if isShell(c.words) {
			all := items(command)
			all = append(all, items(args)...)
			c.scriptNode, c.script = all[2], c.words[2].text
		}
		where := name + ", container " + c.name
		for _, srv := range r.launch(c, where) {
			srv.GPU, srv.Unset = sel, c.unset
			if selErr != "" && srv.Err == "" {
				srv.Err = selErr
			}
			if g, line, res, ok := containerGPUs(cn); ok {
				srv.Requested = &Request{GPUs: g, From: res, Line: line, PerPod: g}
				if group != nil && group.size > 1 {
					total := g + (group.size-1)*group.workerGPUs
					srv.Requested = &Request{GPUs: total, Line: line, PerPod: max(g, group.workerGPUs),
						From: fmt.Sprintf("%s %d on the leader + %d on each of %d workers (LeaderWorkerSet size %d, worker's at line %d)",
							res, g, group.workerGPUs, group.size-1, group.size, group.workerLine)}
				}
			} else if line != 0 {
				srv.Err = fmt.Sprintf("line %d: %s is not a whole number of GPUs", line, res)
			} else {
				srv.Requested = &Request{GPUs: 0, From: "no nvidia.com/gpu or amd.com/gpu resource", Line: cn.Line}
			}
			r.servers = append(r.servers, srv)
		}
	}
}

// launch returns the servers a container's words launch: the words
// themselves, or each launch line of the script a shell runs.
func (r *reader) launch(c container, where string) []Server {
	if c.scriptNode != nil {
		line := c.scriptNode.Line
		if c.scriptNode.Style == yaml.LiteralStyle || c.scriptNode.Style == yaml.FoldedStyle {
			line++ // a block scalar's text begins on the line after its indicator
		}
		exported := map[string]bool{}
		for k := range c.env {
			exported[k] = true
		}
		vars := maps.Clone(c.env)
		return scriptServers(r.file, c.script, line, vars, exported, r.o, func(shellCommand) string { return where })
	}
	if len(c.words) == 0 {
		return nil
	}
	args := make([]string, 0, len(c.words))
	unknown := ""
	for _, w := range c.words {
		args = append(args, w.text)
		if unknown == "" {
			unknown = w.unknown
		}
	}
	args = Normalise(args)
	if !r.o.IsLine(args) {
		return nil
	}
	srv := Server{File: r.file, Line: c.words[0].line, Where: where, Args: append(envList(c.env), args...)}
	if unknown != "" {
		srv.Err = fmt.Sprintf("the launch line uses %s, which the file does not set: membudget reads launch lines as written", unknown)
	}
	return []Server{srv}
}

// compose reads a docker-compose file's services (the Compose
// Specification, compose-spec.io: services.*.image, entrypoint, command,
// environment, deploy.resources.reservations.devices, gpus).
func (r *reader) compose(root *yaml.Node) {
	keys, values := pairs(get(root, "services"))
	for i, svc := range values {
		name := keys[i].Value
		c := container{name: name, line: keys[i].Line, env: map[string]string{}}
		c.image, _ = scalar(get(svc, "image"))
		env := get(svc, "environment")
		if ks, vs := pairs(env); ks != nil {
			for j, k := range ks {
				v, _ := scalar(vs[j])
				c.env[k.Value] = v
			}
		}
		for _, it := range items(env) {
			v, _ := scalar(it)
			if k, val, ok := strings.Cut(v, "="); ok {
				c.env[k] = val
			} else {
				c.unset = append(c.unset, v)
			}
		}
		entry, command := composeWords(get(svc, "entrypoint")), composeWords(get(svc, "command"))
		switch {
		case entry != nil:
			c.words = append(entry, command...)
		case vllmImage(c.image):
			line := c.line
			if len(command) > 0 {
				line = command[0].line
			}
			c.words = append([]word{{text: "vllm", line: line}, {text: "serve", line: line}}, command...)
		default:
			c.words = command
		}
		if isShell(c.words) {
			// The script is the third word; compose gives it as written.
			script := c.words[2]
			node := &yaml.Node{Kind: yaml.ScalarNode, Value: script.text, Line: script.line}
			if n := scriptOf(get(svc, "entrypoint"), get(svc, "command"), script); n != nil {
				node = n
			}
			c.scriptNode, c.script = node, script.text
		}
		for _, srv := range r.launch(c, "service "+name) {
			srv.Unset = c.unset
			srv.Requested = composeGPUs(svc)
			r.servers = append(r.servers, srv)
		}
	}
}

// scriptOf returns the node of a shell's script w among entrypoint's and
// command's list items (a block scalar's lines begin after its
// indicator's); nil when w came from a string, split.
func scriptOf(entry, command *yaml.Node, w word) *yaml.Node {
	for _, n := range append(items(entry), items(command)...) {
		if n.Kind == yaml.ScalarNode && n.Value == w.text && n.Line == w.line {
			return n
		}
	}
	return nil
}

// composeWords reads a compose entrypoint or command: a list as it is, a
// string split as a shell splits it (the Compose Specification: "the
// command can also be a string ... parsed with shell-like rules"), its
// ${VAR} interpolation left unknown.
func composeWords(n *yaml.Node) []word {
	if s, ok := scalar(n); ok {
		sc := newShellScanner(s, n.Line, map[string]string{})
		var out []word
		for {
			c, ok := sc.next()
			if !ok {
				return out
			}
			out = append(out, c.words...)
		}
	}
	return seqWords(n, nil, false)
}

// composeGPUs reads the GPUs a compose service reserves: the devices with
// capability gpu under deploy.resources.reservations.devices (count, or
// device_ids), or gpus; nil when it reserves none, or "all" (the host's,
// which the file does not say).
func composeGPUs(svc *yaml.Node) *Request {
	for _, d := range items(path(svc, "deploy", "resources", "reservations", "devices")) {
		isGPU := false
		for _, c := range items(get(d, "capabilities")) {
			if v, _ := scalar(c); v == "gpu" {
				isGPU = true
			}
		}
		if !isGPU {
			continue
		}
		if n := get(d, "count"); n != nil {
			if g, err := strconv.ParseUint(n.Value, 10, 64); err == nil {
				return &Request{GPUs: g, PerPod: g, From: "deploy.resources.reservations.devices count", Line: n.Line}
			}
			return nil
		}
		if ids := items(get(d, "device_ids")); ids != nil {
			g := uint64(len(ids))
			return &Request{GPUs: g, PerPod: g, From: "deploy.resources.reservations.devices device_ids", Line: get(d, "device_ids").Line}
		}
	}
	return nil
}
