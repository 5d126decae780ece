// Package safetensors reads the header of a safetensors file: the names,
// dtypes, shapes and byte spans of its tensors, never the tensor data.
//
// The format (github.com/huggingface/safetensors, README "Format") is
//
//	8 bytes   N, the header length, a little-endian uint64
//	N bytes   a JSON object: tensor name -> {"dtype", "shape", "data_offsets": [BEGIN, END]},
//	          plus an optional "__metadata__" object of string values;
//	          it begins with '{' and may be padded with spaces
//	the rest  the data buffer; offsets are relative to its start
//
// The checks are the reference reader's (safetensors/src/tensor.rs,
// SafeTensors::read_metadata and Metadata::validate): N at most
// [MaxHeaderBytes]; the tensors, in offset order, cover the data buffer
// without overlap or gap; each span holds exactly its shape's elements at
// its dtype's width ([DtypeBits]); and the buffer ends where the file ends.
// Duplicate keys are refused, as the format asks. Every failure is a
// [*HeaderError] naming the file and, where there is one, the tensor.
//
// [ParseHeader] checks header bytes already in memory (a cached header, or
// one fetched by HTTP range requests); [ReadHeader] reads them from a file,
// bounded, and [HeaderLength] decodes the 8-byte prefix so that a caller can
// fetch exactly N bytes next. [Encode] writes a header, for tests and tools
// that build checkpoints.
package safetensors
