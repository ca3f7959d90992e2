// Command kube-controller-manager is an unmodified upstream kube-controller-manager
// from k8s.io/kubernetes v1.36.3 (same main as cmd/kube-controller-manager/controller-manager.go
// there), built from Go modules so Protean's real-tier tests can run its garbage
// collector and namespace controller. See ../../README.md and ../../build.sh.
package main

import (
	"os"
	_ "time/tzdata" // for CronJob time zone support

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // for JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // load all the prometheus client-go plugins
	_ "k8s.io/component-base/metrics/prometheus/version"  // for version metric registration
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	command := app.NewControllerManagerCommand()
	code := cli.Run(command)
	os.Exit(code)
}
