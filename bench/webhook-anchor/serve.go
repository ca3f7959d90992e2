package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// seenLabel is the label the mutating webhook adds.
const seenLabel = "bench.protean.dev/seen"

// forbiddenMessage is the validating webhook's answer to an object with data.forbidden.
const forbiddenMessage = "data.forbidden is not allowed here"

// validateHandler denies any object that has data.forbidden.
func validateHandler(decoder admission.Decoder) admission.HandlerFunc {
	return func(ctx context.Context, req admission.Request) admission.Response {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(req, obj); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "data", "forbidden"); found {
			return admission.Denied(forbiddenMessage)
		}
		return admission.Allowed("")
	}
}

// mutateHandler labels the object seenLabel=true and answers with the JSON Patch to that.
func mutateHandler(decoder admission.Decoder) admission.HandlerFunc {
	return func(ctx context.Context, req admission.Request) admission.Response {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(req, obj); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[seenLabel] = "true"
		obj.SetLabels(labels)
		mutated, err := json.Marshal(obj.Object)
		if err != nil {
			return admission.Errored(http.StatusInternalServerError, err)
		}
		return admission.PatchResponseFromRaw(req.Object.Raw, mutated)
	}
}

// runServer serves /validate and /mutate until SIGINT or SIGTERM.
func runServer(certFile, keyFile, host string, port int, cpuProfile string) error {
	if certFile == "" || keyFile == "" {
		return fmt.Errorf("-serve needs -cert-file and -key-file")
	}
	if cpuProfile != "" {
		out, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(out); err != nil {
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			out.Close()
		}()
	}
	if filepath.Dir(certFile) != filepath.Dir(keyFile) {
		return fmt.Errorf("-cert-file and -key-file must be in the same directory (the server's CertDir)")
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))

	decoder := admission.NewDecoder(runtime.NewScheme())
	server := webhook.NewServer(webhook.Options{
		Host:     host,
		Port:     port,
		CertDir:  filepath.Dir(certFile),
		CertName: filepath.Base(certFile),
		KeyName:  filepath.Base(keyFile),
	})
	server.Register("/validate", &admission.Webhook{Handler: validateHandler(decoder)})
	server.Register("/mutate", &admission.Webhook{Handler: mutateHandler(decoder)})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- server.Start(ctx) }()

	// Ready once a TLS handshake succeeds (the server's own started check).
	started := server.StartedChecker()
	deadline := time.Now().Add(30 * time.Second)
	for started(nil) != nil {
		select {
		case err := <-done:
			return fmt.Errorf("the webhook server stopped before it was ready: %w", err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the webhook server was not ready after 30 s")
		}
	}
	ready, _ := json.Marshal(map[string]any{
		"ready": true,
		"url":   "https://" + net.JoinHostPort(host, strconv.Itoa(port)),
		"pid":   os.Getpid(),
	})
	fmt.Println(string(ready))
	return <-done
}
