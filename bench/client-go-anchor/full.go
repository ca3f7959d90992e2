package main

// The full-object mode (bench/memory.mjs): one typed informer of a built-in
// resource, full objects as client-go caches them, optionally with a
// transform that drops metadata.managedFields before the object is stored
// (what controller-runtime sets by default). It reports the heap after GC
// before the informer started and once it has synced, so the caller computes
// heap bytes per cached object.

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// fullReport is the JSON line printed by the full-object mode.
type fullReport struct {
	Side                string  `json:"side"`
	Resource            string  `json:"resource"`
	StripManagedFields  bool    `json:"stripManagedFields"`
	Objects             int     `json:"objects"`
	SyncMs              float64 `json:"syncMs"`
	HeapBeforeBytes     uint64  `json:"heapBeforeBytes"`
	HeapAfterBytes      uint64  `json:"heapAfterBytes"`
	RssBeforeBytes      uint64  `json:"rssBeforeBytes"`
	RssAfterBytes       uint64  `json:"rssAfterBytes"`
	ManagedFieldsCached int     `json:"managedFieldsCached"`
}

// settle collects garbage, gives the scavenger a second, returns free memory
// to the OS and reads HeapAlloc and the RSS.
func settle() (heap uint64, rss uint64) {
	runtime.GC()
	time.Sleep(time.Second)
	debug.FreeOSMemory()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	rss, err := statusBytes("self", "VmRSS")
	if err != nil {
		fail("%v", err)
	}
	return mem.HeapAlloc, rss
}

// parseGVR reads "group/version/resource" ("/v1/configmaps" for the core group).
func parseGVR(text string) (schema.GroupVersionResource, error) {
	parts := strings.Split(text, "/")
	if len(parts) != 3 || parts[1] == "" || parts[2] == "" {
		return schema.GroupVersionResource{}, fmt.Errorf("-full %q is not group/version/resource", text)
	}
	return schema.GroupVersionResource{Group: parts[0], Version: parts[1], Resource: parts[2]}, nil
}

// stripManagedFields is the transform: it drops metadata.managedFields from every object before it is stored.
func stripManagedFields(obj interface{}) (interface{}, error) {
	if accessor, err := meta.Accessor(obj); err == nil {
		accessor.SetManagedFields(nil)
	}
	return obj, nil
}

// runFull runs one typed full-object informer of resource (the objects matching the label selector) and prints a fullReport.
func runFull(config *rest.Config, resource string, selector string, strip bool, timeout time.Duration) {
	gvr, err := parseGVR(resource)
	if err != nil {
		fail("%v", err)
	}
	config.QPS = -1
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail("clientset: %v", err)
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))
	generic, err := factory.ForResource(gvr)
	if err != nil {
		fail("no typed informer for %s: %v", resource, err)
	}
	informer := generic.Informer()
	if strip {
		if err := informer.SetTransform(stripManagedFields); err != nil {
			fail("SetTransform: %v", err)
		}
	}

	heapBefore, rssBefore := settle()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	factory.Start(ctx.Done())
	for !informer.HasSynced() {
		if ctx.Err() != nil {
			fail("the informer of %s did not sync within %s", resource, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
	syncMs := float64(time.Since(started).Microseconds()) / 1000
	heapAfter, rssAfter := settle()

	items := informer.GetStore().List()
	withManagedFields := 0
	for _, obj := range items {
		if accessor, err := meta.Accessor(obj); err == nil && len(accessor.GetManagedFields()) > 0 {
			withManagedFields++
		}
	}
	line, err := json.Marshal(fullReport{
		Side:                "client-go",
		Resource:            resource,
		StripManagedFields:  strip,
		Objects:             len(items),
		SyncMs:              syncMs,
		HeapBeforeBytes:     heapBefore,
		HeapAfterBytes:      heapAfter,
		RssBeforeBytes:      rssBefore,
		RssAfterBytes:       rssAfter,
		ManagedFieldsCached: withManagedFields,
	})
	if err != nil {
		fail("%v", err)
	}
	fmt.Println(string(line))
	// The store stays reachable until the report is printed, so the heap read above still held every object.
	runtime.KeepAlive(items)
	cancel()
	factory.Shutdown()
}
