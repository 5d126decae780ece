package hub

import (
	"context"
	"errors"
	"fmt"

	"membudget/model"
)

// MaxProcessorBytes caps a processor file (preprocessor_config.json,
// video_preprocessor_config.json): the published ones are under 1 KiB, so
// a config.json's cap bounds them with room to spare.
const MaxProcessorBytes = MaxConfigBytes

// Processors returns the checkpoint's image and video processor settings
// as transformers finds them (image_processing_base.py
// get_image_processor_dict, video_processing_utils.py
// get_video_processor_dict: "nested config if found -> video processor
// config -> image processor config"): the image processor's is
// processor_config.json's "image_processor" object where that file has
// one, else preprocessor_config.json; the video processor's is
// processor_config.json's "video_processor", else
// video_preprocessor_config.json, else preprocessor_config.json. Each comes
// with the path messages name it by (a nested one's with its key), nil
// where there is none. The files are looked for where
// [Model.SentenceTransformers] looks for modules.json, and for a shipped
// model where Resolver.ShippedProcessor finds them. Offline, or with the
// Hub unreachable, a file neither cached nor recorded missing is read as
// none and m's source says so: the encoder profile it would size is then
// not charged, and the report says why. A processor_config.json that is
// not a JSON object is an error naming it, as transformers cannot read
// it.
func (m *Model) Processors(ctx context.Context) (image []byte, imagePath string, video []byte, videoPath string, err error) {
	if m.res == nil {
		return nil, "", nil, "", errors.New("hub: Processors of a Model that Resolve did not make")
	}
	read := func(name string) ([]byte, string, error) {
		if m.Source.Kind == SourceShipped {
			if m.res.ShippedProcessor == nil {
				return nil, "", nil
			}
			data, p, ok := m.res.ShippedProcessor(m.shippedID, name)
			if !ok {
				return nil, "", nil
			}
			return data, p, nil
		}
		data, p, found, err := m.besideFile(ctx, name, MaxProcessorBytes)
		switch {
		case readAsNone(m, name, err):
			return nil, "", nil
		case err != nil:
			return nil, "", fmt.Errorf("reading %s: %w", name, err)
		case !found:
			return nil, "", nil
		}
		return data, p, nil
	}
	combined, combinedPath, err := read(model.ProcessorFile)
	if err != nil {
		return nil, "", nil, "", err
	}
	single, singlePath, err := read(model.PreprocessorFile)
	if err != nil {
		return nil, "", nil, "", err
	}
	videoFile, videoFilePath, err := read(model.VideoPreprocessorFile)
	if err != nil {
		return nil, "", nil, "", err
	}
	return model.PickProcessors(combinedPath, combined, singlePath, single, videoFilePath, videoFile)
}

// attachProcessors attaches m's processor files to a multimodal a (see
// [Model.Processors]); a text model reads none.
func attachProcessors(ctx context.Context, m *Model, a *model.Arch) error {
	if a.Vision == nil {
		return nil
	}
	image, imagePath, video, videoPath, err := m.Processors(ctx)
	if err != nil {
		return err
	}
	return model.AttachProcessors(a, imagePath, image, videoPath, video)
}
