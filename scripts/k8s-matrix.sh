#!/usr/bin/env bash
# The end-to-end core on given Kubernetes versions, each on its own local cluster:
#   npm run test:k8s-matrix -- v1.34.4 v1.37.2     (no version: the default, v1.35.4)
# For each version: builds its control plane from the Go modules once (cached under
# ~/.cache/kpt-ts/cluster/kubernetes-<version>; a cold build takes 5-15 minutes on 2 cores), starts
# a cluster in .cluster-<version> (stopped afterwards unless it was already running), and runs the
# core: apply (client- and server-side, dry runs, a CRD and its custom resources in one run),
# prune, status, destroy, custom-resource waits, and the interop with the real kpt (skipped, with
# a message, where kpt is not on PATH). Prints a table of the results; exits 1 if any failed.
# A version that needs a newer Go than the one on PATH: export GOTOOLCHAIN=go1.27.3 first.
set -uo pipefail
cd "$(dirname "$0")/.."

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(v1.35.4)
CORE=(test/e2e/smoke.test.ts test/e2e/apply.test.ts test/e2e/prune.test.ts test/e2e/status.test.ts
      test/e2e/destroy.test.ts test/e2e/custom-resource-status.test.ts test/e2e/interop.test.ts)

npm run build >/dev/null || { echo "k8s-matrix: npm run build failed" >&2; exit 1; }
results=()
failed=0
for v in "${versions[@]}"; do
  echo "== Kubernetes $v: control plane binaries"
  if ! K8S_VERSION=$v bash scripts/cluster/build-binaries.sh all >/dev/null; then
    results+=("| $v | build failed | - | - |"); failed=1; continue
  fi
  echo "== Kubernetes $v: ${CORE[*]}"
  start=$(date +%s)
  log=$(mktemp "${TMPDIR:-/tmp}/kpt-ts-k8s-$v-XXXXXX.log")
  K8S_VERSION=$v npx vitest run --project e2e "${CORE[@]}" 2>&1 | tee "$log"
  code=${PIPESTATUS[0]}
  counts=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | sed -n 's/^ *Tests *//p' | tail -1)
  results+=("| $v | $([ "$code" = 0 ] && echo passed || echo FAILED) | ${counts:-?} | $(( $(date +%s) - start ))s |")
  [ "$code" = 0 ] || failed=1
done
echo
echo "| Kubernetes | result | tests | time |"
echo "|---|---|---|---|"
printf '%s\n' "${results[@]}"
exit $failed
