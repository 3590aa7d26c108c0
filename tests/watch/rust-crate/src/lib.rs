//! The helper the three integration tests share: a perl child that calls `setsid()`, tells its
//! pid on a pipe, closes its stdin, stdout and stderr and sleeps. It holds none of the test's
//! descriptors, so a runner that looks for a leak by an open stdout or stderr (cargo-nextest)
//! cannot see it, and it is in a session of its own, so a kill of the test's process group
//! misses it. It exits by itself after `secs` seconds: a leaked one never outlives that.

use std::io::Read;
use std::process::{Child, Command, Stdio};

/// How long a child sleeps when its test does not end it (seconds): long enough for a watcher
/// observing at the suite's exit to find a leaked one alive, bounded so a bare run by hand
/// never leaves one for ever.
pub const SLEEP_SECS: u32 = 300;

const SCRIPT: &str = r#"use POSIX;
POSIX::setsid() or die "setsid: $!\n";
close STDIN; close STDERR;
$| = 1; print "$$\n"; close STDOUT;
sleep $ARGV[0];"#;

/// Spawns `perl -e SCRIPT SECS TAG...` and returns it with the pid it printed, once it has
/// closed its stdio (the pipe's EOF). `tag` only labels the child's command line (what
/// `ps` and `pkill -f` see).
pub fn spawn_setsid_child(secs: u32, tag: &[&str]) -> (Child, i32) {
    let mut child = Command::new("perl")
        .arg("-e")
        .arg(SCRIPT)
        .arg(secs.to_string())
        .args(tag)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn perl");
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("perl's stdout pipe")
        .read_to_string(&mut out)
        .expect("read perl's pid");
    let pid: i32 = out
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("perl printed no pid: {:?}", out));
    assert_eq!(pid as u32, child.id(), "the pid perl printed is its own");
    (child, pid)
}

extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
    fn signal(signum: i32, handler: usize) -> usize;
}

pub const SIGKILL: i32 = 9;
pub const SIGTERM: i32 = 15;
const SIG_IGN: usize = 1;

/// kill(2) of one pid.
pub fn kill_pid(pid: i32, sig: i32) -> std::io::Result<()> {
    if unsafe { kill(pid, sig) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Runs `f` with SIGTERM ignored by this process, then puts the disposition back.
pub fn with_sigterm_ignored<T>(f: impl FnOnce() -> T) -> T {
    let old = unsafe { signal(SIGTERM, SIG_IGN) };
    let out = f();
    unsafe { signal(SIGTERM, old) };
    out
}

/// Panics unless this runs where a `pkill -f` can reach only its own run: in reapcheck's sandbox
/// (PID 1 "reapcheck case runner") or in run-bare.sh's namespace (PID 1 the script). Run bare on
/// a host, kills_by_folder's pkill would end every process whose command line holds the folder.
pub fn require_a_namespace_of_its_own() {
    let init = std::fs::read("/proc/1/cmdline").unwrap_or_default();
    let init = String::from_utf8_lossy(&init);
    assert!(
        init.contains("reapcheck case runner") || init.contains("run-bare.sh"),
        "this test runs `pkill -f <its folder>`: run it under `reapcheck watch` or \
         tests/watch/run-bare.sh, never on the host (PID 1 here: {})",
        init.replace('\0', " ")
    );
}
