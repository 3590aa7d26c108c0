//! Clean: the child is killed by the pid it told, with SIGKILL, and reaped. Leaves nothing.

use reapcheck_watch_crate::{kill_pid, spawn_setsid_child, SIGKILL, SLEEP_SECS};
use std::os::unix::process::ExitStatusExt;

#[test]
fn kills_its_child() {
    let (mut child, pid) = spawn_setsid_child(SLEEP_SECS, &["kills_its_child"]);
    kill_pid(pid, SIGKILL).expect("kill the child by its pid");
    let status = child.wait().expect("reap the child");
    assert_eq!(
        status.signal(),
        Some(SIGKILL),
        "the child died of SIGKILL: {:?}",
        status
    );
}
