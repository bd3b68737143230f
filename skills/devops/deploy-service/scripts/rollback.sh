#!/usr/bin/env bash
# deploy-service: puts a systemd service on a remote host back on its previous release (or a named one).
#
# Usage: rollback.sh --host HOST --service UNIT [--to VERSION] [--user USER] [--ssh-port N]
#                    [--base-dir DIR] [--execute]
# Default is a DRY RUN: prints the plan (the exact ssh commands) and touches nothing.
# With --execute: runs the plan over ssh (BatchMode=yes, ConnectTimeout=5: never prompts).
# Without --to it returns to DIR/UNIT/previous, the release deploy.sh recorded before switching.
# Exit: 0 planned or rolled back, 1 a step failed, 2 usage error, 3 ssh missing or host unreachable.
set -euo pipefail
SCRIPT_NAME=rollback.sh
# shellcheck source=deploy-common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/deploy-common.sh"

host="" service="" to="" user="" base_dir="/opt" execute=0
SSH_PORT=22
while [ $# -gt 0 ]; do
  case "$1" in
    --host|--service|--to|--user|--ssh-port|--base-dir)
      [ $# -ge 2 ] || die "$1 needs a value"
      case "$1" in
        --host) host="$2" ;; --service) service="$2" ;; --to) to="$2" ;;
        --user) user="$2" ;; --ssh-port) SSH_PORT="$2" ;; --base-dir) base_dir="$2" ;;
      esac
      shift 2 ;;
    --execute) execute=1; shift ;;
    *) die "unknown argument: $1 (usage: rollback.sh --host H --service S [--to V] [--user U] [--ssh-port N] [--base-dir DIR] [--execute])" ;;
  esac
done
[ -n "$host" ] || die "--host is required"
[ -n "$service" ] || die "--service is required"
check_host "$host"; check_service "$service"; check_base_dir "$base_dir"; check_port "$SSH_PORT"
[ -z "$to" ] || check_version "$to"
[ -z "$user" ] || check_user "$user"
TARGET="${user:+$user@}$host"

app="${base_dir%/}/$service"
if [ -n "$to" ]; then
  target_release="$app/releases/$to"
  what="release $to"
  add_step "check that release $to is on the host" "test -d $target_release"
else
  target_release="\"\$(readlink -f $app/previous)\""
  what="the previous release"
  add_step "check that a previous release is recorded" "test -d $app/previous"
fi
add_step "point current at $what" "ln -sfn $target_release $app/current"
add_step "restart $service" "systemctl restart $service"
add_step "verify $service is active" "sleep 2 && systemctl is-active --quiet $service"

if [ "$execute" -eq 0 ]; then
  echo "DRY RUN: roll $service on $TARGET back to $what (nothing is run; add --execute to run these steps)"
  print_plan
  exit 0
fi
echo "ROLLBACK: $service on $TARGET to $what"
run_plan
echo "ROLLED BACK: $service is active on $TARGET ($what)"
