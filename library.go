package membudget

import "membudget/model/hub"

// Resolver returns the model resolver the membudget command resolves
// --model with: a config.json path (or a directory holding one), a model
// shipped in the module (see [ModelNames]), a model in the Hugging Face
// cache, or one on the Hub, under the Hugging Face settings getenv reads
// (HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE, HF_ENDPOINT, HF_TOKEN: see
// [hub.FromEnv]). Pass os.Getenv for the process's own; a program that
// must not reach the network sets HF_HUB_OFFLINE=1 in what getenv reads.
// Its Load is what every command sizes (see [hub.Resolver.Load]).
func Resolver(getenv func(string) string) (hub.Resolver, error) {
	r, err := hub.FromEnv(getenv)
	if err != nil {
		return r, err
	}
	r.Shipped = ModelConfig
	r.ShippedIDs = ModelNames()
	r.ShippedQuantConfig = ModelQuantConfig
	r.ShippedProcessor = ModelProcessor
	return r, nil
}
