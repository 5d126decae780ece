package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"membudget/model"
)

// Quantizations is an engine's --quantization: the names it takes whose
// layout membudget models, and how it answers a name against the
// checkpoint's own quantization. vLLM and SGLang answer alike
// (ModelConfig._verify_quantization in both): no name keeps the
// checkpoint's; the checkpoint's own method keeps it; a method the engine
// applies online to an unquantized checkpoint applies it; anything else is
// refused. They differ in the table, the case of a name, and the words.
type Quantizations struct {
	// Methods maps each name to the layout family of
	// [model.QuantMethods] ("awq_marlin" -> "awq").
	Methods map[string]string
	// Fold says the engine reads a name in any case.
	Fold bool
	// Unknown begins the refusal of a name not in Methods, before the
	// names there are ("want one of").
	Unknown string
	// Mismatch ends the refusal of a method other than the checkpoint's,
	// after "the checkpoint C is quantized with M" ("" for nothing more).
	Mismatch string
	// Online returns the quantization the engine applies to an
	// unquantized checkpoint as method, and false where it applies none.
	Online func(method string) (model.Quant, bool)
}

// Names returns the table's names, sorted and joined for a message.
func (q Quantizations) Names() string {
	return strings.Join(slices.Sorted(maps.Keys(q.Methods)), ", ")
}

// Resolve returns the quantization a's weights are served in under
// --quantization flag ("" when not given). A name the engine refuses is a
// *[SettingError] naming --quantization.
func (q Quantizations) Resolve(a *model.Arch, flag string) (model.Quant, error) {
	if flag == "" {
		return a.Quant, nil
	}
	name := flag
	if q.Fold {
		name = strings.ToLower(name)
	}
	method, ok := q.Methods[name]
	if !ok {
		return model.Quant{}, Refuse("quantization", fmt.Sprintf("%q", flag), "%s %s", q.Unknown, q.Names())
	}
	if a.Quant.Method == method {
		return a.Quant, nil
	}
	if a.Quant.Method != "" {
		return model.Quant{}, Refuse("quantization", fmt.Sprintf("%q", flag), "the checkpoint %s is quantized with %s%s", a.Source, a.Quant.Method, q.Mismatch)
	}
	if q.Online != nil {
		if online, ok := q.Online(method); ok {
			return online, nil
		}
	}
	return model.Quant{}, Refuse("quantization", fmt.Sprintf("%q", flag), "needs a checkpoint quantized with %s (its config.json has no quantization_config)", method)
}
