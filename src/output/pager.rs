//! Colour and pager decisions, following git's own settings.
//!
//! Colour: `color.diff`, then `color.ui` (`always`, `never`, `auto`/`true`;
//! default `auto`), where `auto` means stdout is a terminal and `NO_COLOR`
//! is not set (an explicit setting beats `NO_COLOR`, as no-color.org asks). Pager: only on a terminal; `GIT_PAGER`, then `core.pager`, then
//! `PAGER`, then `less`; an empty value or `cat` means none. Like git, the
//! pager runs through the shell with `LESS=FRX` and `LV=-c` unless set.
//!
//! The environment is read by the edge (`app`) into a [`Terminal`].

use std::process::{Child, Command, Stdio};

/// What the process's environment says about paging and colour.
#[derive(Debug, Clone, Default)]
pub struct Terminal {
    /// stdout is a terminal.
    pub stdout_is_terminal: bool,
    /// `NO_COLOR` is set and not empty.
    pub no_color: bool,
    /// `GIT_PAGER`.
    pub git_pager: Option<String>,
    /// `PAGER`.
    pub pager: Option<String>,
    /// `LESS` is set (then it is left alone).
    pub less_set: bool,
    /// `LV` is set (then it is left alone).
    pub lv_set: bool,
    /// The terminal's width: `COLUMNS`, else the terminal stdout is.
    pub columns: Option<usize>,
    /// `GIT_PAGER_IN_USE`: git already pages our output (`git -p t3 …`).
    pub pager_in_use: bool,
    /// `TERM` is unset or `dumb` (git's automatic colour is then off).
    pub term_dumb: bool,
}

/// git's `term_columns`: `COLUMNS` when it is a positive number, else the
/// width of the terminal on stdout, if any.
pub fn terminal_columns(env_columns: Option<&str>) -> Option<usize> {
    if let Some(n) = env_columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
    {
        return Some(n);
    }
    let ws = rustix::termios::tcgetwinsize(std::io::stdout()).ok()?;
    (ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}

/// Whether to colour output.
pub fn use_color(repo: &gix::Repository, term: &Terminal) -> bool {
    let config = repo.config_snapshot();
    match color_setting(repo).as_deref() {
        Some("always") => true,
        Some("never" | "false" | "no" | "off" | "0") => false,
        // git's `auto`: a terminal, or git's own pager when `color.pager`
        // (default on) allows colour there.
        _ => {
            let paged = term.pager_in_use && config.boolean("color.pager").unwrap_or(true);
            (term.stdout_is_terminal || paged) && !term.no_color && !term.term_dumb
        }
    }
}

/// `color.diff` (else `color.ui`), lower-cased, if set.
pub fn color_setting(repo: &gix::Repository) -> Option<String> {
    let config = repo.config_snapshot();
    config
        .string("color.diff")
        .or_else(|| config.string("color.ui"))
        .map(|v| v.to_string().to_ascii_lowercase())
}

/// The pager command to use, if any.
pub fn pager_command(repo: Option<&gix::Repository>, term: &Terminal) -> Option<String> {
    if !term.stdout_is_terminal || term.pager_in_use {
        return None;
    }
    let from_config = repo.and_then(|r| r.config_snapshot().string("core.pager").map(|v| v.to_string()));
    let cmd = term
        .git_pager
        .clone()
        .or(from_config)
        .or_else(|| term.pager.clone())
        .unwrap_or_else(|| "less".to_owned());
    let cmd = cmd.trim().to_owned();
    (!cmd.is_empty() && cmd != "cat").then_some(cmd)
}

/// How to start a pager: the shell command and the variables to set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pager {
    /// The shell command.
    pub command: String,
    /// Variables to set for it (`LESS=FRX`, `LV=-c` unless the user set them).
    pub env: Vec<(&'static str, &'static str)>,
}

impl Pager {
    /// The pager `command` with git's defaults for `less` and `lv`.
    pub fn new(command: String, term: &Terminal) -> Self {
        let mut env = Vec::new();
        if !term.less_set {
            env.push(("LESS", "FRX"));
        }
        if !term.lv_set {
            env.push(("LV", "-c"));
        }
        Pager { command, env }
    }

    /// Start it, with its stdin piped.
    pub fn spawn(&self) -> std::io::Result<Child> {
        let mut c = Command::new("sh");
        c.arg("-c").arg(&self.command).stdin(Stdio::piped());
        c.envs(self.env.iter().copied());
        c.spawn()
    }
}
