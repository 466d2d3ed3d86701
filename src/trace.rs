//! Phase timings on stderr, for performance work (`T3_TRACE=1`; the edge
//! turns it on with [`enable`], the library never reads the environment).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Whether spans and notes are printed; off unless the edge turns it on.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// When the program started (else when tracing was turned on): each span
/// says when it ended, from there.
static STARTED: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// Start the clock spans are placed on: the binary does it first thing.
pub fn start_clock() {
    STARTED.get_or_init(Instant::now);
}

/// Turn tracing on or off for this process.
pub fn enable(on: bool) {
    if on {
        start_clock();
    }
    ENABLED.store(on, Ordering::Relaxed);
}

/// Print when `name` happened, when tracing is on.
pub fn mark(name: &str) {
    if enabled() {
        let at = STARTED.get().map_or(0.0, |s| s.elapsed().as_secs_f64() * 1000.0);
        eprintln!("t3-trace              (at {at:>6.2})  {name}");
    }
}

fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Prints how long its scope took, on drop, when tracing is on.
pub struct Span {
    name: &'static str,
    start: Option<Instant>,
}

/// Start timing `name`.
pub fn span(name: &'static str) -> Span {
    Span {
        name,
        start: enabled().then(Instant::now),
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        if let Some(start) = self.start {
            let at = STARTED.get().map_or(0.0, |s| s.elapsed().as_secs_f64() * 1000.0);
            eprintln!(
                "t3-trace {:>8.2} ms  (at {at:>6.2})  {}",
                start.elapsed().as_secs_f64() * 1000.0,
                self.name
            );
        }
    }
}

/// Print a message computed by `msg` when tracing is on.
pub fn note(msg: impl FnOnce() -> String) {
    if enabled() {
        eprintln!("t3-trace {}", msg());
    }
}
