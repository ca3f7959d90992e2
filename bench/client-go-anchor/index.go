package main

// The index mode of bench/index.mjs: the Go side of "the children of one
// parent among N cached objects", as controller-runtime's cached client
// answers a List with a field index (MatchingFields): client-go's Indexer,
// ByIndex, then a deep copy of each object found (the cached client's default;
// UnsafeDisableDeepCopy skips it). Prints one JSON line.

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

type indexReport struct {
	Side              string  `json:"side"`
	Objects           int     `json:"objects"`
	ByIndexUs         float64 `json:"byIndexUs"`
	ByIndexDeepCopyUs float64 `json:"byIndexDeepCopyUs"`
	HeapPerIndexBytes int64   `json:"heapPerIndexBytes"`
}

const perParent = 10
const lookups = 200
const samples = 5

func configMaps(n int) []*corev1.ConfigMap {
	parents := n / perParent
	out := make([]*corev1.ConfigMap, 0, n)
	for i := 0; i < n; i++ {
		p := i % parents
		out = append(out, &corev1.ConfigMap{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{
				Name:            fmt.Sprintf("cm-%d", i),
				Namespace:       fmt.Sprintf("ns-%d", i%100),
				ResourceVersion: fmt.Sprint(i + 1),
				UID:             types.UID(fmt.Sprintf("uid-cm-%d", i)),
				Labels:          map[string]string{"parent": fmt.Sprintf("p-%d", p)},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "demo/v1", Kind: "Parent", Name: fmt.Sprintf("p-%d", p), UID: types.UID(fmt.Sprintf("uid-p-%d", p))}},
			},
			Data: map[string]string{"key": fmt.Sprintf("value-%d", i)},
		})
	}
	return out
}

func byOwner(obj any) ([]string, error) {
	cm := obj.(*corev1.ConfigMap)
	uids := make([]string, 0, len(cm.OwnerReferences))
	for _, r := range cm.OwnerReferences {
		uids = append(uids, string(r.UID))
	}
	return uids, nil
}

func heapBytes() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// timeLookups: median µs per call of lookup over `lookups` parents, `samples` times.
func timeLookups(parents int, lookup func(p int) int) float64 {
	for i := 0; i < 20; i++ {
		lookup(i)
	}
	var us []float64
	for s := 0; s < samples; s++ {
		started := time.Now()
		found := 0
		for i := 0; i < lookups; i++ {
			found += lookup((i*7919 + s) % parents)
		}
		if found != lookups*perParent {
			fail("found %d children, expected %d", found, lookups*perParent)
		}
		us = append(us, float64(time.Since(started).Microseconds())/lookups)
	}
	sort.Float64s(us)
	return us[len(us)/2]
}

func runIndex(n int) {
	objects := configMaps(n)
	parents := n / perParent
	plain := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, o := range objects {
		_ = plain.Add(o)
	}
	before := heapBytes()
	indexed := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{"owner": byOwner})
	for _, o := range objects {
		_ = indexed.Add(o)
	}
	// The second store holds the same objects: what it adds is its own maps plus the index.
	after := heapBytes()
	storeOnly := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, o := range objects {
		_ = storeOnly.Add(o)
	}
	withStore := heapBytes()
	lookup := func(copy bool) func(int) int {
		return func(p int) int {
			found, err := indexed.ByIndex("owner", fmt.Sprintf("uid-p-%d", p))
			if err != nil {
				fail("%v", err)
			}
			if copy {
				for _, o := range found {
					_ = o.(*corev1.ConfigMap).DeepCopy()
				}
			}
			return len(found)
		}
	}
	r := indexReport{
		Side:              "client-go",
		Objects:           n,
		ByIndexUs:         timeLookups(parents, lookup(false)),
		ByIndexDeepCopyUs: timeLookups(parents, lookup(true)),
		HeapPerIndexBytes: (after - before) - (withStore - after),
	}
	runtime.KeepAlive(plain)
	runtime.KeepAlive(storeOnly)
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fail("%v", err)
	}
}
