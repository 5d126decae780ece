package main

import (
	"sync"

	"membudget/budget"
	"membudget/engine/vllm"
)

// loadCache keeps the models and classes loaded, by the flag values that
// named them, while it is enabled: batch answers many requests that name
// the same few models and classes, and each is then resolved, parsed and
// read once, its compiler kept with it. Outside batch it is disabled and
// every command reads its inputs afresh. Only successes are kept: an error
// is reported for each request that meets it.
type loadCache struct {
	mu      sync.Mutex
	on      bool
	models  map[string]*resolvedModel
	classes map[classKey]budget.Class
}

// classKey names a class: the --kernels directory ("" for the shipped
// classes) and the --class value.
type classKey struct{ dir, name string }

// loads is the process's cache, enabled by batch for its requests.
var loads loadCache

// enable turns the cache on, empty, and returns what turns it off again.
func (lc *loadCache) enable() (disable func()) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.on = true
	lc.models = map[string]*resolvedModel{}
	lc.classes = map[classKey]budget.Class{}
	return func() {
		lc.mu.Lock()
		defer lc.mu.Unlock()
		lc.on, lc.models, lc.classes = false, nil, nil
	}
}

// model resolves --model spec, from the cache when it is on.
func (lc *loadCache) model(spec string) (*resolvedModel, error) {
	lc.mu.Lock()
	rm, ok := lc.models[spec]
	on := lc.on
	lc.mu.Unlock()
	if ok {
		return rm, nil
	}
	rm, err := resolveModel(spec)
	if err != nil || !on {
		return rm, err
	}
	lc.mu.Lock()
	if lc.on {
		lc.models[spec] = rm
	}
	lc.mu.Unlock()
	return rm, nil
}

// class loads --class name from --kernels k, from the cache when it is on.
func (lc *loadCache) class(k kernelsFlag, name string) (budget.Class, error) {
	key := classKey{k.dir, name}
	lc.mu.Lock()
	c, ok := lc.classes[key]
	on := lc.on
	lc.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := k.catalog().Load(name)
	if err != nil || !on {
		return c, err
	}
	lc.mu.Lock()
	if lc.on {
		lc.classes[key] = c
	}
	lc.mu.Unlock()
	return c, nil
}

// compiler is the model's vLLM compiler, made on first use: the serves of
// one model share what depends only on its sharding.
func (rm *resolvedModel) compiler() *vllm.Compiler {
	rm.compilerOnce.Do(func() { rm.comp = vllm.NewCompiler(rm.arch) })
	return rm.comp
}
