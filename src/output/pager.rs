//! Colour and pager decisions, following git's own settings.
//!
//! Colour: `NO_COLOR` wins; then `color.diff`, then `color.ui` (`always`,
//! `never`, `auto`/`true`; default `auto`), where `auto` means stdout is a
//! terminal. Pager: only on a terminal; `GIT_PAGER`, then `core.pager`, then
//! `PAGER`, then `less`; an empty value or `cat` means none. Like git, the
//! pager runs through the shell with `LESS=FRX` and `LV=-c` unless set.

use std::io::IsTerminal as _;
use std::process::{Child, Command, Stdio};

/// Whether to colour output.
pub fn use_color(repo: &gix::Repository) -> bool {
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    let config = repo.config_snapshot();
    let setting = config
        .string("color.diff")
        .or_else(|| config.string("color.ui"))
        .map(|v| v.to_string().to_ascii_lowercase());
    match setting.as_deref() {
        Some("always") => true,
        Some("never" | "false" | "no" | "off" | "0") => false,
        _ => std::io::stdout().is_terminal(),
    }
}

/// The pager command to use, if any.
pub fn pager_command(repo: Option<&gix::Repository>) -> Option<String> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let from_config = repo.and_then(|r| r.config_snapshot().string("core.pager").map(|v| v.to_string()));
    let cmd = std::env::var("GIT_PAGER")
        .ok()
        .or(from_config)
        .or_else(|| std::env::var("PAGER").ok())
        .unwrap_or_else(|| "less".to_owned());
    let cmd = cmd.trim().to_owned();
    (!cmd.is_empty() && cmd != "cat").then_some(cmd)
}

/// Start the pager, with its stdin piped.
pub fn spawn(cmd: &str) -> std::io::Result<Child> {
    let mut c = Command::new("sh");
    c.arg("-c").arg(cmd).stdin(Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        c.env("LESS", "FRX");
    }
    if std::env::var_os("LV").is_none() {
        c.env("LV", "-c");
    }
    c.spawn()
}
