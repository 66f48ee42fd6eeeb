#!/usr/bin/env bash
# A single-node Slurm under one folder, for the executor's tests and benchmarks: munged,
# slurmctld and slurmd on localhost (free ports), four fake GPUs (character devices: Slurm
# refuses regular files as GPUs), select/cons_tres, proctrack/linuxproc, no accounting
# (jobcomp/filetxt keeps a record). No systemd: the daemons are started here and stopped by
# their pids. Needs root and Debian's slurm-wlm and munge (scripts/install-deps.sh --tests).
#
# Usage: slurm_cluster.sh start DIR          prints SLURM_CONF=DIR/slurm/slurm.conf when the node is up
#        slurm_cluster.sh stop DIR           stops every daemon it started (by pid)
#        slurm_cluster.sh stop-controller DIR / start-controller DIR   (slurmctld alone; its state is kept)
# `start` exits 77 and says why on stderr when a cluster cannot run here (not root, a package
# missing, a daemon that does not come up): callers report that as skipped, never as passed.
set -u
cmd=${1:?usage: slurm_cluster.sh start|stop|stop-controller|start-controller DIR}
dir=${2:?usage: slurm_cluster.sh $cmd DIR}

skip() {
  echo "SKIP: $*" >&2
  exit 77
}

# Waits until the pid in FILE is gone (TERM, then KILL after 10 s).
stop_pid_file() {
  local file=$1 pid
  [[ -f $file ]] || return 0
  pid=$(cat "$file" 2>/dev/null)
  [[ -n $pid ]] || return 0
  kill "$pid" 2>/dev/null || { rm -f "$file"; return 0; }
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$file"; return 0; }
    # A zombie (its parent has not reaped it) holds no port and no lock: it is gone.
    [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) == Z ]] && { rm -f "$file"; return 0; }
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null
  rm -f "$file"
}

free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
    return
  fi
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 20000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  echo 26817
}

start_controller() {
  slurmctld -f "$dir/slurm/slurm.conf" </dev/null >>"$dir/slurm/log/slurmctld.stdout" 2>&1 ||
    return 1
  for _ in $(seq 1 100); do
    SLURM_CONF=$dir/slurm/slurm.conf scontrol ping 2>/dev/null | grep -q "is UP" && return 0
    sleep 0.1
  done
  return 1
}

case $cmd in
  start)
    [[ $(id -u) -eq 0 ]] || skip "a test Slurm needs root (slurmd starts jobs as their users)"
    for p in munged slurmctld slurmd sbatch squeue scontrol scancel sinfo runuser mknod; do
      command -v "$p" >/dev/null 2>&1 ||
        skip "$p not found (scripts/install-deps.sh --tests installs slurm-wlm and munge)"
    done
    id munge >/dev/null 2>&1 || skip "no munge user (the munge package creates it)"
    mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || skip "cannot create $dir"
    chmod 755 "$dir"
    (( ${#dir} < 70 )) || skip "folder path too long for munge's socket: $dir"

    # munge: its socket folder 0755 and its key 0600, both owned by the munge user.
    mkdir -p "$dir/munge" "$dir/munge-key" "$dir/slurm/state" "$dir/slurm/spool" "$dir/slurm/log"
    chown munge:munge "$dir/munge" "$dir/munge-key"
    chmod 755 "$dir/munge"
    chmod 700 "$dir/munge-key"
    head -c 1024 /dev/urandom >"$dir/munge-key/munge.key"
    chown munge:munge "$dir/munge-key/munge.key"
    chmod 600 "$dir/munge-key/munge.key"
    runuser -u munge -- munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge-key/munge.key" \
      --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
      --seed-file="$dir/munge/munged.seed" </dev/null >/dev/null 2>&1 ||
      skip "munged did not start: $(tail -n 3 "$dir/munge/munged.log" 2>/dev/null)"
    for _ in $(seq 1 50); do [[ -S $dir/munge/munge.socket ]] && break; sleep 0.1; done
    [[ -S $dir/munge/munge.socket ]] || skip "munged made no socket: $(tail -n 3 "$dir/munge/munged.log")"

    for i in 0 1 2 3; do
      [[ -c $dir/slurm/fakegpu$i ]] || mknod "$dir/slurm/fakegpu$i" c 1 3 ||
        skip "mknod refused a character device (no CAP_MKNOD here)"
    done
    ctld_port=$(free_port)
    d_port=$(free_port)
    while [[ $d_port == "$ctld_port" ]]; do d_port=$(free_port); done
    cat >"$dir/slurm/slurm.conf" <<EOF
# A single-node test cluster (tests/exec/slurm_cluster.sh).
ClusterName=socratic-test
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/slurm/state
SlurmdSpoolDir=$dir/slurm/spool
SlurmctldPidFile=$dir/slurm/slurmctld.pid
SlurmdPidFile=$dir/slurm/slurmd.pid
SlurmctldLogFile=$dir/slurm/log/slurmctld.log
SlurmdLogFile=$dir/slurm/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/slurm/log/jobcomp.txt
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
MessageTimeout=3
KillWait=2
MinJobAge=300
SchedulerParameters=batch_sched_delay=0
NodeName=localhost NodeAddr=127.0.0.1 CPUs=8 RealMemory=1000 Gres=gpu:4 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
    echo "NodeName=localhost Name=gpu File=$dir/slurm/fakegpu[0-3]" >"$dir/slurm/gres.conf"
    export SLURM_CONF=$dir/slurm/slurm.conf
    start_controller || skip "slurmctld did not come up: $(tail -n 5 "$dir/slurm/log/slurmctld.log" 2>/dev/null)"
    slurmd -f "$SLURM_CONF" -N localhost </dev/null >>"$dir/slurm/log/slurmd.stdout" 2>&1 ||
      skip "slurmd did not start: $(tail -n 5 "$dir/slurm/log/slurmd.log" 2>/dev/null)"
    for _ in $(seq 1 300); do
      state=$(sinfo -h -n localhost -o %T 2>/dev/null)
      [[ $state == idle ]] && { echo "SLURM_CONF=$SLURM_CONF"; exit 0; }
      sleep 0.2
    done
    skip "the node did not become idle (sinfo: ${state:-nothing}): $(tail -n 5 "$dir/slurm/log/slurmd.log" 2>/dev/null)"
    ;;
  stop)
    # Jobs still running end first (their steps outlive slurmd otherwise).
    if [[ -f $dir/slurm/slurmctld.pid ]] && SLURM_CONF=$dir/slurm/slurm.conf scontrol ping 2>/dev/null | grep -q "is UP"; then
      SLURM_CONF=$dir/slurm/slurm.conf scancel --quiet --user "$(id -un)" 2>/dev/null
      for _ in $(seq 1 50); do
        [[ -z $(SLURM_CONF=$dir/slurm/slurm.conf squeue -h -t running,completing -o %i 2>/dev/null) ]] && break
        sleep 0.1
      done
    fi
    stop_pid_file "$dir/slurm/slurmd.pid"
    stop_pid_file "$dir/slurm/slurmctld.pid"
    stop_pid_file "$dir/munge/munged.pid"
    ;;
  stop-controller)
    stop_pid_file "$dir/slurm/slurmctld.pid"
    ;;
  start-controller)
    start_controller || { echo "slurmctld did not come up again" >&2; exit 1; }
    ;;
  *)
    echo "slurm_cluster.sh: unknown command $cmd" >&2
    exit 2
    ;;
esac
