//! Kills by folder: the child carries the crate's folder on its command line, and the test
//! cleans up as an orchestrator does, `pkill -f <the crate's folder>`. That ends the child, and
//! with it every other process whose command line holds the folder's path: a look-alike
//! bystander (an editor, a dev server, another checkout's agent) is hit too. The test binary
//! itself lives under target/ in that folder, so it matches its own pattern: it ignores SIGTERM
//! around the pkill, as an orchestrator running inside the folder must. It refuses to run
//! anywhere but reapcheck's sandbox or run-bare.sh's namespace, where the pkill reaches nothing
//! else.

use reapcheck_watch_crate::{
    require_a_namespace_of_its_own, spawn_setsid_child, with_sigterm_ignored, SIGTERM, SLEEP_SECS,
};
use std::os::unix::process::ExitStatusExt;
use std::process::Command;

const FOLDER: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn kills_by_folder() {
    require_a_namespace_of_its_own();
    let (mut child, _pid) = spawn_setsid_child(SLEEP_SECS, &[FOLDER, "kills_by_folder"]);
    let pkill = with_sigterm_ignored(|| {
        Command::new("pkill")
            .arg("-f")
            .arg(FOLDER)
            .status()
            .expect("run pkill")
    });
    assert!(
        pkill.success(),
        "pkill -f {} matched nothing: {:?}",
        FOLDER,
        pkill
    );
    let status = child.wait().expect("reap the child");
    assert_eq!(
        status.signal(),
        Some(SIGTERM),
        "the child died of pkill's SIGTERM: {:?}",
        status
    );
}
