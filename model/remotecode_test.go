package model

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRemoteConfig: a config whose model_type transformers ships no class
// for is marked, with the class its auto_map names for AutoConfig; one
// transformers ships is not, whatever its auto_map says (DeepSeek-V3's
// names configuration_deepseek.DeepseekV3Config, yet deepseek_v3 is in
// CONFIG_MAPPING_NAMES); a model_type membudget does not know, read as
// the family its architectures name, is marked when its auto_map names a
// config class.
func TestRemoteConfig(t *testing.T) {
	tests := []struct {
		file string
		want *RemoteConfig
	}{
		{"nvidia__Llama-3_3-Nemotron-Super-49B-v1", &RemoteConfig{ModelType: "nemotron-nas", Class: "configuration_decilm.DeciLMConfig"}},
		{"OpenGVLab__InternVL3-1B-Pretrained", &RemoteConfig{ModelType: "internvl_chat", Class: "configuration_internvl_chat.InternVLChatConfig"}},
		{"microsoft__Phi-4-multimodal-instruct", &RemoteConfig{ModelType: "phi4mm", Class: "configuration_phi4mm.Phi4MMConfig"}},
		{"LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct", &RemoteConfig{ModelType: "exaone", Class: "LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct--configuration_exaone.ExaoneConfig"}},
		{"IQuestLab__IQuest-Coder-V1-40B-Base", &RemoteConfig{ModelType: "iquestcoder", Class: "configuration_iquestcoder.IQuestCoderConfig"}},
		{"deepseek-ai__DeepSeek-V3", nil},
		{"microsoft__Phi-3-mini-4k-instruct", nil},
		{"Qwen__Qwen2.5-VL-7B-Instruct", nil},
	}
	for _, tt := range tests {
		data, err := os.ReadFile("../corpus/models/" + tt.file + ".json")
		if err != nil {
			t.Fatal(err)
		}
		a, err := ParseConfig(tt.file, data)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if diff := cmp.Diff(tt.want, a.Remote); diff != "" {
			t.Errorf("%s: remote config (-want +got):\n%s", tt.file, diff)
		}
	}
}
