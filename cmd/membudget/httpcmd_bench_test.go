package main

import (
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// serveBenchRequests are the requests the API's benchmark sends, by
// command: a report, a verified query and a plan, as the page sends them.
var serveBenchRequests = []struct{ cmd, body string }{
	{"report", `{"model":"meta-llama/Llama-3.1-8B-Instruct","class":"h100-sxm-80g","max-model-len":32768,"seqs":8}`},
	{"max-seqs", `{"model":"Qwen/Qwen3-32B","class":"a100-80g","length":8192,"tensor-parallel-size":2,"max-model-len":32768}`},
	{"plan", `{"model":"Qwen/Qwen3-8B","length":8192,"concurrency":16,"classes":"l4,a100-80g,h100-sxm-80g","top":5}`},
}

// BenchmarkServe is the API on the loopback beside batch, for each of
// serveBenchRequests, the models and classes loaded once before the
// timer: http sends b.N requests from twice GOMAXPROCS clients at once
// and reports requests a second and the 99th percentile latency; batch
// answers the same b.N requests as one stream with its default --jobs and
// reports requests a second. Their ratio is what the HTTP layer costs.
func BenchmarkServe(b *testing.B) {
	for _, r := range serveBenchRequests {
		b.Run("http/"+r.cmd, func(b *testing.B) {
			srv := newTestServer(b, testApp(), serveOptions{jobs: runtime.GOMAXPROCS(0)})
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			send := func() time.Duration {
				start := time.Now()
				resp, err := client.Post(srv.URL+"/api/"+r.cmd, "application/json", strings.NewReader(r.body))
				if err != nil {
					b.Error(err)
					return 0
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
				}
				return time.Since(start)
			}
			send() // the model and the class loaded, the connection open
			clients := 2 * runtime.GOMAXPROCS(0)
			latencies := make([]time.Duration, b.N)
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ReportAllocs()
			b.ResetTimer()
			for range clients {
				wg.Go(func() {
					for {
						i := next.Add(1) - 1
						if i >= int64(b.N) {
							return
						}
						latencies[i] = send()
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			slices.Sort(latencies)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
			b.ReportMetric(float64(latencies[(len(latencies)*99)/100])/1e6, "p99-ms")
		})
		b.Run("batch/"+r.cmd, func(b *testing.B) {
			line := `{"command":"` + r.cmd + `",` + strings.TrimPrefix(r.body, "{") + "\n"
			a := testApp()
			if _, code := batchOf(b, a, line); code != exitOK && code != exitNoFit {
				b.Fatalf("exit %d", code)
			}
			in := strings.Repeat(line, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			var out lineCounter
			a.serveBatch(&out, io.Discard, strings.NewReader(in), runtime.GOMAXPROCS(0))
			b.StopTimer()
			if out.lines != b.N {
				b.Fatalf("%d answers for %d requests", out.lines, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}
