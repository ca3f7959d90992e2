package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"sync"
	"time"
)

type loadOptions struct {
	url            string
	caFile         string
	kind           string
	concurrency    int
	warmup         time.Duration
	duration       time.Duration
	forbiddenEvery int
}

// loadResult is the JSON line -load prints last.
type loadResult struct {
	Kind              string  `json:"kind"`
	Concurrency       int     `json:"concurrency"`
	Seconds           float64 `json:"seconds"`
	Requests          int     `json:"requests"`
	Errors            int     `json:"errors"`
	FirstError        string  `json:"firstError,omitempty"`
	Denied            int     `json:"denied"`
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	P50Us             int64   `json:"p50Us"`
	P90Us             int64   `json:"p90Us"`
	P99Us             int64   `json:"p99Us"`
	MaxUs             int64   `json:"maxUs"`
	MeanUs            float64 `json:"meanUs"`
	Protocol          string  `json:"protocol"`
	RequestBytes      int     `json:"requestBytes"`
}

// configMap is the object every review carries: a ConfigMap of a realistic
// size as kube-apiserver sends it on a CREATE (defaults and managedFields set).
func configMap(name string, forbidden bool) map[string]any {
	data := map[string]any{}
	for i := range 6 {
		data["setting-"+strconv.Itoa(i)] = fmt.Sprintf("value %d of the bench configuration, long enough to look like one", i)
	}
	if forbidden {
		data["forbidden"] = "yes"
	}
	return map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name":              name,
			"namespace":         "bench",
			"creationTimestamp": nil,
			"labels": map[string]any{
				"app.kubernetes.io/name":       "bench",
				"app.kubernetes.io/instance":   "bench-1",
				"app.kubernetes.io/managed-by": "protean",
			},
			"annotations": map[string]any{
				"bench.protean.dev/note": "an annotation as objects usually carry a few",
			},
			"managedFields": []any{map[string]any{
				"manager":    "bench",
				"operation":  "Update",
				"apiVersion": "v1",
				"time":       "2026-12-05T10:00:00Z",
				"fieldsType": "FieldsV1",
				"fieldsV1": map[string]any{
					"f:data":     map[string]any{"f:setting-0": map[string]any{}, "f:setting-1": map[string]any{}},
					"f:metadata": map[string]any{"f:labels": map[string]any{".": map[string]any{}}},
				},
			}},
		},
		"data": data,
	}
}

// reviewTemplate is an AdmissionReview v1 CREATE of obj, split where the uid goes.
func reviewTemplate(obj map[string]any) (prefix, suffix []byte) {
	const marker = "@@UID@@"
	gvk := map[string]any{"group": "", "version": "v1", "kind": "ConfigMap"}
	gvr := map[string]any{"group": "", "version": "v1", "resource": "configmaps"}
	review := map[string]any{
		"apiVersion": "admission.k8s.io/v1",
		"kind":       "AdmissionReview",
		"request": map[string]any{
			"uid":             marker,
			"kind":            gvk,
			"resource":        gvr,
			"requestKind":     gvk,
			"requestResource": gvr,
			"name":            obj["metadata"].(map[string]any)["name"],
			"namespace":       "bench",
			"operation":       "CREATE",
			"userInfo": map[string]any{
				"username": "system:serviceaccount:bench:writer",
				"uid":      "5f0c4a8e-2b1d-4c61-9e7a-0d3b8f6a1c20",
				"groups":   []any{"system:serviceaccounts", "system:serviceaccounts:bench", "system:authenticated"},
			},
			"object":    obj,
			"oldObject": nil,
			"dryRun":    false,
			"options":   map[string]any{"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "bench"},
		},
	}
	text, err := json.Marshal(review)
	if err != nil {
		panic(err)
	}
	before, after, ok := bytes.Cut(text, []byte(marker))
	if !ok {
		panic("no uid marker in the review")
	}
	return before, after
}

// reviewResponse is the part of the answer that is checked.
type reviewResponse struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Response   struct {
		UID       string  `json:"uid"`
		Allowed   bool    `json:"allowed"`
		PatchType *string `json:"patchType"`
		Patch     string  `json:"patch"`
		Status    *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"status"`
	} `json:"response"`
}

// expectedPatch is what the mutating webhook must answer for the bench's ConfigMap.
const expectedPatch = `[{"op":"add","path":"/metadata/labels/bench.protean.dev~1seen","value":"true"}]`

// check returns why an answer is wrong, or "" when it is right. full also decodes the patch.
func check(kind string, status int, body []byte, uid string, forbidden, full bool) string {
	if status != http.StatusOK {
		return fmt.Sprintf("HTTP %d: %.200s", status, body)
	}
	var r reviewResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return fmt.Sprintf("not JSON: %v: %.200s", err, body)
	}
	if r.APIVersion != "admission.k8s.io/v1" || r.Kind != "AdmissionReview" {
		return fmt.Sprintf("not an AdmissionReview v1: %.200s", body)
	}
	resp := r.Response
	if resp.UID != uid {
		return fmt.Sprintf("uid %q, expected %q", resp.UID, uid)
	}
	switch {
	case kind == "validate" && forbidden:
		if resp.Allowed || resp.Status == nil || resp.Status.Message != "data.forbidden is not allowed here" {
			return fmt.Sprintf("expected a denial for data.forbidden: %.300s", body)
		}
	case kind == "validate":
		if !resp.Allowed {
			return fmt.Sprintf("expected allowed: %.300s", body)
		}
	case kind == "mutate":
		if !resp.Allowed || resp.PatchType == nil || *resp.PatchType != "JSONPatch" || resp.Patch == "" {
			return fmt.Sprintf("expected a JSONPatch: %.300s", body)
		}
		if full {
			patch, err := base64.StdEncoding.DecodeString(resp.Patch)
			if err != nil {
				return fmt.Sprintf("patch is not base64: %v", err)
			}
			var got, want any
			_ = json.Unmarshal([]byte(expectedPatch), &want)
			if err := json.Unmarshal(patch, &got); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				return fmt.Sprintf("patch %s, expected %s", patch, expectedPatch)
			}
		}
	}
	return ""
}

// worker's tally of the measured window.
type tally struct {
	latencies  []time.Duration
	errors     int
	denied     int
	firstError string
	protocol   string
}

func runLoad(o loadOptions) error {
	if o.url == "" || o.caFile == "" {
		return fmt.Errorf("-load needs -url and -ca")
	}
	if o.kind == "" {
		o.kind = path.Base(o.url)
	}
	if o.kind != "validate" && o.kind != "mutate" {
		return fmt.Errorf("-kind must be validate or mutate, got %q", o.kind)
	}
	if o.concurrency < 1 {
		return fmt.Errorf("-concurrency must be at least 1")
	}
	caPEM, err := os.ReadFile(o.caFile)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return fmt.Errorf("%s holds no PEM certificate", o.caFile)
	}
	// HTTP/2 only, one connection (more only if the server's stream limit is reached).
	protocols := new(http.Protocols)
	protocols.SetHTTP2(true)
	transport := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12},
		Protocols:         protocols,
		ForceAttemptHTTP2: true,
	}
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}

	allowedPrefix, allowedSuffix := reviewTemplate(configMap("bench-object", false))
	forbiddenPrefix, forbiddenSuffix := reviewTemplate(configMap("bench-object", true))

	start := time.Now()
	measureFrom := start.Add(o.warmup)
	measureTo := measureFrom.Add(o.duration)
	tallies := make([]tally, o.concurrency)
	var wg sync.WaitGroup
	for w := range o.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := &tallies[w]
			t.latencies = make([]time.Duration, 0, 1<<14)
			body := make([]byte, 0, len(forbiddenPrefix)+len(forbiddenSuffix)+64)
			checkedFull := false
			for n := 0; ; n++ {
				sent := time.Now()
				if !sent.Before(measureTo) {
					return
				}
				forbidden := o.kind == "validate" && o.forbiddenEvery > 0 && n%o.forbiddenEvery == o.forbiddenEvery-1
				uid := fmt.Sprintf("00000000-0000-4000-8000-%04x%08x", w, n)
				prefix, suffix := allowedPrefix, allowedSuffix
				if forbidden {
					prefix, suffix = forbiddenPrefix, forbiddenSuffix
				}
				body = append(append(append(body[:0], prefix...), uid...), suffix...)
				req, err := http.NewRequest(http.MethodPost, o.url, bytes.NewReader(body))
				if err != nil {
					panic(err)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, */*")
				var problem string
				resp, err := client.Do(req)
				if err != nil {
					problem = err.Error()
				} else {
					answer, readErr := io.ReadAll(resp.Body)
					resp.Body.Close()
					t.protocol = resp.Proto
					switch {
					case readErr != nil:
						problem = readErr.Error()
					case resp.ProtoMajor != 2:
						problem = "answered over " + resp.Proto + ", not HTTP/2"
					default:
						problem = check(o.kind, resp.StatusCode, answer, uid, forbidden, !checkedFull)
						checkedFull = true
					}
				}
				took := time.Since(sent)
				if sent.Before(measureFrom) {
					if problem != "" {
						fmt.Fprintf(os.Stderr, "webhook-anchor -load: during warm-up: %s\n", problem)
					}
					continue
				}
				if problem != "" {
					t.errors++
					if t.firstError == "" {
						t.firstError = problem
					}
					continue
				}
				if forbidden {
					t.denied++
				}
				t.latencies = append(t.latencies, took)
			}
		}()
	}
	// Phase markers, printed as their moments pass, for the caller's CPU readings.
	time.Sleep(time.Until(measureFrom))
	fmt.Println(`{"phase":"measure"}`)
	time.Sleep(time.Until(measureTo))
	fmt.Println(`{"phase":"end"}`)
	wg.Wait()
	transport.CloseIdleConnections()

	result := loadResult{Kind: o.kind, Concurrency: o.concurrency, Seconds: o.duration.Seconds(), RequestBytes: len(allowedPrefix) + 36 + len(allowedSuffix)}
	var all []time.Duration
	for _, t := range tallies {
		all = append(all, t.latencies...)
		result.Errors += t.errors
		result.Denied += t.denied
		if result.FirstError == "" {
			result.FirstError = t.firstError
		}
		if result.Protocol == "" {
			result.Protocol = t.protocol
		}
	}
	result.Requests = len(all)
	result.RequestsPerSecond = float64(len(all)) / o.duration.Seconds()
	if len(all) > 0 {
		slices.Sort(all)
		rank := func(p float64) int64 {
			i := int(p/100*float64(len(all))+0.999999) - 1
			return all[max(0, min(i, len(all)-1))].Microseconds()
		}
		result.P50Us, result.P90Us, result.P99Us = rank(50), rank(90), rank(99)
		result.MaxUs = all[len(all)-1].Microseconds()
		var sum time.Duration
		for _, d := range all {
			sum += d
		}
		result.MeanUs = float64(sum.Microseconds()) / float64(len(all))
	}
	line, _ := json.Marshal(result)
	fmt.Println(string(line))
	return nil
}
