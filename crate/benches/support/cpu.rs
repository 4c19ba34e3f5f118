//! CPU time for the benchmarks that report it (`crate/benches/check.rs` and the Stateright
//! comparison in `bench/stateright`, which includes this file): the process's user + system time
//! from Linux `/proc/self/stat`, wall-clock time where the system does not say.

use std::time::Instant;

/// User + system CPU seconds of this process, if the system says.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (in parentheses, which may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let (utime, stime): (f64, f64) = (f.get(11)?.parse().ok()?, f.get(12)?.parse().ok()?);
    Some((utime + stime) / 100.0) // USER_HZ is 100 on Linux
}

/// Runs `f`: what it returns, the CPU seconds it took (its wall-clock seconds where the system
/// does not say) and its wall-clock seconds.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let (c0, t0) = (cpu_seconds(), Instant::now());
    let out = f();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = match (c0, cpu_seconds()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => wall,
    };
    (out, cpu, wall)
}
