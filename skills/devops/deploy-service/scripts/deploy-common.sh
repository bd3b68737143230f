#!/usr/bin/env bash
# Shared by deploy.sh and rollback.sh (sourced, not run): argument checks, the plan printer and the
# ssh runner. The release layout on the target host is described in references/checklist.md.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  echo "deploy-common.sh only holds functions for deploy.sh and rollback.sh; run one of those" >&2
  exit 2
fi

SSH_OPTIONS=(-o BatchMode=yes -o ConnectTimeout=5)
plan_titles=()
plan_commands=()

die() {
  echo "$SCRIPT_NAME: $1" >&2
  exit "${2:-2}"
}

# Values go into a remote shell command line, so only a strict character set is accepted.
check_host() { [[ "$1" =~ ^[A-Za-z0-9][A-Za-z0-9.-]*$ ]] || die "--host must be a host name or IPv4 address: $1"; }
check_user() { [[ "$1" =~ ^[a-z_][a-z0-9_-]*$ ]] || die "--user must be a user name: $1"; }
check_service() { [[ "$1" =~ ^[A-Za-z0-9][A-Za-z0-9_.@-]*$ ]] || die "--service must be a unit name (letters, digits, _ . @ -): $1"; }
check_version() { [[ "$1" =~ ^[A-Za-z0-9][A-Za-z0-9_.+-]*$ ]] && [[ "$1" != *..* ]] || die "--version must be letters, digits and _ . + - : $1"; }
check_base_dir() { [[ "$1" =~ ^/[A-Za-z0-9_./-]*$ ]] && [[ "$1" != *..* ]] || die "--base-dir must be an absolute path without ..: $1"; }
check_port() { [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 65535 ] || die "--ssh-port must be 1-65535: $1"; }

# Adds one step: a title and the command to run on the host.
add_step() {
  plan_titles+=("$1")
  plan_commands+=("$2")
}

# The ssh command line of one remote command as a shell would read it (the command single-quoted).
ssh_line() {
  local quoted=${1//\'/\'\\\'\'}
  printf "ssh %s -p %s %s '%s'" "${SSH_OPTIONS[*]}" "$SSH_PORT" "$TARGET" "$quoted"
}

print_plan() {
  local index
  for index in "${!plan_titles[@]}"; do
    echo "$((index + 1)). ${plan_titles[$index]}"
    echo "   $(ssh_line "${plan_commands[$index]}")"
  done
}

# Runs the plan over ssh, step by step, stopping at the first failure (exit 1).
# Exit 3 when ssh is missing or the host cannot be reached without a prompt.
run_plan() {
  command -v ssh >/dev/null 2>&1 || die "ssh is not installed on this host; nothing was changed" 3
  echo "$SCRIPT_NAME: checking that $TARGET is reachable over ssh" >&2
  if ! ssh "${SSH_OPTIONS[@]}" -p "$SSH_PORT" "$TARGET" true </dev/null >&2; then
    die "cannot reach $TARGET over ssh without a prompt (BatchMode, 5 s timeout): check the host, the key and known_hosts; nothing was changed" 3
  fi
  local index
  for index in "${!plan_titles[@]}"; do
    echo "$((index + 1)). ${plan_titles[$index]}"
    echo "$SCRIPT_NAME: running $(ssh_line "${plan_commands[$index]}")" >&2
    if ! ssh "${SSH_OPTIONS[@]}" -p "$SSH_PORT" "$TARGET" "${plan_commands[$index]}" </dev/null; then
      echo "FAILED at step $((index + 1)): ${plan_titles[$index]}"
      die "step $((index + 1)) failed; later steps were not run" 1
    fi
    echo "   done"
  done
}
