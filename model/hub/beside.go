package hub

import "context"

// ResolveBeside resolves spec as [Resolver.Resolve] does, with the resolver
// that resolved m (its cache, Hub endpoint, token, offline setting and
// shipped models): what a serve that names a second model beside its
// --model, such as a speculative-decoding draft, reads it with. A Model
// that Resolve did not make resolves offline, without a cache.
func (m *Model) ResolveBeside(ctx context.Context, spec string) (*Model, error) {
	return m.resolver().Resolve(ctx, spec)
}

// LoadBeside loads spec as [Resolver.Load] does, with the resolver that
// resolved m (see [Model.ResolveBeside]).
func (m *Model) LoadBeside(ctx context.Context, spec string) (*Loaded, error) {
	return m.resolver().Load(ctx, spec)
}

// resolver is the resolver that made m, or an offline one without a cache.
func (m *Model) resolver() Resolver {
	if m == nil || m.res == nil {
		return Resolver{Offline: true}
	}
	return *m.res
}
