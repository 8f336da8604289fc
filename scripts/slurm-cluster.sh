#!/usr/bin/env bash
# slurm-cluster.sh — ssim's development and test cluster: a real, single-host Slurm 22.05
# cluster of 4 virtual nodes (n1-n4) with accounting, from Debian 12 packages. The test
# command brings it up for the Slurm tests and down afterwards; a user can use it to try
# ssim's Slurm mode on a laptop. (Derived from the verified recipe in the team's notes.)
#
#   slurm-cluster.sh up       install (if missing), configure, start daemons, wait until all nodes idle
#   slurm-local.sh down     cancel all jobs, stop the daemons this script started (by PID files)
#   slurm-local.sh status   show daemon PIDs and sinfo
#
# Must run as root (CI and dev machines are root). No systemd needed: daemons are started by hand.
# Every `up` starts from a clean state (fresh controller state and a fresh accounting DB),
# so job ids start at 1.
#
# Knobs (environment variables, all optional):
#   SLURM_LOCAL_NODES=4        virtual nodes n1..nN, one slurmd each (Debian's slurmd supports -N <node>)
#   SLURM_LOCAL_CPUS=4         CPUs per virtual node (over-subscribed on purpose: config_overrides)
#   SLURM_LOCAL_MEM=4000       RealMemory (MB) per virtual node (memory is not enforced)
#   SLURM_LOCAL_DBD=1          1: slurmdbd + private MariaDB => full `sacct` incl. steps (N.batch, N.0)
#                              0: no slurmdbd; only `sacct -c` (jobcomp/filetxt, job level, no steps)
#   SLURM_LOCAL_MPI=1          1: also install openmpi-bin libopenmpi-dev libpmix-dev (mpicc, mpirun,
#                              srun --mpi=pmix; set OMPI_MCA_btl=^vader for >1 rank per virtual node)
#   SLURM_LOCAL_PROCTRACK=auto cgroup if a cgroup-v1 freezer is mounted (it is on these machines), else linuxproc.
#                              cgroup also kills double-forked daemons on scancel; linuxproc does not.
#   SLURM_LOCAL_AUTH=munge     or none (auth/none + cred/none: works in 22.05, no munged at all)
#   SLURM_LOCAL_CLUSTER=ssimtest   SLURM_LOCAL_PARTITION=debug
#   SLURM_LOCAL_DIR=/var/lib/slurm-local      spool, logs, pid files, job-completion log
#   SLURM_LOCAL_DB_DIR=/dev/shm/slurm-local-db   MariaDB datadir (tmpfs: schema is created in <1 s)
#   SLURM_LOCAL_CTLD_PORT=6817 SLURM_LOCAL_DBD_PORT=6819 SLURM_LOCAL_DB_PORT=3307
#   SLURM_LOCAL_SLURMD_PORT=6830 (node i listens on 6830+i-1; 17001 would clash with OpenPBS pbs_comm)
#   SLURM_LOCAL_FORCE=0        1: overwrite an /etc/slurm/slurm.conf this script did not write
# The config goes to /etc/slurm/slurm.conf (Debian's default path) so sbatch/srun/sacct... need no SLURM_CONF.
set -euo pipefail

NODES=${SLURM_LOCAL_NODES:-4}
CPUS=${SLURM_LOCAL_CPUS:-4}
MEM=${SLURM_LOCAL_MEM:-4000}
DBD=${SLURM_LOCAL_DBD:-1}
MPI=${SLURM_LOCAL_MPI:-1}  # ssim runs MPI steps with srun --mpi=pmix
PROCTRACK=${SLURM_LOCAL_PROCTRACK:-auto}
AUTH=${SLURM_LOCAL_AUTH:-munge}
if [[ $PROCTRACK == auto ]]; then
  if awk '$2 == "/sys/fs/cgroup/freezer" && $3 == "cgroup" {f=1} END {exit !f}' /proc/mounts; then
    PROCTRACK=cgroup
  else
    PROCTRACK=linuxproc
  fi
fi
CLUSTER=${SLURM_LOCAL_CLUSTER:-ssimtest}
PARTITION=${SLURM_LOCAL_PARTITION:-debug}
DIR=${SLURM_LOCAL_DIR:-/var/lib/slurm-local}
DBDIR=${SLURM_LOCAL_DB_DIR:-/dev/shm/slurm-local-db}
CTLD_PORT=${SLURM_LOCAL_CTLD_PORT:-6817}
DBD_PORT=${SLURM_LOCAL_DBD_PORT:-6819}
DB_PORT=${SLURM_LOCAL_DB_PORT:-3307}
SLURMD_PORT=${SLURM_LOCAL_SLURMD_PORT:-6830}
FORCE=${SLURM_LOCAL_FORCE:-0}
CONF_DIR=/etc/slurm
CONF=$CONF_DIR/slurm.conf
DBD_CONF=$CONF_DIR/slurmdbd.conf
MARK="# managed by slurm-local.sh"
RUN=$DIR/run
LOG=$DIR/log
DB_PASS=slurmlocal

log() { printf '[slurm-local %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------- process helpers
# alive PID [COMM]: true if PID exists, is not a zombie (PID 1 here may reap late) and,
# when COMM is given, /proc/PID/comm starts with it (guards against PID reuse).
alive() {
  local pid=$1 comm=${2:-} st
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ -r /proc/$pid/stat ]] || return 1
  st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [[ $st != Z && $st != X ]] || return 1
  if [[ -n $comm ]]; then
    local c; c=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
    [[ $c == "$comm"* ]] || return 1
  fi
  return 0
}
pidof_file() { [[ -s $1 ]] && tr -dc '0-9' <"$1" || true; }
# wait_pidfile FILE COMM SECONDS -> echoes the pid once the daemon wrote it and is alive
wait_pidfile() {
  local f=$1 comm=$2 t=$(( $3 * 10 )) pid
  for ((i = 0; i < t; i++)); do
    pid=$(pidof_file "$f")
    if [[ -n $pid ]] && alive "$pid" "$comm"; then echo "$pid"; return 0; fi
    sleep 0.1
  done
  return 1
}
# stop_pid PID COMM NAME: SIGTERM, wait up to 20 s, then SIGKILL
stop_pid() {
  local pid=$1 comm=$2 name=$3
  alive "$pid" "$comm" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 200; i++)); do alive "$pid" "$comm" || { log "stopped $name (pid $pid)"; return 0; }; sleep 0.1; done
  log "$name (pid $pid) ignored SIGTERM for 20 s; SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do alive "$pid" "$comm" || return 0; sleep 0.1; done
  log "WARNING: $name (pid $pid) still alive"
}
# start_bg CMD...: start a daemon fully detached from the caller's stdin/stdout/stderr
# (otherwise `out=$(slurm-local.sh up)` or `| tee` in CI would hang until the daemons exit).
# Daemons that fork themselves (slurmctld, slurmd, slurmdbd, munged) return at once; mariadbd
# does not fork, so it goes through start_fg_daemon (setsid -f forks it off).
start_bg() { setsid "$@" </dev/null >>"$LOG/start.log" 2>&1; }
start_fg_daemon() { setsid -f "$@" </dev/null >>"$LOG/start.log" 2>&1; }

# ---------------------------------------------------------------- install
pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'; }
install_pkgs() {
  local want=(slurmctld slurmd slurm-client) missing=()
  [[ $AUTH == munge ]] && want+=(munge)
  [[ $DBD == 1 ]] && want+=(slurmdbd mariadb-server-core mariadb-client-core)
  # srun --mpi=pmix: Slurm's mpi_pmix plugin dlopens pmix2/lib/libpmix.so, which only libpmix-dev ships
  [[ $MPI == 1 ]] && want+=(openmpi-bin libopenmpi-dev libpmix-dev)
  for p in "${want[@]}"; do pkg_installed "$p" || missing+=("$p"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  log "installing: ${missing[*]}"
  local t0=$SECONDS added_policy=0
  # Keep package postinst scripts from starting munge/slurm themselves (no systemd here;
  # invoke-rc.d would fall back to /etc/init.d and start a munged we do not track).
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod 755 /usr/sbin/policy-rc.d; added_policy=1
  fi
  local rc=0
  { apt-get -o DPkg::Lock::Timeout=300 update -q >"$LOG/apt-update.log" 2>&1 &&
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}" \
      >"$LOG/apt-install.log" 2>&1; } || rc=$?
  [[ $added_policy == 1 ]] && rm -f /usr/sbin/policy-rc.d
  [[ $rc == 0 ]] || { tail -20 "$LOG/apt-install.log" >&2 || true; die "apt-get failed (rc=$rc)"; }
  log "installed in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------- config
write_conf() {
  if [[ -f $CONF ]] && ! grep -q "^$MARK" "$CONF" && [[ $FORCE != 1 ]]; then
    die "$CONF exists and was not written by this script (set SLURM_LOCAL_FORCE=1 to overwrite)"
  fi
  mkdir -p "$CONF_DIR"
  local last=$((SLURMD_PORT + NODES - 1)) acct gather
  if [[ $DBD == 1 ]]; then
    acct="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT"
    gather="JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30"
  else
    acct="AccountingStorageType=accounting_storage/none"
    gather="JobAcctGatherType=jobacct_gather/none"
  fi
  cat >"$CONF.tmp" <<EOF
$MARK — regenerated on every 'up'
ClusterName=$CLUSTER
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/$AUTH
CredType=cred/$AUTH
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
StateSaveLocation=$DIR/ctld
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
# per-node TmpFS: the PMIx plugin puts its client dir there; a shared /tmp collides across virtual nodes
TmpFS=$DIR/tmp/%n
ProctrackType=proctrack/$PROCTRACK
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
SchedulerType=sched/backfill
# start jobs at submit time (default batch_sched_delay=3 s) and backfill every second (default 30 s)
SchedulerParameters=bf_interval=1,batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
KillWait=5
InactiveLimit=0
$gather
$acct
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/jobcomp.log
NodeName=n[1-$NODES] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$SLURMD_PORT-$last] CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
# a finite DefaultTime lets backfill start small jobs past a big pending one (no --time given => 1 day)
PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE DefaultTime=1-00:00:00 State=UP
EOF
  mv "$CONF.tmp" "$CONF"
  if [[ $PROCTRACK == cgroup ]]; then
    printf '%s\nCgroupPlugin=cgroup/v1\nCgroupAutomount=yes\nConstrainCores=no\nConstrainRAMSpace=no\nConstrainDevices=no\n' \
      "$MARK" >"$CONF_DIR/cgroup.conf"
  elif [[ -f $CONF_DIR/cgroup.conf ]] && grep -q "^$MARK" "$CONF_DIR/cgroup.conf"; then
    rm -f "$CONF_DIR/cgroup.conf"
  fi
  if [[ $DBD == 1 ]]; then
    umask 077
    cat >"$DBD_CONF" <<EOF
$MARK
AuthType=auth/$AUTH
DbdHost=localhost
DbdPort=$DBD_PORT
SlurmUser=root
DebugLevel=info
LogFile=$LOG/slurmdbd.log
PidFile=$RUN/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$DB_PASS
StorageLoc=slurm_acct_db
EOF
    umask 022
    chmod 600 "$DBD_CONF"   # slurmdbd refuses a slurmdbd.conf readable by others
  fi
}

# ---------------------------------------------------------------- daemons
start_munge() {
  if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    log "munged already running (not ours; reusing it)"; return 0
  fi
  if [[ ! -s /etc/munge/munge.key ]]; then
    mungekey --create --keyfile=/etc/munge/munge.key
  fi
  chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge; chmod 755 /run/munge
  start_bg runuser -u munge -- /usr/sbin/munged --force
  local pid; pid=$(wait_pidfile /run/munge/munged.pid munged 10) || die "munged did not start (see /var/log/munge/munged.log)"
  echo "$pid" >"$RUN/munged.pid"
  log "munged pid $pid"
}

db_sql() { mariadb --no-defaults --socket="$DBDIR/mysqld.sock" -uroot -e "$1"; }
start_db() {
  rm -rf "$DBDIR"; mkdir -p "$DBDIR"
  mariadb-install-db --no-defaults --user=root --datadir="$DBDIR/data" --auth-root-authentication-method=socket \
    --skip-test-db --innodb-log-file-size=16M >"$LOG/mariadb-install-db.log" 2>&1 ||
    { tail -20 "$LOG/mariadb-install-db.log" >&2; die "mariadb-install-db failed"; }
  start_fg_daemon /usr/sbin/mariadbd --no-defaults --user=root --datadir="$DBDIR/data" \
    --socket="$DBDIR/mysqld.sock" --pid-file="$RUN/mariadbd.pid" --port="$DB_PORT" --bind-address=127.0.0.1 \
    --log-error="$LOG/mariadb.log" --skip-log-bin --innodb-buffer-pool-size=64M --innodb-log-file-size=16M \
    --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --innodb-lock-wait-timeout=900
  local pid; pid=$(wait_pidfile "$RUN/mariadbd.pid" mariadbd 30) || die "mariadbd did not start (see $LOG/mariadb.log)"
  for ((i = 0; i < 300; i++)); do db_sql 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
  db_sql "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1'; FLUSH PRIVILEGES;" ||
    die "could not create the MariaDB user"
  log "mariadbd pid $pid (datadir $DBDIR/data, 127.0.0.1:$DB_PORT)"
}

start_dbd() {
  start_bg /usr/sbin/slurmdbd
  local pid; pid=$(wait_pidfile "$RUN/slurmdbd.pid" slurmdbd 30) || die "slurmdbd did not start (see $LOG/slurmdbd.log)"
  for ((i = 0; i < 600; i++)); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.1; done
  sacctmgr -n list cluster >/dev/null 2>&1 || die "slurmdbd does not answer (see $LOG/slurmdbd.log)"
  log "slurmdbd pid $pid"
}

start_slurm() {
  start_bg /usr/sbin/slurmctld
  local pid; pid=$(wait_pidfile "$RUN/slurmctld.pid" slurmctld 30) || die "slurmctld did not start (see $LOG/slurmctld.log)"
  for ((i = 0; i < 300; i++)); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
  log "slurmctld pid $pid"
  for ((n = 1; n <= NODES; n++)); do
    mkdir -p "$DIR/spool/n$n" "$DIR/tmp/n$n"
    start_bg /usr/sbin/slurmd -N "n$n"
  done
  for ((n = 1; n <= NODES; n++)); do
    pid=$(wait_pidfile "$RUN/slurmd-n$n.pid" slurmd 30) || die "slurmd n$n did not start (see $LOG/slurmd-n$n.log)"
  done
  local idle=0
  for ((i = 0; i < 600; i++)); do
    idle=$(sinfo -h -t idle -o '%D' 2>/dev/null | awk '{s+=$1} END {print s+0}')
    [[ $idle == "$NODES" ]] && break
    sleep 0.1
  done
  [[ $idle == "$NODES" ]] || { sinfo >&2 || true; die "only $idle of $NODES nodes idle after 60 s"; }
  log "slurmd n1..n$NODES up; $NODES nodes idle"
}

check_hostname() {
  local h; h=$(hostname)
  if ! getent hosts "$h" >/dev/null; then
    log "hostname '$h' does not resolve; adding it to /etc/hosts (srun/salloc need it)"
    echo "127.0.1.1 $h" >>/etc/hosts
  fi
}

ports_free() {
  command -v ss >/dev/null || return 0
  local p busy=()
  local ports=("$CTLD_PORT"); for ((n = 0; n < NODES; n++)); do ports+=($((SLURMD_PORT + n))); done
  [[ $DBD == 1 ]] && ports+=("$DBD_PORT" "$DB_PORT")
  for p in "${ports[@]}"; do ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && busy+=("$p"); done
  [[ ${#busy[@]} -eq 0 ]] || die "TCP port(s) already in use: ${busy[*]} (another Slurm/MariaDB? 'ss -ltnp' shows who)"
}

cmd_up_inner() {
  install_pkgs
  check_hostname
  ports_free
  # clean state every time (stale PID files, controller state, spool, job logs)
  rm -rf "$DIR/ctld" "$DIR/spool" "$DIR/tmp" "$RUN" "$DIR/jobcomp.log"
  mkdir -p "$DIR/ctld" "$DIR/spool" "$DIR/tmp" "$RUN" "$LOG"
  write_conf
  [[ $AUTH == munge ]] && start_munge
  if [[ $DBD == 1 ]]; then start_db; start_dbd; fi
  start_slurm
}

cmd_up() {
  [[ $(id -u) == 0 ]] || die "must run as root"
  local t0=$SECONDS pid rc
  pid=$(pidof_file "$RUN/slurmctld.pid")
  if [[ -n $pid ]] && alive "$pid" slurmctld; then
    log "already up (slurmctld pid $pid); run 'down' first for a fresh cluster"
    sinfo; return 0
  fi
  rm -rf "$LOG"; mkdir -p "$LOG"   # fresh logs every 'up'
  set +e; ( set -e; cmd_up_inner ); rc=$?; set -e
  if [[ $rc != 0 ]]; then
    log "up FAILED (rc=$rc); last lines of the logs in $LOG:"
    tail -n 15 "$LOG"/*.log >&2 2>/dev/null || true
    log "stopping whatever was started"
    cmd_down || true
    exit 1
  fi
  log "cluster '$CLUSTER' up in $((SECONDS - t0)) s: $NODES nodes x $CPUS CPUs, proctrack/$PROCTRACK, slurmdbd=$DBD (config $CONF, logs $LOG)"
  sinfo
}

# Normally 'down' cancels all jobs first and nothing is left. If slurmctld was already dead,
# slurmstepd processes and job tasks outlive slurmd: kill (SIGKILL; slurmstepd ignores SIGTERM)
#  - our slurmstepds: exe slurmstepd(-wlm) and working directory = our log dir (slurmd chdirs there),
#  - their descendants (proctrack/linuxproc),
#  - every process in our nodes' freezer cgroups slurm_<node> (proctrack/cgroup).
sweep_leftovers() {
  local stepd p pid ppid cg f node pids=() roots=()
  stepd=$(readlink -f /usr/sbin/slurmstepd 2>/dev/null || echo /usr/sbin/slurmstepd)
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/exe" 2>/dev/null) == "$stepd" && $(readlink "$p/cwd" 2>/dev/null) == "$LOG" ]] &&
      roots+=("${p#/proc/}")
  done
  if [[ ${#roots[@]} -gt 0 ]]; then
    declare -A kids=()
    while read -r pid ppid; do kids[$ppid]+=" $pid"; done < <(ps -e -o pid=,ppid=)
    local queue=("${roots[@]}")
    while [[ ${#queue[@]} -gt 0 ]]; do
      p=${queue[0]}; queue=("${queue[@]:1}"); pids+=("$p")
      # shellcheck disable=SC2206
      [[ -n ${kids[$p]:-} ]] && queue+=(${kids[$p]})
    done
  fi
  for node in "$@"; do
    cg=/sys/fs/cgroup/freezer/slurm_$node
    [[ -d $cg ]] || continue
    while read -r f; do echo THAWED >"$f" 2>/dev/null || true; done < <(find "$cg" -name freezer.state)
    while read -r pid; do [[ -n $pid ]] && pids+=("$pid"); done < <(find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null)
  done
  if [[ ${#pids[@]} -gt 0 ]]; then
    mapfile -t pids < <(printf '%s\n' "${pids[@]}" | sort -un)
    log "killing ${#pids[@]} leftover job process(es): ${pids[*]}"
    kill -KILL "${pids[@]}" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      local any=0; for pid in "${pids[@]}"; do alive "$pid" && any=1 && break; done
      [[ $any == 0 ]] && break; sleep 0.1
    done
  fi
  for node in "$@"; do   # drop the now empty cgroups of our nodes
    cg=/sys/fs/cgroup/freezer/slurm_$node
    [[ -d $cg ]] && find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  return 0
}

cmd_down() {
  local t0=$SECONDS pid
  pid=$(pidof_file "$RUN/slurmctld.pid")
  if [[ -n $pid ]] && alive "$pid" slurmctld; then
    local jobs; jobs=$(squeue -h -o '%A' 2>/dev/null || true)
    if [[ -n $jobs ]]; then
      log "cancelling jobs: $(echo $jobs)"
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      for ((i = 0; i < 300; i++)); do [[ -z $(squeue -h -o '%A' 2>/dev/null) ]] && break; sleep 0.1; done
    fi
  fi
  local f node nodes=()
  for f in "$RUN"/slurmd-*.pid; do
    [[ -e $f ]] || continue
    node=${f##*/slurmd-}; node=${node%.pid}; nodes+=("$node")
    stop_pid "$(pidof_file "$f")" slurmd "slurmd $node"
  done
  stop_pid "$(pidof_file "$RUN/slurmctld.pid")" slurmctld slurmctld
  stop_pid "$(pidof_file "$RUN/slurmdbd.pid")" slurmdbd slurmdbd
  stop_pid "$(pidof_file "$RUN/mariadbd.pid")" mariadbd mariadbd
  stop_pid "$(pidof_file "$RUN/munged.pid")" munged munged
  sweep_leftovers "${nodes[@]}"
  rm -f "$RUN"/*.pid
  rm -rf "$DBDIR"
  log "down in $((SECONDS - t0)) s"
}

cmd_status() {
  local f pid st rc=0
  for f in "$RUN"/*.pid; do
    [[ -e $f ]] || continue
    pid=$(pidof_file "$f"); st=dead
    alive "$pid" && st=alive || rc=1
    printf '%-22s %-8s %s\n' "${f##*/}" "$pid" "$st"
  done
  sinfo 2>/dev/null || rc=1
  return $rc
}

case ${1:-} in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *) echo "usage: $0 up|down|status   (knobs: see the header of this file)" >&2; exit 2 ;;
esac
