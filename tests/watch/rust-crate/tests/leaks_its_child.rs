//! Leaks: the child (in a session of its own, its stdio closed) is neither killed nor waited for.
//! The test passes; when its binary exits the child is orphaned and sleeps on for SLEEP_SECS.

use reapcheck_watch_crate::{spawn_setsid_child, SLEEP_SECS};

#[test]
fn leaks_its_child() {
    let (child, pid) = spawn_setsid_child(SLEEP_SECS, &["leaks_its_child"]);
    eprintln!("leaks_its_child: left perl pid {} running", pid);
    drop(child); // std's Child neither kills nor waits on drop
}
