//! What a sweep keeps of its runs for the summary and the plot: per line and node count, the
//! counts of the summary's columns and the values of the measure (8 bytes a run), taken as each
//! run ends. A sweep that writes only its summary keeps no rows ([`Sweep::keep_rows`]), so its
//! memory follows its values, not its rows (about 1 KB a run with the faults and node order).

use super::*;

/// A line at one node count, as far as the summary and the plot need it.
#[derive(Clone, Debug, Default)]
pub(super) struct Tally {
    pub(super) runs: u64,
    /// The measure of each run that has one, divided by the spec's `divide`, in run order.
    pub(super) values: Vec<f64>,
    agreement: u64,
    ever_two: u64,
    end_two: u64,
    end_one: u64,
    end_none: u64,
    minority_leader: u64,
    /// The line's formula on the network of these runs (their graph has one size per N).
    theory: Option<u64>,
}

impl Sweep {
    /// Whether the rows of the runs are kept (the default): without them, [`Sweep::rows`] is
    /// empty and only the summary and the plot can be written, in memory of 8 bytes a run
    /// instead of a row (`election-lab sweep --summary`). Rows already kept are dropped.
    pub fn keep_rows(&mut self, keep: bool) {
        self.keep_rows = keep;
        if !keep {
            self.rows = Vec::new();
        }
    }

    /// Takes the rows of the next runs, in order: counted in the summary, and kept if rows are.
    pub(super) fn take(&mut self, rows: Vec<Row>) {
        self.done += rows.len() as u64;
        for r in &rows {
            self.steps += r.steps;
            let value = self.value(r);
            let t = self.tallies.entry((r.line, r.nodes)).or_default();
            t.runs += 1;
            t.values.extend(value);
            t.agreement += r.agreement.is_some() as u64;
            t.ever_two += (r.max_leaders >= 2) as u64;
            t.end_two += (r.leaders >= 2) as u64;
            t.end_one += (r.leaders == 1) as u64;
            t.end_none += (r.leaders == 0) as u64;
            t.minority_leader += r.minority_leaders.is_some_and(|m| m > 0) as u64;
            t.theory = t.theory.or(r.theory);
        }
        if self.keep_rows {
            self.rows.extend(rows);
        }
    }

    /// One group per line and node count, in line order then ascending N (runs done so far).
    pub fn summary(&self) -> Vec<Group> {
        self.tallies
            .iter()
            .map(|(&(line, nodes), t)| Group {
                line,
                nodes,
                runs: t.runs,
                stats: Stats::of(&mut t.values.clone()),
                theory: t.theory,
                agreement: t.agreement,
                ever_two: t.ever_two,
                end_two: t.end_two,
                end_one: t.end_one,
                end_none: t.end_none,
                minority_leader: t.minority_leader,
            })
            .collect()
    }

    /// The values of the measure on line `line` (every node count), and how many runs it had.
    pub(super) fn line_values(&self, line: usize) -> (Vec<f64>, u64) {
        let mine = self.tallies.range((line, 0)..=(line, u32::MAX)).map(|(_, t)| t);
        mine.fold((Vec::new(), 0), |(mut v, runs), t| {
            v.extend_from_slice(&t.values);
            (v, runs + t.runs)
        })
    }
}
