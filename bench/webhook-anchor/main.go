// Command webhook-anchor is the Go side of the webhooks benchmark
// (bench/webhooks.mjs). It has two modes:
//
//	webhook-anchor -serve -cert-file DIR/tls.crt -key-file DIR/tls.key -port 9443 [-cpuprofile FILE]
//	webhook-anchor -load -url https://127.0.0.1:9443/validate -ca ca.crt -concurrency 16 -warmup 2s -duration 10s
//
// -serve runs controller-runtime's webhook server (webhook.Server with two
// admission.Webhook handlers, see serve.go) and prints {"ready":true,...} on
// stdout once it accepts TLS connections.
//
// -load is the load generator both servers are measured with (load.go): it
// POSTs AdmissionReview v1 requests over HTTP/2, as kube-apiserver calls
// webhooks, from -concurrency workers, first for -warmup (not counted), then
// for -duration, and prints one JSON line with the requests, errors and
// latency percentiles of the measured part. It prints {"phase":"measure"}
// when the measured part starts and {"phase":"end"} when it ends, so the
// caller can read the server's CPU time over exactly that window.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	serve := flag.Bool("serve", false, "run the webhook server")
	load := flag.Bool("load", false, "run the load generator")

	certFile := flag.String("cert-file", "", "-serve: the serving certificate (PEM)")
	keyFile := flag.String("key-file", "", "-serve: its private key (PEM), in the same directory")
	host := flag.String("host", "127.0.0.1", "-serve: the address to listen on")
	port := flag.Int("port", 9443, "-serve: the port to listen on")
	cpuProfile := flag.String("cpuprofile", "", "-serve: write a CPU profile (go tool pprof) there until the server stops")

	url := flag.String("url", "", "-load: the webhook's URL, https://host:port/path")
	ca := flag.String("ca", "", "-load: the CA certificate the server's certificate is checked against (PEM)")
	kind := flag.String("kind", "", "-load: validate or mutate (default: the URL path's last segment)")
	concurrency := flag.Int("concurrency", 1, "-load: requests in flight at once")
	warmup := flag.Duration("warmup", 2*time.Second, "-load: how long to send before measuring")
	duration := flag.Duration("duration", 10*time.Second, "-load: how long to measure")
	forbiddenEvery := flag.Int("forbidden-every", 4, "-load: every n-th validate request carries data.forbidden (0: none)")
	flag.Parse()

	var err error
	switch {
	case *serve && !*load:
		err = runServer(*certFile, *keyFile, *host, *port, *cpuProfile)
	case *load && !*serve:
		err = runLoad(loadOptions{
			url:            *url,
			caFile:         *ca,
			kind:           *kind,
			concurrency:    *concurrency,
			warmup:         *warmup,
			duration:       *duration,
			forbiddenEvery: *forbiddenEvery,
		})
	default:
		err = fmt.Errorf("give exactly one of -serve and -load")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "webhook-anchor: %v\n", err)
		os.Exit(1)
	}
}
