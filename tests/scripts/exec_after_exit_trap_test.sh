#!/usr/bin/env bash
# A shell script that sets an EXIT trap (to delete its temporary files) and later replaces
# itself with `exec` never runs the trap: the temporary files stay. Two test scripts left a
# folder of generated models in /tmp on every run that way. This test fails on any script
# of the project (tests/, bench/, scripts/, examples/, fuzz/, .ci/) with an `exec COMMAND`
# after an EXIT trap (`exec` that only redirects, `exec >log`, keeps the shell: allowed).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

found=0
while IFS= read -r -d '' script; do
  head -c 2 "$script" | grep -q '#!' || continue
  head -n 1 "$script" | grep -qE 'sh\b|bash\b' || continue
  # The first EXIT trap, then any exec that starts a command.
  if report=$(awk '
      /^[[:space:]]*trap[[:space:]].*EXIT/ && !trap_line { trap_line = FNR }
      trap_line && /^[[:space:]]*exec[[:space:]]+[^<>&[:digit:][:space:]]/ {
        printf "%s:%d: exec after the EXIT trap of line %d\n", FILENAME, FNR, trap_line; bad = 1
      }
      END { exit bad ? 0 : 1 }' "$script"); then
    echo "$report" >&2
    found=1
  fi
done < <(find tests bench scripts examples fuzz .ci -type f \( -name '*.sh' -o -perm -u+x \) -print0)

if ((found)); then
  echo "the EXIT traps above never run: call the command instead of exec-ing it" >&2
  exit 1
fi
echo "exec-after-trap: no script execs after an EXIT trap"
