#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/local-slurm.sh brings up a one-node Slurm that runs a job array (each task once, with its
# own index), reports itself up, and goes down leaving no daemon behind.
set -u
script=$1
dir=$(mktemp -d /tmp/scal-slurm-test-XXXXXX)
# apart from a cluster a user keeps up on the default port, and from other tests' clusters (pairs
# of ports never overlap), below Linux's ephemeral range (32768 and up), where other programs'
# outgoing connections could hold it
port=$((20000 + $$ % 6000 * 2))
fail() { echo "FAIL: $*"; SCAL_SLURM_PORT=$port bash "$script" down "$dir" > /dev/null 2>&1; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "skip: local Slurm needs root"; exit 77; }
out=$(SCAL_SLURM_PORT=$port bash "$script" up "$dir"); rc=$?
[ "$rc" -eq 77 ] && { echo "skip: slurm-wlm/munge cannot be installed here"; exit 77; }
[ "$rc" -eq 0 ] || fail "local-slurm.sh up exited $rc"
[ "$out" = "export SLURM_CONF=$dir/slurm.conf" ] || fail "up printed '$out'"
export SLURM_CONF=$dir/slurm.conf
bash "$script" status "$dir" || fail "status says the node is not up"
[ "$(sinfo -h -o '%c')" -eq "$(nproc --all)" ] || fail "the node does not have this machine's CPUs"
printf '#!/bin/sh\necho "task $SLURM_ARRAY_TASK_ID"\n' > "$dir/task.sh"
job=$(sbatch --parsable --array=0-3 -o "$dir/task-%a.out" "$dir/task.sh") || fail "sbatch refused the array"
# wait for the job to leave the queue (its state, bounded)
for _ in $(seq 1 600); do
  [ -z "$(squeue -h -j "$job" 2> /dev/null)" ] && break
  sleep 0.1
done
[ -z "$(squeue -h -j "$job")" ] || fail "the array did not finish within 60 s"
for i in 0 1 2 3; do
  [ "$(cat "$dir/task-$i.out" 2> /dev/null)" = "task $i" ] || fail "array task $i did not run once with its index"
done
echo "ok: a 4-task array ran, each task once"
# a dead controller: up says so and fails within its stated 30 s (bounded here at a minute), status too
pids=$(cat "$dir"/*.pid)
kill -9 "$(cat "$dir/slurmctld.pid")"
while kill -0 "$(cat "$dir/slurmctld.pid")" 2> /dev/null; do sleep 0.05; done
err=$(SCAL_SLURM_PORT=$port timeout 60 bash "$script" up "$dir" 2>&1 > /dev/null); rc=$?
[ "$rc" -ne 124 ] || fail "up against a killed slurmctld did not fail within a minute"
[ "$rc" -ne 0 ] || fail "up against a killed slurmctld succeeded"
case "$err" in *"slurmctld is not running"*) ;; *) fail "up does not say slurmctld died: $err" ;; esac
SCAL_SLURM_PORT=$port timeout 60 bash "$script" status "$dir" && fail "status says a cluster without slurmctld is up"
echo "ok: up against a killed slurmctld fails (exit $rc): ${err##*local-slurm: }"
SCAL_SLURM_PORT=$port bash "$script" down "$dir" || fail "down exited non-zero"
for p in $pids; do kill -0 "$p" 2> /dev/null && fail "daemon $p still running after down"; done
[ ! -e "$dir" ] || fail "down left $dir behind"
echo "PASS: local Slurm up, job array, down"
