# Shared by scripts/run and scripts/test (sourced, not run).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
export PATH="$REPO/scripts/tools:$REPO/tests/e2e/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# A target folder outside the clone keeps warm rebuilds (and CI runs of fresh clones) fast.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/kube-api-explorer/target}"
export TRUNK_SKIP_VERSION_CHECK=true

# write_trunk_config BACKEND FILE: Trunk.toml with its [[proxy]] entries sent to BACKEND
# (an http://host:port origin). The copy sits beside Trunk.toml so its relative paths hold.
write_trunk_config() {
  local backend=$1 file=$2
  sed "s#http://127.0.0.1:8001/#${backend%/}/#" Trunk.toml > "$file"
}

# write_kubeconfig SERVER FILE: a kubeconfig whose one context talks to SERVER (an http:// origin,
# no credentials), as kubectl proxy and kubectl need to reach kube-sim.
write_kubeconfig() {
  local server=$1 file=$2
  mkdir -p "$(dirname "$file")"
  cat > "$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kube-sim
  cluster:
    server: $server
users:
- name: kube-sim
  user: {}
contexts:
- name: kube-sim
  context:
    cluster: kube-sim
    user: kube-sim
current-context: kube-sim
EOF
}

# wait_for_http URL SECONDS NAME: waits until URL answers at all, or fails naming NAME.
wait_for_http() {
  local url=$1 seconds=$2 name=$3 i
  for ((i = 0; i < seconds * 5; i++)); do
    if curl -s -o /dev/null --max-time 2 "$url"; then return 0; fi
    sleep 0.2
  done
  echo "error: $name did not answer at $url within ${seconds}s" >&2
  return 1
}

# free_port: a TCP port on loopback that nothing listens on now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
