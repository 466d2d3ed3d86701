//! Phase timings on stderr, for performance work (`T3_TRACE=1`; the edge
//! turns it on with [`enable`], the library never reads the environment).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Whether spans and notes are printed; off unless the edge turns it on.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Turn tracing on or off for this process.
pub fn enable(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
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
            eprintln!(
                "t3-trace {:>8.2} ms  {}",
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
