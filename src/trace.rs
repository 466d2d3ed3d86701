//! Phase timings on stderr when `T3_TRACE` is set, for performance work.

use std::time::Instant;

/// Prints how long its scope took, on drop, when tracing is on.
pub struct Span {
    name: &'static str,
    start: Option<Instant>,
}

/// Start timing `name`.
pub fn span(name: &'static str) -> Span {
    Span {
        name,
        start: std::env::var_os("T3_TRACE").map(|_| Instant::now()),
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
    if std::env::var_os("T3_TRACE").is_some() {
        eprintln!("t3-trace {}", msg());
    }
}
