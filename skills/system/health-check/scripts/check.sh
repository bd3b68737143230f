#!/usr/bin/env bash
# health-check: checks disk, memory, load, listening ports, HTTP endpoints and services of this host.
#
# Usage: check.sh [--mount PATH]... [--disk-threshold PCT] [--memory-threshold PCT]
#                 [--load-factor F] [--port N]... [--url URL]... [--service NAME]...
# stdout: one line per check (OK / FAIL / SKIP) and a final HEALTHY or UNHEALTHY line.
# stderr: details (raw values, curl and systemctl messages).
# Exit: 0 healthy (no check failed), 1 unhealthy (at least one failed), 2 usage error.
# Thresholds and their defaults: references/thresholds.md.
set -euo pipefail

usage() {
  echo "usage: check.sh [--mount PATH]... [--disk-threshold PCT] [--memory-threshold PCT] [--load-factor F] [--port N]... [--url URL]... [--service NAME]..." >&2
  exit 2
}
die_usage() {
  echo "check.sh: $1" >&2
  usage
}

mounts=()
ports=()
urls=()
services=()
disk_threshold=90
memory_threshold=90
load_factor=2

while [ $# -gt 0 ]; do
  case "$1" in
    --mount) [ $# -ge 2 ] || die_usage "--mount needs a path"; mounts+=("$2"); shift 2 ;;
    --disk-threshold) [ $# -ge 2 ] || die_usage "--disk-threshold needs a number"; disk_threshold="$2"; shift 2 ;;
    --memory-threshold) [ $# -ge 2 ] || die_usage "--memory-threshold needs a number"; memory_threshold="$2"; shift 2 ;;
    --load-factor) [ $# -ge 2 ] || die_usage "--load-factor needs a number"; load_factor="$2"; shift 2 ;;
    --port) [ $# -ge 2 ] || die_usage "--port needs a number"; ports+=("$2"); shift 2 ;;
    --url) [ $# -ge 2 ] || die_usage "--url needs a URL"; urls+=("$2"); shift 2 ;;
    --service) [ $# -ge 2 ] || die_usage "--service needs a name"; services+=("$2"); shift 2 ;;
    -h|--help) usage ;;
    *) die_usage "unknown argument: $1" ;;
  esac
done
[ ${#mounts[@]} -gt 0 ] || mounts=("/")

is_percent() { [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 100 ]; }
is_percent "$disk_threshold" || die_usage "--disk-threshold must be a whole number from 1 to 100"
is_percent "$memory_threshold" || die_usage "--memory-threshold must be a whole number from 1 to 100"
[[ "$load_factor" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die_usage "--load-factor must be a positive number"
for port in ${ports[@]+"${ports[@]}"}; do
  [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || die_usage "--port must be 1-65535: $port"
done
for mount in "${mounts[@]}"; do
  [[ "$mount" == /* ]] || die_usage "--mount must be an absolute path: $mount"
done
for url in ${urls[@]+"${urls[@]}"}; do
  [[ "$url" =~ ^https?://[^[:space:]]+$ ]] || die_usage "--url must be an http:// or https:// URL: $url"
done
for service in ${services[@]+"${services[@]}"}; do
  [[ "$service" =~ ^[A-Za-z0-9@._-]+$ ]] || die_usage "--service must be a unit name: $service"
done

ok=0
failed=0
skipped=0
pass() { echo "OK    $1"; ok=$((ok + 1)); }
fail() { echo "FAIL  $1"; failed=$((failed + 1)); }
skip() { echo "SKIP  $1"; skipped=$((skipped + 1)); }
detail() { echo "check.sh: $1" >&2; }

# Disk: used share of each mount point, from df -P (POSIX format, 1024-byte blocks).
for mount in "${mounts[@]}"; do
  if ! line=$(df -P -- "$mount" 2>/dev/null | awk 'NR == 2'); then line=""; fi
  if [ -z "$line" ]; then
    fail "disk $mount: cannot read usage (no such mount point?)"
    continue
  fi
  detail "df $mount: $line"
  used=$(echo "$line" | awk '{ sub(/%/, "", $5); print $5 }')
  if [ "$used" -ge "$disk_threshold" ]; then
    fail "disk $mount ${used}% used (threshold ${disk_threshold}%)"
  else
    pass "disk $mount ${used}% used (threshold ${disk_threshold}%)"
  fi
done

# Memory: (MemTotal - MemAvailable) / MemTotal from /proc/meminfo.
if [ -r /proc/meminfo ]; then
  memory=$(awk '/^MemTotal:/ { t = $2 } /^MemAvailable:/ { a = $2 } END { if (t > 0) printf "%d %d %d", (t - a) * 100 / t, t / 1024, a / 1024 }' /proc/meminfo)
  read -r memory_used memory_total_mib memory_available_mib <<<"$memory"
  detail "memory: ${memory_total_mib} MiB total, ${memory_available_mib} MiB available"
  if [ "$memory_used" -ge "$memory_threshold" ]; then
    fail "memory ${memory_used}% used (threshold ${memory_threshold}%)"
  else
    pass "memory ${memory_used}% used (threshold ${memory_threshold}%)"
  fi
else
  skip "memory: /proc/meminfo is not readable"
fi

# Load: 5-minute load average against the number of cores times the load factor.
if [ -r /proc/loadavg ]; then
  read -r _ load5 _ </proc/loadavg
  cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
  limit=$(awk -v c="$cores" -v f="$load_factor" 'BEGIN { printf "%.2f", c * f }')
  detail "load: 5-minute average $load5 on $cores cores"
  if awk -v l="$load5" -v m="$limit" 'BEGIN { exit !(l > m) }'; then
    fail "load $load5 (5 min) above $limit ($cores cores x $load_factor)"
  else
    pass "load $load5 (5 min) within $limit ($cores cores x $load_factor)"
  fi
else
  skip "load: /proc/loadavg is not readable"
fi

# Ports: a TCP socket in LISTEN state on the port, any address (ss, else /proc/net/tcp{,6}).
listening_ports() {
  if command -v ss >/dev/null 2>&1; then
    ss -ltnH | awk '{ n = split($4, part, ":"); print part[n] }'
  else
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == "0A" { split($2, part, ":"); print part[2] }' |
      while read -r hex; do echo $((16#$hex)); done
  fi
}
if [ ${#ports[@]} -gt 0 ]; then
  listening=$(listening_ports | sort -un | tr '\n' ' ')
  detail "listening TCP ports: ${listening:-none}"
  for port in "${ports[@]}"; do
    if [[ " $listening " == *" $port "* ]]; then
      pass "port $port is listening"
    else
      fail "port $port is not listening"
    fi
  done
fi

# URLs: an answer with status 2xx or 3xx within 5 seconds (curl, else python3 urllib).
http_status() {
  if command -v curl >/dev/null 2>&1; then
    curl --silent --show-error --output /dev/null --max-time 5 --write-out '%{http_code}' -- "$1" || true
  else
    python3 - "$1" <<'PY' || true
import sys, urllib.request, urllib.error
try:
    with urllib.request.urlopen(sys.argv[1], timeout=5) as answer:
        print(answer.status, end="")
except urllib.error.HTTPError as error:
    print(error.code, end="")
except Exception as error:
    print(f"python3: {error}", file=sys.stderr)
    print("000", end="")
PY
  fi
}
for url in ${urls[@]+"${urls[@]}"}; do
  status=$(http_status "$url")
  detail "GET $url -> ${status:-no answer}"
  if [[ "$status" =~ ^[23][0-9][0-9]$ ]]; then
    pass "url $url answered $status"
  elif [[ "$status" =~ ^[1-9][0-9][0-9]$ ]]; then
    fail "url $url answered $status"
  else
    fail "url $url did not answer"
  fi
done

# Services: systemctl is-active, only when systemd runs this host.
for service in ${services[@]+"${services[@]}"}; do
  if ! command -v systemctl >/dev/null 2>&1; then
    skip "service $service: systemctl is not installed"
  elif [ ! -d /run/systemd/system ]; then
    skip "service $service: systemd is not running on this host"
  else
    state=$(systemctl is-active -- "$service" 2>&1 || true)
    detail "systemctl is-active $service: $state"
    if [ "$state" = "active" ]; then
      pass "service $service is active"
    else
      fail "service $service is ${state:-unknown}"
    fi
  fi
done

if [ "$failed" -eq 0 ]; then
  echo "HEALTHY: $ok ok, $failed failed, $skipped skipped"
  exit 0
fi
echo "UNHEALTHY: $ok ok, $failed failed, $skipped skipped"
exit 1
