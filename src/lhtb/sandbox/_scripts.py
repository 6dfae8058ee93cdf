"""POSIX shell snippets run inside container sandboxes.

They use only shell builtins (``read``, ``kill``, globbing, arithmetic) so that
the freeze sweep forks nothing that it would then have to stop itself, and
works in minimal images (dash, busybox ash, bash).
"""

from __future__ import annotations

__all__ = ["FREEZE_SCRIPT", "READ_FILE_SCRIPT", "THAW_SCRIPT", "WRITE_FILE_SCRIPT"]

FREEZE_MAX_ROUNDS = 500

# Stop every process except PID 1 (the init), this shell and its parent (the
# `timeout` wrapper of the exec), round after round,
# until a round finds every thread of every process already stopped (or a
# zombie). A process forking in a loop is stopped in the round after its child
# appears; stopped processes cannot fork, so the sweep converges. Prints the
# number of rounds; exits 3 when no fixpoint is reached.
FREEZE_SCRIPT = f"""
self=$$
round=0
while :; do
  round=$((round + 1))
  busy=0
  for dir in /proc/[0-9]*; do
    pid=${{dir#/proc/}}
    [ "$pid" = 1 ] && continue
    [ "$pid" = "$self" ] && continue
    [ "$pid" = "$PPID" ] && continue
    running=0
    for task in "$dir"/task/[0-9]*; do
      stat=''
      read -r stat < "$task/stat" 2>/dev/null || continue
      rest=${{stat##*) }}
      case ${{rest%% *}} in T|t|Z|X|x) ;; *) running=1 ;; esac
    done
    if [ "$running" = 1 ]; then
      kill -STOP "$pid" 2>/dev/null && busy=1
    fi
  done
  [ "$busy" = 0 ] && break
  if [ "$round" -ge {FREEZE_MAX_ROUNDS} ]; then
    echo "no fixpoint after $round rounds" >&2
    exit 3
  fi
done
echo "$round"
"""

THAW_SCRIPT = """
self=$$
for dir in /proc/[0-9]*; do
  pid=${dir#/proc/}
  [ "$pid" = 1 ] && continue
  [ "$pid" = "$self" ] && continue
  [ "$pid" = "$PPID" ] && continue
  kill -CONT "$pid" 2>/dev/null
done
exit 0
"""

# $1 = path. Exit 4: a directory; otherwise cat's status and message.
READ_FILE_SCRIPT = """
[ -d "$1" ] && exit 4
exec cat -- "$1"
"""

# $1 = path, $2 = octal mode or empty; content on stdin.
WRITE_FILE_SCRIPT = """
case "$1" in */*) parent=${1%/*} ;; *) parent=. ;; esac
[ -n "$parent" ] || parent=/
mkdir -p -- "$parent" || exit 1
[ -d "$1" ] && exit 4
cat > "$1" || exit 1
if [ -n "$2" ]; then chmod "$2" -- "$1" || exit 1; fi
exit 0
"""
