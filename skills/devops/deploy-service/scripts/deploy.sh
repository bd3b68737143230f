#!/usr/bin/env bash
# deploy-service: switches a systemd service on a remote host to a release that is already there.
#
# Usage: deploy.sh --host HOST --service UNIT --version VERSION [--user USER] [--ssh-port N]
#                  [--base-dir DIR] [--execute]
# Default is a DRY RUN: prints the plan (the exact ssh commands) and touches nothing.
# With --execute: runs the plan over ssh (BatchMode=yes, ConnectTimeout=5: never prompts).
# Release layout on the host: DIR/UNIT/releases/VERSION, DIR/UNIT/current -> the running release,
# DIR/UNIT/previous -> the release before it (see references/checklist.md). DIR defaults to /opt.
# Exit: 0 planned or deployed, 1 a step failed, 2 usage error, 3 ssh missing or host unreachable.
set -euo pipefail
SCRIPT_NAME=deploy.sh
# shellcheck source=deploy-common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/deploy-common.sh"

host="" service="" version="" user="" base_dir="/opt" execute=0
SSH_PORT=22
while [ $# -gt 0 ]; do
  case "$1" in
    --host|--service|--version|--user|--ssh-port|--base-dir)
      [ $# -ge 2 ] || die "$1 needs a value"
      case "$1" in
        --host) host="$2" ;; --service) service="$2" ;; --version) version="$2" ;;
        --user) user="$2" ;; --ssh-port) SSH_PORT="$2" ;; --base-dir) base_dir="$2" ;;
      esac
      shift 2 ;;
    --execute) execute=1; shift ;;
    *) die "unknown argument: $1 (usage: deploy.sh --host H --service S --version V [--user U] [--ssh-port N] [--base-dir DIR] [--execute])" ;;
  esac
done
[ -n "$host" ] || die "--host is required"
[ -n "$service" ] || die "--service is required"
[ -n "$version" ] || die "--version is required"
check_host "$host"; check_service "$service"; check_version "$version"; check_base_dir "$base_dir"; check_port "$SSH_PORT"
[ -z "$user" ] || check_user "$user"
TARGET="${user:+$user@}$host"

app="${base_dir%/}/$service"
release="$app/releases/$version"
add_step "check that release $version is on the host" "test -d $release"
add_step "check that systemd manages $service" "systemctl cat $service >/dev/null"
add_step "remember the running release as previous" "if [ -e $app/current ]; then ln -sfn \"\$(readlink -f $app/current)\" $app/previous; fi"
add_step "point current at release $version" "ln -sfn $release $app/current"
add_step "restart $service" "systemctl restart $service"
add_step "verify $service is active" "sleep 2 && systemctl is-active --quiet $service"

if [ "$execute" -eq 0 ]; then
  echo "DRY RUN: deploy $service $version to $TARGET (nothing is run; add --execute to run these steps)"
  print_plan
  exit 0
fi
echo "DEPLOY: $service $version to $TARGET"
run_plan
echo "DEPLOYED: $service $version is active on $TARGET"
