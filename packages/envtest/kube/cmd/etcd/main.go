// Command etcd is an unmodified upstream etcd server (go.etcd.io/etcd/server/v3, the
// version pinned by k8s.io/kubernetes v1.36.3), built from Go modules as the storage
// backend for the test kube-apiserver. See ../../README.md and ../../build.sh.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
