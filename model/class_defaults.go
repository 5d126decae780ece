package model

// classDefault is a key that a family's transformers configuration class
// fills when config.json leaves it out, and the value it fills: vLLM reads
// the config through that class, so the engine sizes the model with it.
type classDefault struct {
	key   string
	value uint64
}

// withClassDefaults gives o each default whose key it leaves out. A key
// written as null is left alone: the class's __post_init__ decides what
// null means (num_key_value_heads: num_attention_heads; head_dim:
// hidden_size / num_attention_heads), as the readers do.
func withClassDefaults(o jsonObject, defaults ...classDefault) {
	for _, d := range defaults {
		if _, present := o.m[d.key]; !present {
			setDefault(o, d.key, d.value)
		}
	}
}
