#!/usr/bin/env bash
# Smoke test for the locally built etcd + kube-apiserver (see README.md).
#
#  1. builds (or reuses cached) binaries via build.sh, unless PROTEAN_KUBE_BIN_DIR is set;
#  2. generates a CA, a serving cert for 127.0.0.1, an admin client cert
#     (CN=admin, O=system:masters) and a service-account RSA key with openssl;
#  3. starts etcd and kube-apiserver on free loopback ports, waits for /readyz;
#  4. creates a ConfigMap and a CRD, creates + lists a custom resource;
#  5. forces an etcd compaction through etcd's HTTP/JSON gateway and checks
#     that the API server then answers 410 Gone for a compacted resourceVersion;
#  6. restarts etcd on the same data dir (new ports) and kube-apiserver against it
#     (this time with --watch-cache=false), checks the objects survived, compacts
#     again and checks a WATCH from an old resourceVersion gets a 410 ERROR event
#     (skip step 6 with SMOKE_SKIP_RESTART=1);
#  7. stops both with SIGTERM.
# Exit status 0 on success. SMOKE_KEEP=1 keeps the temp dir (logs, certs).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"

log() { printf '[smoke %5ss] %s\n' "$SECONDS" "$*" >&2; }
die() { log "FAIL: $*"; exit 1; }

for tool in openssl curl; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done

if [[ -n "${PROTEAN_KUBE_BIN_DIR:-}" ]]; then
  bin="$PROTEAN_KUBE_BIN_DIR"
else
  bin="$("$here/build.sh" | tail -n 1)"
fi
[[ -x "$bin/kube-apiserver" && -x "$bin/etcd" ]] || die "no binaries in $bin"
log "binaries: $bin"

work="$(mktemp -d "${TMPDIR:-/tmp}/protean-kube-smoke.XXXXXX")"
etcd_pid="" apiserver_pid=""

stop_pid() { # stop_pid PID NAME: SIGTERM, wait up to 30s, then SIGKILL
  local pid="$1" name="$2" t0=$SECONDS
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name (pid $pid) did not exit after SIGTERM; SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
  log "$name stopped in $((SECONDS - t0))s"
}

cleanup() {
  local rc=$?
  stop_pid "$apiserver_pid" kube-apiserver
  stop_pid "$etcd_pid" etcd
  if [[ $rc -ne 0 || -n "${SMOKE_KEEP:-}" ]]; then
    log "kept work dir $work (logs: $work/*.log)"
    if [[ $rc -ne 0 ]]; then
      for f in "$work"/*.log; do [[ -f "$f" ]] && { echo "--- tail $f" >&2; tail -n 30 "$f" >&2; }; done
    fi
  else
    rm -rf -- "$work"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A free loopback TCP port: random pick, rejected if something accepts on it.
# (Racy by nature; a Node harness should prefer net.createServer().listen(0).)
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
}

# ---- certificates ---------------------------------------------------------------
pki="$work/pki"
mkdir -p "$pki"
log "generating certificates in $pki"
(
  cd "$pki"
  # CA (signs both the serving cert and the client certs)
  openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 \
    -keyout ca.key -out ca.crt -subj "/CN=protean-test-ca" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null

  # API server serving cert for 127.0.0.1 / localhost
  openssl req -new -newkey rsa:2048 -nodes -sha256 \
    -keyout serving.key -out serving.csr -subj "/CN=kube-apiserver" 2>/dev/null
  printf '%s\n' \
    "basicConstraints=critical,CA:FALSE" \
    "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth" \
    "subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes.default.svc" >serving.ext
  openssl x509 -req -sha256 -days 3650 -in serving.csr -CA ca.crt -CAkey ca.key \
    -CAcreateserial -extfile serving.ext -out serving.crt 2>/dev/null

  # Admin client cert: CN=admin (user), O=system:masters (group bound to cluster-admin)
  openssl req -new -newkey rsa:2048 -nodes -sha256 \
    -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=admin" 2>/dev/null
  printf '%s\n' \
    "basicConstraints=critical,CA:FALSE" \
    "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=clientAuth" >client.ext
  openssl x509 -req -sha256 -days 3650 -in admin.csr -CA ca.crt -CAkey ca.key \
    -CAcreateserial -extfile client.ext -out admin.crt 2>/dev/null

  # Service-account token signing key (RSA) and its public half
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out sa.key 2>/dev/null
  openssl pkey -in sa.key -pubout -out sa.pub 2>/dev/null
)

# ---- etcd -----------------------------------------------------------------------
etcd_data="$work/etcd-data"
start_etcd() {
  etcd_client_port="$(free_port)"
  etcd_peer_port="$(free_port)"
  etcd_url="http://127.0.0.1:$etcd_client_port"
  local t0=$SECONDS
  "$bin/etcd" \
    --name=protean \
    --data-dir="$etcd_data" \
    --listen-client-urls="$etcd_url" \
    --advertise-client-urls="$etcd_url" \
    --listen-peer-urls="http://127.0.0.1:$etcd_peer_port" \
    --initial-advertise-peer-urls="http://127.0.0.1:$etcd_peer_port" \
    --initial-cluster="protean=http://127.0.0.1:$etcd_peer_port" \
    --unsafe-no-fsync=true \
    --log-level=warn \
    >>"$work/etcd.log" 2>&1 &
  etcd_pid=$!
  for _ in $(seq 1 300); do
    kill -0 "$etcd_pid" 2>/dev/null || die "etcd exited"
    if curl -fsS "$etcd_url/health" 2>/dev/null | grep -q '"health":"true"'; then
      log "etcd up at $etcd_url (pid $etcd_pid) in $((SECONDS - t0))s"
      return
    fi
    sleep 0.1
  done
  die "etcd not healthy after 30s"
}

# ---- kube-apiserver -------------------------------------------------------------
kcurl() { # kcurl PATH [curl args...]: admin-authenticated request, fails on HTTP >= 400
  local path="$1"; shift
  # (a non-curl User-Agent: the API server pretty-prints JSON for curl/wget agents)
  curl -sS --fail-with-body -A protean-smoke --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" \
    "https://127.0.0.1:$apiserver_port$path" "$@"
}
start_apiserver() {
  apiserver_port="$(free_port)"
  local t0=$SECONDS
  "$bin/kube-apiserver" \
    --etcd-servers="$etcd_url" \
    --cert-dir="$work/apiserver-certs" \
    --tls-cert-file="$pki/serving.crt" \
    --tls-private-key-file="$pki/serving.key" \
    --secure-port="$apiserver_port" \
    --bind-address=127.0.0.1 \
    --advertise-address=127.0.0.1 \
    --client-ca-file="$pki/ca.crt" \
    --authorization-mode=RBAC \
    --service-account-issuer="https://127.0.0.1:$apiserver_port/" \
    --service-account-key-file="$pki/sa.pub" \
    --service-account-signing-key-file="$pki/sa.key" \
    --service-cluster-ip-range=10.0.0.0/24 \
    --allow-privileged=true \
    --disable-admission-plugins=ServiceAccount \
    --endpoint-reconciler-type=none \
    "$@" \
    >>"$work/kube-apiserver.log" 2>&1 &
  apiserver_pid=$!
  local out=""
  for _ in $(seq 1 1800); do
    kill -0 "$apiserver_pid" 2>/dev/null || die "kube-apiserver exited"
    out="$(kcurl /readyz 2>/dev/null)" || true
    if [[ "$out" == ok ]]; then
      readyz_seconds=$((SECONDS - t0))
      log "kube-apiserver ready at https://127.0.0.1:$apiserver_port (pid $apiserver_pid): /readyz ok after ${readyz_seconds}s"
      return
    fi
    sleep 0.1
  done
  die "kube-apiserver not ready after 180s"
}

start_etcd
start_apiserver
first_readyz=$readyz_seconds
log "/version: $(kcurl /version | tr -d ' \n')"

# ---- objects --------------------------------------------------------------------
log "create ConfigMap default/smoke"
cm_json="$(kcurl /api/v1/namespaces/default/configmaps -X POST -H 'Content-Type: application/json' \
  -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"smoke"},"data":{"hello":"world"}}')"
cm_rv="$(grep -o '"resourceVersion": *"[0-9]*"' <<<"$cm_json" | grep -o '[0-9]*' | head -n1)"
[[ -n "$cm_rv" ]] || die "no resourceVersion in $cm_json"
log "ConfigMap resourceVersion=$cm_rv"

log "create CRD widgets.smoke.protean.dev"
kcurl /apis/apiextensions.k8s.io/v1/customresourcedefinitions -X POST -H 'Content-Type: application/json' -d '{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.smoke.protean.dev"},
  "spec": {
    "group": "smoke.protean.dev", "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}]
  }}' >/dev/null
t0=$SECONDS
for _ in $(seq 1 300); do
  if kcurl /apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.smoke.protean.dev 2>/dev/null \
     | tr -d ' \n' | grep -q '"type":"Established","status":"True"'; then break; fi
  sleep 0.1
done
log "CRD Established after $((SECONDS - t0))s"
# Established does not guarantee the new endpoint is already routed; retry the create briefly.
for i in $(seq 1 100); do
  if kcurl /apis/smoke.protean.dev/v1/namespaces/default/widgets -X POST -H 'Content-Type: application/json' \
      -d '{"apiVersion":"smoke.protean.dev/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3}}' \
      >/dev/null 2>&1; then break; fi
  [[ $i -eq 100 ]] && die "could not create Widget"
  sleep 0.1
done
list="$(kcurl /apis/smoke.protean.dev/v1/namespaces/default/widgets)"
grep -q '"kind":"WidgetList"' <<<"$list" || die "unexpected list: $list"
grep -q '"name":"w1"' <<<"$list" || die "w1 missing from list: $list"
log "listed widgets: $(grep -o '"name":"[^"]*"' <<<"$list" | tr '\n' ' ')"

# ---- forced etcd compaction via etcd's gRPC-gateway (HTTP/JSON) --------------------
b64() { printf '%s' "$1" | base64 | tr -d '\n'; }
etcd_revision() { # current etcd revision = header.revision of any range request
  curl -fsS -X POST "$etcd_url/v3/kv/range" -d '{"key":"AA==","limit":1}' \
    | grep -o '"revision":"[0-9]*"' | head -n1 | grep -o '[0-9]*'
}
# compact_etcd: compact to the current revision, then record it under the key
# "compact_rev_key" exactly like kube-apiserver's own compactor does. Without that
# record the API server's watch cache never learns about an external compaction.
compact_etcd() {
  local rev again
  rev="$(etcd_revision)"
  [[ -n "$rev" ]] || die "could not read etcd revision"
  curl -fsS -X POST "$etcd_url/v3/kv/compaction" -d "{\"revision\":\"$rev\",\"physical\":true}" >/dev/null
  # Compacting to the same revision again is an error, which proves it took effect.
  again="$(curl -sS -X POST "$etcd_url/v3/kv/compaction" -d "{\"revision\":\"$rev\"}")"
  grep -q 'compacted' <<<"$again" || die "repeat compaction did not report 'compacted': $again"
  curl -fsS -X POST "$etcd_url/v3/kv/put" \
    -d "{\"key\":\"$(b64 compact_rev_key)\",\"value\":\"$(b64 "$rev")\"}" >/dev/null
  log "etcd compacted at revision $rev (repeat says: $again)"
}
http_code() { # http_code PATH: status code of an admin GET
  curl -sS -o /dev/null -w '%{http_code}' -A protean-smoke \
    --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" "https://127.0.0.1:$apiserver_port$1"
}

compact_etcd
# With the watch cache on (default), a LIST at an exact compacted resourceVersion becomes
# 410 Gone once the cacher polls compact_rev_key (every 15s, so expect up to ~15s).
t0=$SECONDS
exact="/api/v1/namespaces/default/configmaps?resourceVersion=$cm_rv&resourceVersionMatch=Exact"
code=""
for _ in $(seq 1 250); do
  code="$(http_code "$exact")"
  [[ "$code" == 410 ]] && break
  sleep 0.1
done
[[ "$code" == 410 ]] || die "expected 410 Gone for LIST $exact, got $code"
log "LIST $exact -> 410 Gone after $((SECONDS - t0))s (watch cache on)"

# ---- restart both on the same data dir -------------------------------------------
if [[ -z "${SMOKE_SKIP_RESTART:-}" ]]; then
  log "restart: stopping kube-apiserver and etcd"
  stop_pid "$apiserver_pid" kube-apiserver; apiserver_pid=""
  stop_pid "$etcd_pid" etcd; etcd_pid=""
  start_etcd                            # same --data-dir, new ports
  start_apiserver --watch-cache=false   # same certs, new port; watch cache off this time
  kcurl /api/v1/namespaces/default/configmaps/smoke | grep -q '"hello": *"world"' || die "ConfigMap lost"
  list="$(kcurl /apis/smoke.protean.dev/v1/namespaces/default/widgets)"
  grep -q '"name":"w1"' <<<"$list" || die "Widget lost after restart: $list"
  log "after restart: ConfigMap and Widget still present"

  # With --watch-cache=false, a WATCH from a compacted resourceVersion fails immediately:
  # HTTP 200 whose first event is {"type":"ERROR","object":{"kind":"Status",...,"code":410}}.
  old_rv="$(kcurl /api/v1/namespaces/default/configmaps/smoke -X PUT -H 'Content-Type: application/json' \
    -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"smoke"},"data":{"hello":"again"}}' \
    | grep -o '"resourceVersion":"[0-9]*"' | head -n1 | grep -o '[0-9]*')"
  # Two more writes: the watch must start (old_rv+1) strictly below the compaction revision.
  # (If old_rv+1 == compacted revision, etcd serves the event without its previous value and
  # kube-apiserver answers a 500 "etcd event received with PrevKv=nil" ERROR event instead.)
  for v in third fourth; do
    kcurl /api/v1/namespaces/default/configmaps/smoke -X PUT -H 'Content-Type: application/json' \
      -d "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"smoke\"},\"data\":{\"hello\":\"$v\"}}" >/dev/null
  done
  compact_etcd
  ev="$(kcurl "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=$old_rv&timeoutSeconds=2" | head -n1)"
  grep -q '"type":"ERROR"' <<<"$ev" && grep -q '"code":410' <<<"$ev" \
    || die "expected a 410 ERROR watch event, got: $ev"
  log "WATCH from compacted rv $old_rv -> $ev"
fi

log "PASS (first /readyz after ${first_readyz}s)"
