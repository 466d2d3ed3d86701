//! The unit tests of the watcher: `hooks.rs`, `config.rs`, `watchman.rs`;
//! here what they share.

use std::io::Write as _;
use std::process::Stdio;

use super::*;

mod config;
mod hooks;
mod watchman;

/// A hook script `name` in `dir` running `body` after recording its
/// arguments, `[arg]` each, into `dir/args`.
fn hook(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    let args = dir.join("args");
    let script = format!("#!/bin/sh\nprintf '[%s]' \"$@\" > '{}'\n{body}\n", args.display());
    // Written by another process: a file this one had open for writing
    // could be inherited by a child another test thread forks at that
    // moment, and exec'ing the script would fail with ETXTBSY.
    let mut writer = Command::new("/bin/sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(&path)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    writer.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    assert!(writer.wait().unwrap().success());
    path
}

fn paths(list: &[&[u8]]) -> Option<Vec<BString>> {
    Some(list.iter().map(|p| BString::from(*p)).collect())
}
