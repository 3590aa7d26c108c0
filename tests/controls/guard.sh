# Sourced by every broken reaper here: they are negative controls for the harness, run only as
# the reaper of a reapcheck case, inside its sandbox, where PID 1 is the case runner. Anywhere
# else they refuse: some of them signal every process they can see.
case "$(readlink /proc/1/exe 2>/dev/null)" in
  */reapcheck) ;;
  *)
    echo "$0: refusing to run outside a reapcheck sandbox (PID 1 is not reapcheck)" >&2
    exit 99
    ;;
esac
