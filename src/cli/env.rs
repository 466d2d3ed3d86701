//! What the environment says, read once: the variables git-t3 knows, and
//! how background maintenance starts this program again.

use std::path::PathBuf;
use std::time::Duration;

use crate::commands::{self, Settings};

/// What the environment says, read once.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    /// `T3_LOCK_TIMEOUT`, seconds.
    pub lock_timeout: Option<Duration>,
    /// `T3_PROVIDER_TIMEOUT`, seconds.
    pub provider_timeout: Option<Duration>,
    /// `T3_TRACE` is set.
    pub trace: bool,
    /// `PATH`, where provider helpers are looked for.
    pub path: Option<std::ffi::OsString>,
    /// `HOME`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME`: where the agents whose
    /// conversations git-t3 rolls back keep them.
    pub agent_homes: crate::provider::AgentHomes,
    /// What decides colour and paging (a terminal, `NO_COLOR`, `GIT_PAGER`, …).
    pub terminal: crate::output::pager::Terminal,
    /// Set by the signal handlers the binary installs.
    pub interrupt: crate::interrupt::Interrupt,
    /// `git -c` settings from `GIT_CONFIG_COUNT`/`_KEY_<n>`/`_VALUE_<n>`
    /// and `GIT_CONFIG_PARAMETERS`; `None` when they are malformed.
    pub config_overrides: Option<Vec<String>>,
    /// The local time zone: `None` for the system's (`TZ`, else
    /// /etc/localtime), looked up only by the commands that print local
    /// times, since finding its name reads the zoneinfo folders; `Some(None)`
    /// for UTC; `Some(Some(tz))` for `tz`.
    pub time_zone: Option<Option<jiff::tz::TimeZone>>,
    /// What agents tell their hooks (`CLAUDE_PROJECT_DIR`, `CURSOR_PROJECT_DIR`).
    pub hook: commands::hook::HookEnv,
    /// Where the agents' user configuration lives (`HOME`, `CODEX_HOME`, …).
    pub places: commands::install::Places,
    /// `BROWSER`: what `review` opens its page with.
    pub browser: Option<String>,
    /// Where a line for the person at the terminal goes while a command
    /// runs (the binary: stderr); `None`: nowhere.
    pub say: Option<fn(&str)>,
    /// `LC_ALL`, `LC_CTYPE` or `LANG` selects a UTF-8 locale the system has
    /// (what git's `setlocale(LC_CTYPE, "")` gives its regexes).
    pub multibyte: bool,
}

impl Environment {
    /// Read the variables git-t3 knows from the process environment.
    pub fn from_process() -> Self {
        let seconds = |name: &str| {
            std::env::var(name).ok().and_then(|v| {
                crate::provider::parse_seconds(&v).or((v.trim() == "0").then_some(Duration::ZERO))
            })
        };
        let places = places_from_process();
        Environment {
            lock_timeout: seconds("T3_LOCK_TIMEOUT"),
            provider_timeout: seconds("T3_PROVIDER_TIMEOUT"),
            trace: std::env::var_os("T3_TRACE").is_some(),
            path: std::env::var_os("PATH"),
            agent_homes: crate::provider::AgentHomes {
                home: places.home.clone(),
                claude_config_dir: places.claude_config_dir.clone(),
                codex_home: places.codex_home.clone(),
                search_path: std::env::var_os("PATH"),
            },
            terminal: crate::output::pager::Terminal {
                stdout_is_terminal: std::io::IsTerminal::is_terminal(&std::io::stdout()),
                no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
                git_pager: std::env::var("GIT_PAGER").ok(),
                pager: std::env::var("PAGER").ok(),
                less_set: std::env::var_os("LESS").is_some(),
                lv_set: std::env::var_os("LV").is_some(),
                columns: crate::output::pager::terminal_columns(std::env::var("COLUMNS").ok().as_deref()),
                term_dumb: std::env::var("TERM").map_or(true, |t| t.is_empty() || t == "dumb"),
                pager_in_use: std::env::var("GIT_PAGER_IN_USE")
                    .is_ok_and(|v| matches!(v.to_ascii_lowercase().as_str(), "true" | "1" | "yes" | "on")),
            },
            interrupt: crate::interrupt::Interrupt::default(),
            // As git: GIT_CONFIG_COUNT's pairs, then GIT_CONFIG_PARAMETERS
            // (`git -c`), the later winning.
            config_overrides: crate::model::config_params::from_count(|k| std::env::var(k).ok()).and_then(
                |mut counted| {
                    let params = std::env::var("GIT_CONFIG_PARAMETERS")
                        .map_or(Some(Vec::new()), |p| crate::model::config_params::parse(&p))?;
                    counted.extend(params);
                    Some(counted)
                },
            ),
            time_zone: None,
            hook: commands::hook::HookEnv {
                claude_project_dir: std::env::var_os("CLAUDE_PROJECT_DIR")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from),
                cursor_project_dir: std::env::var_os("CURSOR_PROJECT_DIR")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from),
            },
            places,
            browser: std::env::var("BROWSER").ok(),
            say: None,
            multibyte: utf8_ctype(),
        }
    }

    pub(super) fn settings(&self, default_lock_timeout: Duration) -> Settings {
        Settings {
            lock_timeout: self.lock_timeout.unwrap_or(default_lock_timeout),
            provider: crate::provider::Settings {
                search_path: self.path.clone(),
                timeout: self.provider_timeout,
                homes: self.agent_homes.clone(),
            },
            interrupt: self.interrupt,
            config_overrides: self.config_overrides.clone().unwrap_or_default(),
            read_only: false,
            multibyte: self.multibyte,
        }
    }
}

/// Start `git t3 maintenance --auto [--prune]` in `dir`, detached: this program
/// again, in its own process group, with no stdin, stdout or stderr (an
/// agent's hook waits for its pipes to close). What the binary installs as
/// the library's [`crate::retention::maintenance::Starter`].
pub fn start_maintenance(dir: &std::path::Path, prune: bool) -> bool {
    use std::os::unix::process::CommandExt as _;
    let Ok(exe) = std::env::current_exe() else {
        return false;
    };
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("-C").arg(dir).args(["-q", "maintenance", "--auto"]);
    if prune {
        cmd.arg("--prune");
    }
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .env_remove("T3_TEST_FAULT")
        .process_group(0);
    cmd.spawn().is_ok()
}

/// `HOME` and the variables that move an agent's configuration; unset,
/// empty or relative values count as unset.
/// Whether the locale the environment selects for `LC_CTYPE` (`LC_ALL`,
/// else `LC_CTYPE`, else `LANG`) encodes characters in UTF-8, by its name
/// (`en_US.UTF-8`, `C.utf8`): what git's regexes match characters in.
fn utf8_ctype() -> bool {
    let name = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
        .unwrap_or_default();
    is_utf8_locale(&name)
}

/// Whether locale `name`'s codeset (between `.` and `@`) is UTF-8.
fn is_utf8_locale(name: &str) -> bool {
    let codeset = name.split_once('.').map_or("", |(_, c)| c);
    let codeset = codeset.split('@').next().unwrap_or_default();
    codeset.eq_ignore_ascii_case("utf-8") || codeset.eq_ignore_ascii_case("utf8")
}

pub(super) fn places_from_process() -> commands::install::Places {
    let dir = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    commands::install::Places {
        home: dir("HOME"),
        claude_config_dir: dir("CLAUDE_CONFIG_DIR"),
        codex_home: dir("CODEX_HOME"),
        xdg_config_home: dir("XDG_CONFIG_HOME"),
        xdg_state_home: dir("XDG_STATE_HOME"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn utf8_locales_by_their_names() {
        for utf8 in ["en_US.UTF-8", "C.utf8", "de_DE.utf8@euro"] {
            assert!(super::is_utf8_locale(utf8), "{utf8}");
        }
        for other in ["C", "POSIX", "", "en_US.ISO-8859-1", "en_US"] {
            assert!(!super::is_utf8_locale(other), "{other}");
        }
    }
}
