//! The cores this process may run on, asked once: the standard library
//! reads the CPU affinity and three cgroup files on every call, and a
//! capture asked seven times.

/// The cores this process may run on (its CPU affinity and cgroup quota),
/// at least one.
pub fn cores() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}
