#!/usr/bin/env bash
# Builds the local control plane's binaries from their Go modules, once per version.
# Output: $KPT_TS_CACHE/<component>-<version>/bin/<binary>. Prints the bin directory of each on success.
# Nothing is downloaded from release sites: only the Go module proxy is used.
# Any Kubernetes the module proxy serves: K8S_VERSION=v1.34.4 (or v1.35.4, the default, v1.36.3,
# v1.37.2...). Each builds with the Go on PATH when that Go is at least what the version's go.mod
# asks for; otherwise export GOTOOLCHAIN=go1.27.3 (or the version named), and the go command takes
# that toolchain from the module proxy like a module.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-v1.35.4}
ETCD_VERSION=${ETCD_VERSION:-v3.6.10}
KWOK_VERSION=${KWOK_VERSION:-v0.8.0}
CACHE=${KPT_TS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kpt-ts/cluster}

command -v go >/dev/null || { echo "kpt-ts cluster: 'go' is not on PATH; install Go >= 1.25 to build the local control plane (or set KUBEBUILDER_ASSETS)" >&2; exit 127; }

export GOTOOLCHAIN=${GOTOOLCHAIN:-local} CGO_ENABLED=0 GOFLAGS=-mod=mod
log() { echo "[build] $*" >&2; }

build_k8s() {
  local dir="$CACHE/kubernetes-$K8S_VERSION" minor staging gomod m need have
  if [ -x "$dir/bin/kube-apiserver" ] && "$dir/bin/kube-apiserver" --version 2>/dev/null | grep -qx "Kubernetes $K8S_VERSION" \
     && [ -x "$dir/bin/kube-controller-manager" ] && [ -x "$dir/bin/kube-scheduler" ]; then return; fi
  log "building kube-apiserver, kube-controller-manager, kube-scheduler $K8S_VERSION (first run only; ~15 min on 2 cores)"
  minor=$(echo "$K8S_VERSION" | cut -d. -f2); staging="v0.${K8S_VERSION#v1.}"
  mkdir -p "$dir/src" && cd "$dir/src"
  [ -f go.mod ] || go mod init kpt-ts.local/k8sbins >/dev/null 2>&1
  # k8s.io/kubernetes requires its staging modules at v0.0.0 with local replaces; map each to its published tag.
  gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')
  for m in $(sed -n 's#^\t\(k8s\.io/[a-z0-9-]*\) v0\.0\.0$#\1#p' "$gomod"); do
    go mod edit "-replace=$m=$m@$staging"
  done
  need=$(sed -n 's/^go //p' "$gomod")
  have=$(go env GOVERSION); have=${have#go}
  if [ "$GOTOOLCHAIN" = local ] && [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
    echo "kpt-ts cluster: Kubernetes $K8S_VERSION needs Go >= $need and the Go on PATH is $have: export GOTOOLCHAIN=go$need (or newer; the go command fetches it from the module proxy) and run again" >&2
    exit 1
  fi
  go mod edit -go="$need"
  go get "k8s.io/kubernetes/cmd/kube-apiserver@$K8S_VERSION" "k8s.io/kubernetes/cmd/kube-controller-manager@$K8S_VERSION" \
         "k8s.io/kubernetes/cmd/kube-scheduler@$K8S_VERSION" >&2
  local V="-X k8s.io/component-base/version" C="-X k8s.io/client-go/pkg/version"
  local ldf="-s -w $V.gitVersion=$K8S_VERSION $V.gitMajor=1 $V.gitMinor=$minor $V.gitTreeState=clean $V.buildDate=1970-01-01T00:00:00Z $C.gitVersion=$K8S_VERSION $C.gitMajor=1 $C.gitMinor=$minor"
  go build -trimpath -ldflags "$ldf" -o "$dir/bin/" k8s.io/kubernetes/cmd/kube-apiserver \
    k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler >&2
}

build_etcd() {
  local dir="$CACHE/etcd-$ETCD_VERSION"
  if [ -x "$dir/bin/etcd" ]; then return; fi
  log "building etcd $ETCD_VERSION"
  mkdir -p "$dir/src" && cd "$dir/src"
  [ -f go.mod ] || go mod init kpt-ts.local/etcdbin >/dev/null 2>&1
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2
  go build -trimpath -ldflags "-s -w" -o "$dir/bin/etcd" go.etcd.io/etcd/server/v3 >&2
}

build_kwok() {
  local dir="$CACHE/kwok-$KWOK_VERSION" src f
  if [ -x "$dir/bin/kwok" ] && [ -f "$dir/stages/pod-ready.yaml" ]; then return; fi
  log "building kwok $KWOK_VERSION"
  mkdir -p "$dir/bin" "$dir/stages"
  GOBIN="$dir/bin" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" >&2
  # kwok needs Stage objects to play the kubelet; kwokctl embeds these defaults, we take them from the same module.
  src=$(go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/.*"Dir": "\(.*\)",*/\1/p')
  for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml pod/fast/pod-ready.yaml \
           pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    cp "$src/kustomize/stage/$f" "$dir/stages/"
  done
  chmod u+w "$dir/stages/"*
}

case "${1:-all}" in
  etcd) build_etcd ;;
  kwok) build_kwok ;;
  kubernetes) build_k8s ;;
  all) build_etcd; build_kwok; build_k8s ;;
esac
echo "$CACHE"
