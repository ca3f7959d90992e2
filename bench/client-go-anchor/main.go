// Command client-go-anchor is the client-go side of the anchor benchmark
// (bench/anchor.mjs): it starts one client-go metadata informer per resource
// named on its command line, all on one shared HTTP client, waits until every
// one has synced, and prints one JSON line of what that cost this process
// (and, given its pid, the API server).
//
// Usage:
//
//	client-go-anchor -kubeconfig FILE -resources FILE [-apiserver-pid PID]
//	client-go-anchor -kubeconfig FILE -full /v1/configmaps [-selector app=bench] [-strip-managed-fields]
//	client-go-anchor -index 100000
//
// The second form is the full-object mode of the memory benchmark
// (bench/memory.mjs, see full.go).
//
// The resources file holds one group/version/resource a line ("/v1/configmaps"
// for the core group). Which initial list client-go uses is its own choice:
// streaming (the WatchListClient feature on, its default) or paged LISTs
// (KUBE_FEATURE_WatchListClient=false in the environment). The requests it
// sent are counted by kind in the output, so the report shows which one ran.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// report is the JSON line printed on stdout; the Node side prints the same fields.
type report struct {
	Side            string  `json:"side"`
	Informers       int     `json:"informers"`
	Objects         int     `json:"objects"`
	SyncMs          float64 `json:"syncMs"`
	RssStartBytes   uint64  `json:"rssStartBytes"`
	RssBeforeBytes  uint64  `json:"rssBeforeBytes"`
	RssSyncedBytes  uint64  `json:"rssSyncedBytes"`
	RssIdleBytes    uint64  `json:"rssIdleBytes"`
	RssMinuteBytes  uint64  `json:"rssMinuteBytes"`
	RssAnonMinute   uint64  `json:"rssAnonBytesAtMinute"`
	RssFileMinute   uint64  `json:"rssFileBytesAtMinute"`
	RssPeakBytes    uint64  `json:"rssPeakBytes"`
	RssAfterBytes   uint64  `json:"rssAfterBytes"`
	HeapUsedBytes   uint64  `json:"heapUsedBytes"`
	HeapTotalBytes  uint64  `json:"heapTotalBytes"`
	CPUMs           float64 `json:"cpuMs"`
	APIServerCPUMs  *int64  `json:"apiServerCpuMs"`
	ListMode        string  `json:"listMode"`
	Requests        counts  `json:"requests"`
	WatchListClient string  `json:"watchListClientEnv"`
}

// counts are the requests the informers sent, by what they asked for.
type counts struct {
	List          int64 `json:"list"`
	Watch         int64 `json:"watch"`
	StreamingList int64 `json:"streamingList"`
}

// requestCounter counts the requests of every transport it wraps, by their query.
type requestCounter struct {
	list, watch, streamingList atomic.Int64
}

// countingTransport passes requests on to next and counts them in counter.
type countingTransport struct {
	next    http.RoundTripper
	counter *requestCounter
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	switch {
	case q.Get("sendInitialEvents") == "true":
		t.counter.streamingList.Add(1)
	case q.Get("watch") == "true" || q.Get("watch") == "1":
		t.counter.watch.Add(1)
	default:
		t.counter.list.Add(1)
	}
	return t.next.RoundTrip(req)
}

// statusBytes reads a "kB" field of /proc/<pid>/status in bytes.
func statusBytes(pid string, field string) (uint64, error) {
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parsing %s of /proc/%s/status: %w", field, pid, err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%s/status", field, pid)
}

// idleWait and minuteWait: how long both sides wait, once synced, before reading the RSS an operator would see with
// nobody forcing a collection (10 s, then 60 s after the sync).
const (
	idleWait   = 10 * time.Second
	minuteWait = 60 * time.Second
)

// clockTicksPerSecond is USER_HZ, the unit of utime and stime in /proc/<pid>/stat (100 on Linux).
const clockTicksPerSecond = 100

// processCPUMs is the user + system CPU time of another process, from /proc/<pid>/stat.
func processCPUMs(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	text := string(data)
	// The command name may hold spaces: the fields that follow start after its closing parenthesis.
	fields := strings.Fields(text[strings.LastIndexByte(text, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name, want at least 13", pid, len(fields))
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, fields[11], fields[12])
	}
	return (utime + stime) * 1000 / clockTicksPerSecond, nil
}

// ownCPUMs is this process's user + system CPU time.
func ownCPUMs() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		fail("getrusage: %v", err)
	}
	ms := func(tv syscall.Timeval) float64 { return float64(tv.Sec)*1000 + float64(tv.Usec)/1000 }
	return ms(usage.Utime) + ms(usage.Stime)
}

// readResources parses the resources file: one group/version/resource a line.
func readResources(path string) ([]schema.GroupVersionResource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var gvrs []schema.GroupVersionResource
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" {
			continue
		}
		parts := strings.Split(line, "/")
		if len(parts) != 3 || parts[1] == "" || parts[2] == "" {
			return nil, fmt.Errorf("%s: %q is not group/version/resource", path, line)
		}
		gvrs = append(gvrs, schema.GroupVersionResource{Group: parts[0], Version: parts[1], Resource: parts[2]})
	}
	return gvrs, scanner.Err()
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "client-go-anchor: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	rssStart, err := statusBytes("self", "VmRSS")
	if err != nil {
		fail("%v", err)
	}
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file of the API server")
	resourcesFile := flag.String("resources", "", "file of group/version/resource lines, one informer each")
	apiServerPid := flag.Int("apiserver-pid", 0, "pid of the kube-apiserver whose CPU during the sync is reported (0: not reported)")
	timeout := flag.Duration("timeout", 15*time.Minute, "how long to wait for every informer to sync")
	full := flag.String("full", "", "full-object mode: one typed informer of this group/version/resource (\"/v1/configmaps\"); reports heap before and after its sync")
	selector := flag.String("selector", "", "full-object mode: a label selector the informer lists and watches with")
	strip := flag.Bool("strip-managed-fields", false, "full-object mode: drop metadata.managedFields with an informer transform")
	index := flag.Int("index", 0, "index mode (bench/index.mjs): this many ConfigMaps in a client-go Indexer, looked up by an owner index")
	flag.Parse()
	if *index > 0 {
		runIndex(*index)
		return
	}
	if *full != "" {
		if *kubeconfig == "" {
			fail("-kubeconfig is required")
		}
		config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
		if err != nil {
			fail("loading %s: %v", *kubeconfig, err)
		}
		runFull(config, *full, *selector, *strip, *timeout)
		return
	}
	if *kubeconfig == "" || *resourcesFile == "" {
		fail("-kubeconfig and -resources are required")
	}
	gvrs, err := readResources(*resourcesFile)
	if err != nil {
		fail("%v", err)
	}

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("loading %s: %v", *kubeconfig, err)
	}
	// No client-side rate limit: the Protean side has none, and at the default
	// 5 requests/s 200 informers would wait on the limiter, not the server.
	config.QPS = -1
	counter := &requestCounter{}
	config.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return countingTransport{next: next, counter: counter}
	})
	config = metadata.ConfigFor(config)
	// One HTTP client (one connection pool, HTTP/2 to the server) for every informer.
	httpClient, err := rest.HTTPClientFor(config)
	if err != nil {
		fail("HTTP client: %v", err)
	}
	client, err := metadata.NewForConfigAndClient(config, httpClient)
	if err != nil {
		fail("metadata client: %v", err)
	}
	factory := metadatainformer.NewSharedInformerFactory(client, 0)
	informers := make([]cache.SharedIndexInformer, len(gvrs))
	for i, gvr := range gvrs {
		informers[i] = factory.ForResource(gvr).Informer()
	}

	runtime.GC()
	rssBefore, err := statusBytes("self", "VmRSS")
	if err != nil {
		fail("%v", err)
	}
	var apiCPU0 int64
	if *apiServerPid > 0 {
		if apiCPU0, err = processCPUMs(*apiServerPid); err != nil {
			fail("%v", err)
		}
	}
	cpu0 := ownCPUMs()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	factory.Start(ctx.Done())
	// Poll every 5 ms rather than with WaitForCacheSync, whose 100 ms poll would round the time up.
	for pending := append([]cache.SharedIndexInformer(nil), informers...); len(pending) > 0; {
		next := pending[:0]
		for _, informer := range pending {
			if !informer.HasSynced() {
				next = append(next, informer)
			}
		}
		pending = next
		if len(pending) == 0 {
			break
		}
		if ctx.Err() != nil {
			fail("%d informers did not sync within %s", len(pending), *timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
	syncMs := float64(time.Since(started).Microseconds()) / 1000
	cpuMs := ownCPUMs() - cpu0
	var apiCPU *int64
	if *apiServerPid > 0 {
		now, err := processCPUMs(*apiServerPid)
		if err != nil {
			fail("%v", err)
		}
		used := now - apiCPU0
		apiCPU = &used
	}

	objects := 0
	for _, informer := range informers {
		objects += len(informer.GetStore().ListKeys())
	}
	// What an operator would see with nobody forcing a collection: RSS once synced, and 10 s later.
	rssSynced, err := statusBytes("self", "VmRSS")
	if err != nil {
		fail("%v", err)
	}
	time.Sleep(idleWait)
	rssIdle, err := statusBytes("self", "VmRSS")
	if err != nil {
		fail("%v", err)
	}
	time.Sleep(minuteWait - idleWait)
	rssMinute, err := statusBytes("self", "VmRSS")
	if err != nil {
		fail("%v", err)
	}
	// The same RSS split as the Node side reports: anonymous memory (what the process keeps) and file-backed pages
	// (the binary's code and libraries, shared and evictable).
	rssAnonMinute, err := statusBytes("self", "RssAnon")
	if err != nil {
		fail("%v", err)
	}
	rssFileMinute, err := statusBytes("self", "RssFile")
	if err != nil {
		fail("%v", err)
	}
	// The highest RSS so far: the sync's peak, before the forced collection below.
	rssPeak, err := statusBytes("self", "VmHWM")
	if err != nil {
		fail("%v", err)
	}
	// Settle as the Node side does: collect, give the scavenger a second, return free memory to the OS.
	runtime.GC()
	time.Sleep(time.Second)
	debug.FreeOSMemory()
	rssAfter, err := statusBytes("self", "VmRSS")
	if err != nil {
		fail("%v", err)
	}
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)

	r := report{
		Side:            "client-go",
		Informers:       len(gvrs),
		Objects:         objects,
		SyncMs:          syncMs,
		RssStartBytes:   rssStart,
		RssBeforeBytes:  rssBefore,
		RssSyncedBytes:  rssSynced,
		RssIdleBytes:    rssIdle,
		RssMinuteBytes:  rssMinute,
		RssAnonMinute:   rssAnonMinute,
		RssFileMinute:   rssFileMinute,
		RssPeakBytes:    rssPeak,
		RssAfterBytes:   rssAfter,
		HeapUsedBytes:   mem.HeapAlloc,
		HeapTotalBytes:  mem.HeapInuse,
		CPUMs:           cpuMs,
		APIServerCPUMs:  apiCPU,
		Requests:        counts{List: counter.list.Load(), Watch: counter.watch.Load(), StreamingList: counter.streamingList.Load()},
		WatchListClient: os.Getenv("KUBE_FEATURE_WatchListClient"),
	}
	switch {
	case r.Requests.StreamingList > 0 && r.Requests.List == 0:
		r.ListMode = "streaming"
	case r.Requests.StreamingList == 0:
		r.ListMode = "paginated"
	default:
		r.ListMode = "mixed"
	}
	line, err := json.Marshal(r)
	if err != nil {
		fail("%v", err)
	}
	fmt.Println(string(line))
	// Stay connected a moment, so the benchmark counts the connections of a synced process.
	time.Sleep(500 * time.Millisecond)
	cancel()
	factory.Shutdown()
}
