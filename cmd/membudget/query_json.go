package main

import "membudget/internal/jsonw"

// AppendJSON appends q as encoding/json writes it (see [jsonw.Appender]):
// a batch writes one a request.
func (q queryAnswer) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"query":`...)
	b = jsonw.String(b, q.Query)
	b = append(b, `,"engine":`...)
	b = jsonw.String(b, q.Engine)
	b = append(b, `,"model":`...)
	b = jsonw.String(b, q.Model)
	b = append(b, `,"class":`...)
	b = jsonw.String(b, q.Class)
	b = append(b, `,"serve":`...)
	if b, err = jsonw.Any(b, q.Serve); err != nil {
		return b, err
	}
	b = append(b, `,"given":`...)
	b = jsonw.Uint(b, q.Given)
	b = append(b, `,"cap":`...)
	b = jsonw.Uint(b, q.Cap)
	b = append(b, `,"answer":`...)
	b = jsonw.Uint(b, q.Answer)
	b = append(b, `,"fits":`...)
	b = jsonw.Bool(b, q.Fits)
	b = append(b, `,"capped":`...)
	b = jsonw.Bool(b, q.Capped)
	b = append(b, `,"evals":`...)
	b = jsonw.Int(b, int64(q.Evals))
	b = append(b, `,"starts":`...)
	b = jsonw.Bool(b, q.Starts)
	if q.Failure != "" {
		b = append(b, `,"failure":`...)
		b = jsonw.String(b, q.Failure)
	}
	if q.Adjusted != "" {
		b = append(b, `,"adjusted":`...)
		b = jsonw.String(b, q.Adjusted)
	}
	b = append(b, `,"at":`...)
	if b, err = q.At.AppendJSON(b); err != nil {
		return b, err
	}
	if q.Next != nil {
		b = append(b, `,"next":`...)
		if b, err = q.Next.AppendJSON(b); err != nil {
			return b, err
		}
	}
	if q.TippingTerm != "" {
		b = append(b, `,"tipping_term":`...)
		b = jsonw.String(b, q.TippingTerm)
	}
	if q.SteadyState != nil {
		b = append(b, `,"steady_state":`...)
		if b, err = jsonw.Any(b, q.SteadyState); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}
