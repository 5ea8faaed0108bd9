#!/usr/bin/env bash
# `make test-ray`'s runner: runs a command (the pytest of tests/ray) inside network, PID and mount
# namespaces of its own, so that the local Ray cluster's traffic never reaches this machine's
# interfaces, and nothing it starts outlives the run.
#
# The network namespace has a loopback and a veth pair whose both ends are inside it, with
# FEEDRATE_RAY_NODE_IP (10.213.0.1/24) on one end and the default route through it: Ray detects
# its node address by the route to a public address (a UDP connect, which sends nothing) and binds
# that address; the namespace has no way out, so any packet it sends ends at the pair's other end.
# (Ray 2.60's Cluster with node_ip_address=127.0.0.1 waits forever on its GCS address, which it
# builds from the detected address.) The PID namespace's first process is this script: when it
# ends, however it ends, the kernel kills every process left in it (raylets, the GCS, workers),
# and the network namespace goes with its last process. Ray's session files go into a temporary
# folder (RAY_TMPDIR) removed at the end.
#
# Usage: tests/ray/in_namespace.sh COMMAND...  (as root; otherwise in a user namespace too)
# FEEDRATE_RAY_TIMEOUT (seconds, default 1200) bounds the whole run: past it the command is
# killed and the exit status is 124.
set -euo pipefail

readonly NODE_IP=10.213.0.1

if [[ "${1-}" == --inside ]]; then
  shift
  ip link set lo up
  ip link add feedrate0 type veth peer name feedrate1
  ip addr add "$NODE_IP/24" dev feedrate0
  ip link set feedrate0 up
  ip link set feedrate1 up
  ip route add default dev feedrate0
  # A child, not exec: as the namespace's first process this shell outlives the command and its
  # exit takes every process the command left behind with it.
  "$@" &
  wait $!
  exit
fi

if (($# == 0)); then
  echo "usage: $0 COMMAND..." >&2
  exit 2
fi
for tool in ip unshare timeout; do
  command -v "$tool" >/dev/null || { echo "$0: needs $tool (iproute2, util-linux, coreutils)" >&2; exit 2; }
done
user_namespace=()
[[ "$(id -u)" == 0 ]] || user_namespace=(--map-root-user)
timeout_s="${FEEDRATE_RAY_TIMEOUT:-1200}"
ray_tmp="$(mktemp -d /tmp/feedrate-ray.XXXXXX)"
trap 'rm -rf "$ray_tmp"' EXIT
status=0
# SIGKILL: unshare --fork does not end on SIGTERM while its child runs; killed, it takes the
# namespace's first process with it (--kill-child), and the kernel the rest.
timeout --signal=KILL "$timeout_s" \
  unshare "${user_namespace[@]}" --net --pid --mount --mount-proc --fork --kill-child \
  env RAY_TMPDIR="$ray_tmp" RAY_USAGE_STATS_ENABLED=0 FEEDRATE_RAY_NODE_IP="$NODE_IP" \
  bash "$0" --inside "$@" || status=$?
if ((status == 137 && SECONDS >= timeout_s)); then
  echo "$0: timed out after ${timeout_s} s (FEEDRATE_RAY_TIMEOUT): killed: $*" >&2
  status=124
fi
exit "$status"
