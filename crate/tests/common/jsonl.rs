//! A run's JSON Lines, as `election-lab run --jsonl` writes them, for the tests that read them back.

use election_lab::engine::Stop;
use election_lab::Engine;
use serde_json::Value;

/// Every line of the run's trace (header, steps, interventions, summary), in order.
pub fn lines(e: &mut Engine) -> Vec<Value> {
    let mut out = vec![];
    e.trace_lines::<()>(&mut |v| {
        out.push(v);
        Ok::<(), Stop<()>>(())
    })
    .unwrap();
    out
}

/// The lines as one text, one JSON value per line.
pub fn text(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}
