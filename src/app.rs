//! The edge of the library: turn a parsed command line and the process
//! environment into plain options, open the repository once, and dispatch
//! to the command. Environment variables are read here and nowhere else.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::{Cli, Command};
use crate::commands::{self, Context, Outcome, Settings};
use crate::error::{Context as _, Error, Result};
use crate::model::thread::ThreadId;
use crate::repo::lock::{DEFAULT_TIMEOUT, HOOK_TIMEOUT};

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
    /// Only look: set by `review` for the page's GET requests (never from
    /// the process environment). Only `list` and `diff` run then, and they
    /// write nothing (see [`Settings::read_only`]).
    pub read_only: bool,
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
            read_only: false,
        }
    }

    fn settings(&self, default_lock_timeout: Duration) -> Settings {
        Settings {
            lock_timeout: self.lock_timeout.unwrap_or(default_lock_timeout),
            provider: crate::provider::Settings {
                search_path: self.path.clone(),
                timeout: self.provider_timeout,
                homes: self.agent_homes.clone(),
            },
            interrupt: self.interrupt,
            config_overrides: self.config_overrides.clone().unwrap_or_default(),
            read_only: self.read_only,
        }
    }
}

/// Start `git t3 maintenance [--prune]` in `dir`, detached: this program
/// again, in its own process group, with no stdin, stdout or stderr (an
/// agent's hook waits for its pipes to close). What the binary installs as
/// the library's [`crate::retention::maintenance::Starter`].
pub fn start_maintenance(dir: &std::path::Path, prune: bool) -> bool {
    use std::os::unix::process::CommandExt as _;
    let Ok(exe) = std::env::current_exe() else {
        return false;
    };
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("-C").arg(dir).args(["-q", "maintenance"]);
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

/// Run the command `cli` describes, in the environment `env`.
pub fn run(cli: Cli, env: &Environment) -> Result<Outcome> {
    crate::trace::enable(env.trace);
    let base = cli.directory.clone().unwrap_or_else(|| PathBuf::from("."));
    // Validate what needs no repository first, so usage errors win.
    let open = |settings: Settings| -> Result<Context> {
        let _t = crate::trace::span("open repository");
        if env.config_overrides.is_none() {
            return Err(Error::usage(
                "bogus format in GIT_CONFIG_PARAMETERS, or GIT_CONFIG_COUNT without its keys and values",
            ));
        }
        Context::open(&base, settings)
    };
    let settings = env.settings(DEFAULT_TIMEOUT);
    if env.read_only && !matches!(cli.command, Command::List(_) | Command::Diff(_)) {
        return Err(Error::Internal(
            "only list and diff run when nothing may be written".into(),
        ));
    }
    let installing = matches!(cli.command, Command::InstallHooks(_));
    match cli.command {
        Command::Hook(a) => Ok(Outcome::Hook(hook(a, &base, env))),
        Command::Completions(a) => Ok(Outcome::Text(
            crate::cli::completions(&a.shell).map_err(Error::usage)?,
        )),
        Command::Mangen(a) => {
            let dir = match &a.dir {
                Some(dir) => base.join(dir),
                None => crate::cli::man::default_dir()
                    .context(|| "could not find where git-t3 is installed".into())?,
            };
            let written = crate::cli::man::generate(&dir)
                .context(|| format!("could not write man pages into {}", dir.display()))?;
            Ok(Outcome::Files(
                written.iter().map(|p| p.display().to_string()).collect(),
            ))
        }
        Command::InstallHooks(a) | Command::UninstallHooks(a) => {
            let opts = install_options(&a)?;
            // A user-scoped agent set-up needs no repository.
            let ctx = if opts.needs_repository() {
                Some(open(settings)?)
            } else {
                None
            };
            let repo = ctx.as_ref().map(|c| &c.repo);
            Ok(Outcome::Install(if installing {
                commands::install::install(repo, &env.places, &opts)?
            } else {
                commands::install::uninstall(repo, &env.places, &opts)?
            }))
        }
        Command::Review(a) => {
            let opts = crate::review::options(&a, &base)?;
            // The page's commands: never a pager, never colour (the output
            // goes into a response), times in UTC; read-only unless a POST.
            let mut page = env.clone();
            page.terminal.stdout_is_terminal = false;
            page.terminal.pager_in_use = false;
            page.terminal.no_color = true;
            page.time_zone = Some(None);
            let run_page = |cli: Cli, writes: bool| {
                run(
                    cli,
                    &Environment {
                        read_only: !writes,
                        ..page.clone()
                    },
                )
            };
            let host = crate::review::Host {
                run: &run_page,
                interrupt: env.interrupt,
                browser: env.browser.clone(),
            };
            Ok(Outcome::Review(crate::review::serve(opts, &host, &mut |url| {
                crate::output::web::announce(url)
            })?))
        }
        command => {
            let mut settings = settings;
            if let Command::Diff(a) = &command
                && let Some(algorithm) = a.algorithm()
            {
                // Like git's, the flag beats `diff.algorithm`, `-c` included.
                settings
                    .config_overrides
                    .push(format!("diff.algorithm={algorithm}"));
            }
            let edge = Edge {
                json: cli.json,
                quiet: cli.quiet,
                term: &env.terminal,
                base: &base,
                time_zone: &env.time_zone,
            };
            repository_command(command, &edge, &|| open(settings.clone()))
        }
    }
}

/// What the edge knows that some commands need.
struct Edge<'a> {
    json: bool,
    /// `-q`: on `diff`, git's `--quiet`.
    quiet: bool,
    term: &'a crate::output::pager::Terminal,
    /// `-C`, else `.`: where relative paths start.
    base: &'a Path,
    time_zone: &'a Option<Option<jiff::tz::TimeZone>>,
}

impl Edge<'_> {
    /// The local time zone (see [`Environment::time_zone`]).
    fn time_zone(&self) -> Option<jiff::tz::TimeZone> {
        match self.time_zone {
            Some(fixed) => fixed.clone(),
            None => Some(jiff::tz::TimeZone::system()),
        }
    }
}

/// The commands that work on a repository.
fn repository_command(
    command: Command,
    edge: &Edge<'_>,
    open: &dyn Fn() -> Result<Context>,
) -> Result<Outcome> {
    let thread = |raw: &str| ThreadId::parse(raw);
    let optional = |raw: Option<&str>| raw.map(ThreadId::parse).transpose();
    Ok(match command {
        Command::Baseline(a) => {
            let opts = commands::baseline::Options {
                thread: thread(&a.thread.thread)?,
                provider: a.provider,
                agent: Some(a.agent.unwrap_or_else(|| "cli".into())),
            };
            Outcome::Checkpoint(commands::baseline::run(&open()?, opts)?)
        }
        Command::Capture(a) => {
            let opts = commands::capture::Options {
                turn: a.turn,
                state: a.state,
                turn_id: a.turn_id,
                message_id: a.message_id,
                replace: a.replace,
                title: a.title,
                agent: Some(a.agent.unwrap_or_else(|| "cli".into())),
                ..commands::capture::Options::new(thread(&a.thread.thread)?)
            };
            Outcome::Checkpoint(commands::capture::run(&open()?, opts)?)
        }
        Command::Placeholder(a) => {
            let opts = commands::placeholder::Options {
                thread: thread(&a.thread.thread)?,
                turn: a.turn,
                turn_id: a.turn_id,
            };
            Outcome::Checkpoint(commands::placeholder::run(&open()?, opts)?)
        }
        Command::List(crate::cli::ListArgs {
            thread,
            remote: Some(remote),
        }) => {
            commands::sync::check_remote(Some(&remote))?;
            let ctx = open()?;
            let thread = optional(thread.as_deref())?;
            Outcome::Remote(commands::list::remote(&ctx.repo, &remote, thread.as_ref())?)
        }
        Command::Log(crate::cli::LogArgs {
            thread: crate::cli::ThreadArg { thread },
            remote: Some(remote),
            ..
        }) => {
            commands::sync::check_remote(Some(&remote))?;
            let ctx = open()?;
            let thread = crate::model::thread::ThreadId::parse(&thread)?;
            Outcome::Remote(commands::list::remote(&ctx.repo, &remote, Some(&thread))?)
        }
        Command::List(a) => match optional(a.thread.as_deref())? {
            Some(t) => {
                let ctx = open()?;
                let mut listed = commands::list::turns(&ctx.repo, &ctx.resolve(t)?)?;
                listed.view.time_zone = edge.time_zone();
                Outcome::Turns(listed)
            }
            None => {
                let mut listed = commands::list::threads(&open()?.repo)?;
                listed.view.time_zone = edge.time_zone();
                Outcome::Threads(listed)
            }
        },
        Command::Show(a) => {
            let t = thread(&a.thread.thread)?;
            let ctx = open()?;
            Outcome::Show(commands::show::run(&ctx.repo, &ctx.resolve(t)?, a.turn)?)
        }
        Command::Diff(a) => Outcome::Diff(diff(a, edge, open)?),
        command @ (Command::Log(_) | Command::Status | Command::Rev(_) | Command::Restore(_)) => {
            review(command, edge, open)?
        }
        Command::Revert(a) => {
            let t = thread(&a.thread.thread)?;
            let action = revert_action(&a)?;
            let ctx = open()?;
            Outcome::Revert(commands::revert::run(&ctx, &ctx.resolve(t)?, action)?)
        }
        Command::Verify(a) => {
            let mut opts = commands::verify::Options {
                thread: optional(a.thread.as_deref())?,
                max_journal_age_secs: parse_age(&a.max_journal_age)?,
                fix: a.fix,
                quick: a.quick,
            };
            let ctx = open()?;
            opts.thread = opts.thread.map(|t| ctx.resolve(t)).transpose()?;
            Outcome::Verify(commands::verify::run(&ctx, opts)?)
        }
        Command::Push(crate::cli::PushArgs { sync, allow_secrets }) => Outcome::Sync(sync_command(
            commands::sync::Direction::Push { allow_secrets },
            sync,
            open,
        )?),
        Command::Fetch(a) => Outcome::Sync(sync_command(commands::sync::Direction::Fetch, a, open)?),
        Command::Op(a) => Outcome::Op(op(a.action, open)?),
        Command::Notes(a) => {
            let crate::cli::NotesAction::Backfill { thread, dry_run } = a.action;
            let thread = optional(thread.as_deref())?;
            let ctx = open()?;
            let opts = commands::notes::Options {
                thread: thread.map(|t| ctx.resolve(t)).transpose()?,
                dry_run,
            };
            Outcome::Notes(commands::notes::backfill(&ctx, opts)?)
        }
        Command::Du(a) => {
            let ctx = open()?;
            let only = optional(a.thread.as_deref())?
                .map(|t| ctx.resolve(t))
                .transpose()?;
            Outcome::Du(commands::du::run(&ctx.repo, only.as_ref())?)
        }
        Command::Prune(a) => {
            let opts = commands::prune::Options {
                older_than: a.older_than.as_deref().map(parse_age).transpose()?,
                keep_last: a.keep_last,
                dry_run: a.dry_run,
                force: a.force,
                start_maintenance: true,
            };
            Outcome::Prune(commands::prune::run(&open()?, opts)?)
        }
        Command::Maintenance(a) => Outcome::Maintenance(commands::maintenance::run(&open()?, a.prune)?),
        Command::Drop(a) => {
            let t = thread(&a.thread.thread)?;
            let ctx = open()?;
            Outcome::Drop(commands::drop::run(&ctx, &ctx.resolve(t)?, a.force)?)
        }
        Command::Hook(_)
        | Command::Review(_)
        | Command::Completions(_)
        | Command::Mangen(_)
        | Command::InstallHooks(_)
        | Command::UninstallHooks(_) => {
            return Err(Error::Internal(
                "a command without a repository reached the dispatch".into(),
            ));
        }
    })
}

/// `push` and `fetch`.
fn sync_command(
    dir: commands::sync::Direction,
    a: crate::cli::SyncArgs,
    open: &dyn Fn() -> Result<Context>,
) -> Result<commands::sync::SyncOutcome> {
    let t = a.thread.as_deref().map(ThreadId::parse).transpose()?;
    // Usage first, before a repository is looked for.
    commands::sync::check_remote(a.remote.as_deref())?;
    let ctx = open()?;
    let t = t.map(|t| ctx.resolve(t)).transpose()?;
    commands::sync::run(&ctx, dir, a.remote.as_deref(), t.as_ref())
}

/// `log`, `status`, `rev` and `restore`.
fn review(command: Command, edge: &Edge<'_>, open: &dyn Fn() -> Result<Context>) -> Result<Outcome> {
    let thread = |raw: &str| ThreadId::parse(raw);
    Ok(match command {
        Command::Log(a) => Outcome::Log(log(a, edge, open)?),
        Command::Status => Outcome::Status(commands::status::run(&open()?)?),
        Command::Rev(a) => {
            let t = thread(&a.thread.thread)?;
            let ctx = open()?;
            Outcome::Rev(commands::rev::run(&ctx.repo, &ctx.resolve(t)?, a.turn)?)
        }
        Command::Restore(a) => {
            let t = thread(&a.thread.thread)?;
            let ctx = open()?;
            let opts = commands::restore::Options {
                thread: ctx.resolve(t)?,
                turn: a.turn,
                paths: a.paths,
                cwd: edge.base.to_owned(),
                force: a.force,
                remote: a.remote,
            };
            commands::sync::check_remote(opts.remote.as_deref())?;
            Outcome::Restore(commands::restore::run(&ctx, opts)?)
        }
        _ => {
            return Err(Error::Internal(
                "a command that is not a review command reached review".into(),
            ));
        }
    })
}

fn log(
    a: crate::cli::LogArgs,
    edge: &Edge<'_>,
    open: &dyn Fn() -> Result<Context>,
) -> Result<commands::log::LogOutcome> {
    let thread = ThreadId::parse(&a.thread.thread)?;
    let ctx = open()?;
    let opts = commands::log::Options {
        thread: ctx.resolve(thread)?,
        // JSON carries no patch: do not build it.
        patch: a.patch && !edge.json,
        paths: a.paths,
        prefix: crate::repo::prefix(&ctx.repo, edge.base),
    };
    let mut outcome = commands::log::run(&ctx, opts)?;
    let look = if edge.json {
        Default::default()
    } else {
        let (look, warnings) = crate::diff::style::read(&ctx.repo)?;
        outcome.notices.extend(warnings);
        look
    };
    outcome.view = commands::log::View {
        oneline: a.oneline,
        color: !edge.json && a.patch && crate::output::pager::use_color(&ctx.repo, edge.term),
        pager: if edge.json {
            None
        } else {
            crate::output::pager::pager_command(Some(&ctx.repo), edge.term)
        },
        time_zone: edge.time_zone(),
        look,
        quote_path: ctx
            .repo
            .config_snapshot()
            .boolean("core.quotePath")
            .unwrap_or(true),
    };
    Ok(outcome)
}

fn op(action: crate::cli::OpAction, open: &dyn Fn() -> Result<Context>) -> Result<commands::op::OpOutcome> {
    use crate::cli::OpAction;
    match action {
        OpAction::Log { thread } => {
            let thread = thread.as_deref().map(ThreadId::parse).transpose()?;
            let ctx = open()?;
            let thread = thread.map(|t| ctx.resolve(t)).transpose()?;
            commands::op::log(&ctx.repo, thread.as_ref())
        }
        OpAction::Show { op } => commands::op::show(&open()?.repo, &op),
        OpAction::Undo { op, force } => commands::op::undo(&open()?, op.as_deref(), force),
    }
}

fn revert_action(a: &crate::cli::RevertArgs) -> Result<commands::revert::Action> {
    use commands::revert::Action;
    Ok(if a.resume {
        Action::Continue
    } else if a.abort {
        Action::Abort { force: a.force }
    } else if a.undo {
        Action::Undo { force: a.force }
    } else {
        Action::To {
            turn: a.to.ok_or_else(|| Error::usage("revert needs --to <N>"))?,
            files_only: a.files_only,
            dry_run: a.dry_run,
            force: a.force,
        }
    })
}

/// A hook never breaks the agent: every failure becomes a message.
fn hook(a: crate::cli::HookArgs, base: &Path, env: &Environment) -> commands::hook::HookReport {
    let source_name = format!("the {} hook payload", a.agent);
    let (then, payload) = a.split();
    let payload = match payload {
        Some(p) => Ok(p.into_bytes()),
        None => read_stdin(HOOK_STDIN_WAIT).map_err(|problem| Error::BadInput { source_name, problem }),
    };
    if then.is_none()
        && let Ok(p) = &payload
        && let Some(report) = detach_unwaited(&a.agent, p, base)
    {
        return report;
    }
    commands::hook::run(
        commands::hook::Input {
            agent: &a.agent,
            payload,
            default_dir: base,
            env: &env.hook,
            then: then.as_deref(),
        },
        &env.settings(HOOK_TIMEOUT),
    )
}

/// Set in the environment of a hook [`detach_unwaited`] started.
const DETACHED_ENV: &str = "GIT_T3_HOOK_DETACHED";
/// How long a hook waits for the copy it detached (within the hook's own
/// time limit in the agent's settings).
const DETACHED_WAIT: Duration = Duration::from_secs(50);

/// Claude Code does not wait for its `StopFailure` and `SessionEnd` hooks:
/// it kills them as it exits (seen with 2.1 in `-p` mode). For those the
/// capture runs in a copy of this program in a session of its own, fed the
/// payload; this hook waits for it (so an agent that does wait sees the
/// capture done) and, killed meanwhile, leaves it to finish (`detached`).
/// `None`: handle it here.
fn detach_unwaited(agent: &str, payload: &[u8], base: &Path) -> Option<commands::hook::HookReport> {
    use std::io::Write as _;
    use std::os::unix::process::CommandExt as _;
    if agent != "claude-code" || std::env::var_os(DETACHED_ENV).is_some() {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(payload).ok()?;
    let event = v.get("hook_event_name")?.as_str()?.to_owned();
    if !matches!(event.as_str(), "StopFailure" | "SessionEnd") {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("-C")
        .arg(base)
        .args(["hook", agent])
        .env(DETACHED_ENV, "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // Its own process group: an agent that ends the hook's group (or
    // Ctrl-C in the terminal) leaves the copy running.
    cmd.process_group(0);
    let mut child = cmd.spawn().ok()?;
    let fed = child.stdin.take().map(|mut w| w.write_all(payload));
    if !matches!(fed, Some(Ok(()))) {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    let until = std::time::Instant::now() + DETACHED_WAIT;
    while std::time::Instant::now() < until && matches!(child.try_wait(), Ok(None)) {
        std::thread::sleep(Duration::from_millis(5));
    }
    Some(commands::hook::HookReport {
        reply: commands::hook::Reply::SystemMessage,
        result: Ok(commands::hook::HookOutcome {
            agent: agent.to_owned(),
            event,
            action: "detached",
            thread: None,
            turn: None,
            notices: Vec::new(),
        }),
    })
}

/// How long a hook waits for more of its payload on stdin: an agent that
/// sends its JSON and never closes the pipe, or sends nothing, must not
/// hang its hook.
const HOOK_STDIN_WAIT: Duration = Duration::from_secs(2);
/// The largest hook payload read (a prompt can hold a large paste).
const HOOK_PAYLOAD_MAX: u64 = 64 << 20;

/// Read the hook's payload from stdin (at most [`HOOK_PAYLOAD_MAX`]
/// bytes) on a thread: done at end of input, or as soon as what arrived is
/// one whole JSON document, or when nothing more came for `wait`.
fn read_stdin(wait: Duration) -> std::result::Result<Vec<u8>, String> {
    let (tx, rx) = std::sync::mpsc::channel::<std::io::Result<Vec<u8>>>();
    std::thread::spawn(move || {
        use std::io::Read as _;
        let mut stdin = std::io::stdin().take(HOOK_PAYLOAD_MAX + 1);
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match stdin.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    if tx.send(Ok(chunk.get(..n).unwrap_or_default().to_vec())).is_err() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Err(e));
                    break;
                }
            }
        }
    });
    // Parsed only when it could be whole (ends in `}` or `]`): a large
    // payload arrives in many chunks.
    let whole = |buf: &[u8]| {
        matches!(buf.trim_ascii_end().last(), Some(b'}' | b']'))
            && serde_json::from_slice::<serde::de::IgnoredAny>(buf).is_ok()
    };
    let mut buf = Vec::new();
    loop {
        match rx.recv_timeout(wait) {
            Ok(Ok(part)) => {
                buf.extend_from_slice(&part);
                if buf.len() as u64 > HOOK_PAYLOAD_MAX {
                    return Err(format!("more than {} MiB: not read", HOOK_PAYLOAD_MAX >> 20));
                }
                if whole(&buf) {
                    return Ok(buf);
                }
            }
            Ok(Err(e)) => return Err(format!("could not read it: {e}")),
            // End of input.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Ok(buf),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if buf.is_empty() => {
                return Err(format!("no payload on stdin within {}s", wait.as_secs()));
            }
            // Stalled part-way: what came is the payload (it will not parse).
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => return Ok(buf),
        }
    }
}

fn diff(
    a: crate::cli::DiffArgs,
    edge: &Edge<'_>,
    open: &dyn Fn() -> Result<Context>,
) -> Result<commands::diff::DiffOutcome> {
    use commands::diff::{Format, Mode};
    // `--to worktree`: the live files are the newer side.
    let (to, to_worktree) = match a.to.as_deref() {
        None => (None, false),
        Some("worktree") => (None, true),
        Some(n) => (
            Some(
                n.parse::<u64>()
                    .map_err(|_| Error::usage(format!("--to {n}: want a turn number or 'worktree'")))?,
            ),
            false,
        ),
    };
    let (json, quiet, term) = (edge.json, edge.quiet, edge.term);
    let mode = if a.worktree {
        Mode::Worktree
    } else if let Some(base) = a.branch {
        Mode::Branch((!base.is_empty()).then_some(base))
    } else if to_worktree {
        Mode::ToWorktree {
            from: if a.full { Some(0) } else { a.from },
        }
    } else if a.full {
        Mode::Full { to }
    } else if let Some(from) = a.from {
        Mode::Range { from, to }
    } else if let Some(to) = to {
        Mode::Turn(Some(to))
    } else {
        Mode::Turn(a.turn)
    };
    let needs_thread = matches!(
        mode,
        Mode::Turn(_) | Mode::Range { .. } | Mode::Full { .. } | Mode::ToWorktree { .. }
    );
    let thread = match (a.thread, needs_thread) {
        (Some(t), true) => Some(ThreadId::parse(&t)?),
        (None, true) => {
            return Err(Error::usage("this diff needs --thread <ID> (or T3_THREAD)"));
        }
        (_, false) => None,
    };
    let format = if a.stat.is_some() {
        Format::Stat
    } else if a.numstat {
        Format::Numstat
    } else if a.name_only {
        Format::NameOnly
    } else if a.name_status {
        Format::NameStatus
    } else {
        Format::Patch
    };
    let ctx = open()?;
    let thread = thread.map(|t| ctx.resolve(t)).transpose()?;
    if let (Mode::ToWorktree { .. }, Some(t)) = (&mode, &thread) {
        crate::store::require_bound_here(&ctx.repo, t, "diff --to worktree", a.force)?;
    }
    let prefix = crate::repo::prefix(&ctx.repo, edge.base);
    let live = matches!(mode, Mode::Worktree | Mode::Branch(_));
    let ignore_whitespace = if a.keep_whitespace {
        false
    } else if a.ignore_all_space {
        true
    } else {
        // Turn diffs hide whitespace (the seed's default); the live modes
        // compare like `git diff`.
        !live
            && ctx
                .repo
                .config_snapshot()
                .boolean("t3.diff.ignoreWhitespace")
                .unwrap_or(true)
    };
    let mut outcome = commands::diff::run(
        &ctx,
        commands::diff::Options {
            thread,
            mode,
            ignore_whitespace,
            binary: a.binary,
            // JSON needs no patch text: do not build it.
            format: if json { Format::Numstat } else { format },
            context: a.unified.unwrap_or(crate::diff::patch::CONTEXT),
            paths: a.paths,
            relative: relative(a.relative, a.no_relative, &ctx.repo, prefix.as_ref())?,
            prefix,
            include_user_edits: a.include_user_edits,
        },
    )?;
    outcome.format = format;
    outcome.null_terminated = a.null;
    // git's `diff --quiet`: no output, the exit status says it all.
    outcome.exit_code = a.exit_code || quiet;
    outcome.quiet = quiet;
    outcome.stat_widths = stat_widths(a.stat.as_deref(), &ctx.repo, term)?;
    outcome.color = !json
        && match (a.no_color, a.color.as_deref()) {
            (true, _) | (false, Some("never")) => false,
            (false, Some("always")) => true,
            (false, Some("auto")) => term.stdout_is_terminal && !term.no_color,
            (false, Some(other)) => {
                return Err(Error::usage(format!(
                    "--color={other}: use always, never or auto"
                )));
            }
            (false, None) => crate::output::pager::use_color(&ctx.repo, term),
        };
    if !json {
        // Like git, a colour or whitespace setting it cannot use stops the
        // diff even when it is not coloured.
        let (look, warnings) = crate::diff::style::read(&ctx.repo)?;
        outcome.look = look;
        outcome.notices.extend(warnings);
    }
    outcome.pager = if json {
        None
    } else {
        crate::output::pager::pager_command(Some(&ctx.repo), term)
    };
    Ok(outcome)
}

/// git's `--relative[=<path>]`, `--no-relative` (the last given wins) and
/// `diff.relative`: the leading part of paths to keep and strip. Without a
/// path it is the current directory's `prefix`; a path is taken from the top
/// as written.
fn relative(
    arg: Option<Option<String>>,
    no_relative: bool,
    repo: &gix::Repository,
    prefix: &gix::bstr::BStr,
) -> Result<Option<gix::bstr::BString>> {
    if no_relative {
        return Ok(None);
    }
    let on = match arg {
        Some(Some(path)) => return Ok(Some(path.into())),
        Some(None) => true,
        None => {
            let config = repo.config_snapshot();
            match config.try_boolean("diff.relative") {
                Ok(on) => on.unwrap_or(false),
                Err(_) => {
                    return Err(Error::BadConfig {
                        key: "diff.relative".into(),
                        value: config
                            .string("diff.relative")
                            .map(|v| v.to_string())
                            .unwrap_or_default(),
                        origin: "git config".into(),
                        problem: "not a boolean (true or false)".into(),
                    });
                }
            }
        }
    };
    Ok(on.then(|| prefix.to_owned()))
}

/// `--stat=<width>[,<name-width>[,<count>]]` over `diff.statNameWidth`,
/// `diff.statGraphWidth` and the terminal's width (else 80), as git reads them.
fn stat_widths(
    arg: Option<&str>,
    repo: &gix::Repository,
    term: &crate::output::pager::Terminal,
) -> Result<commands::diff::StatWidths> {
    let config = repo.config_snapshot();
    let number = |key: &str| {
        config
            .integer(key)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0)
    };
    let mut w = commands::diff::StatWidths {
        width: term.columns.unwrap_or(80),
        name: number("diff.statNameWidth"),
        graph: number("diff.statGraphWidth"),
    };
    let mut parts = arg.unwrap_or_default().split(',');
    let bad = || Error::usage("--stat takes <width>[,<name-width>[,<count>]] in columns");
    if let Some(width) = parts.next().filter(|p| !p.is_empty()) {
        w.width = width.parse().map_err(|_| bad())?;
    }
    if let Some(name) = parts.next().filter(|p| !p.is_empty()) {
        w.name = name.parse().map_err(|_| bad())?;
    }
    Ok(w)
}

/// `30s`, `30m`, `12h`, `2d` or plain seconds.
fn parse_age(raw: &str) -> Result<u64> {
    crate::model::age::parse(raw).map_err(Error::usage)
}

fn install_options(a: &crate::cli::InstallArgs) -> Result<commands::install::Options> {
    use commands::install::{Options, Scope, Target};
    let chosen = [
        (a.claude_code, Target::ClaudeCode),
        (a.codex, Target::Codex),
        (a.codex_notify, Target::CodexNotify),
        (a.cursor, Target::Cursor),
        (a.opencode, Target::Opencode),
    ];
    let opts = Options {
        agents: chosen
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, agent)| *agent)
            .collect(),
        git: a.git,
        scope: a
            .scope
            .as_deref()
            .map(|s| {
                Scope::parse(s)
                    .ok_or_else(|| Error::usage(format!("unknown scope '{s}': say local, project or user")))
            })
            .transpose()?,
    };
    opts.check()?;
    Ok(opts)
}

/// `HOME` and the variables that move an agent's configuration; unset,
/// empty or relative values count as unset.
fn places_from_process() -> commands::install::Places {
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
